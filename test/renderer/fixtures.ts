// Card entries and connection states for the renderer's pure modules. What a card means
// (counts, current step, active/paused, outcome) comes from the core's own deriveCard, fed
// with run facts, so renderer tests check the product's derivation, not a copy of it.
import { deriveCard } from "../../common/card.ts";
import { kindOfKey } from "../../common/sessions.ts";
import type { CardEntry, ConnectionState, ProgressCard, RunOutcome, SessionInfo, Step, NeedEntry } from "../../common/model.ts";

export const GW = "home";
export const KEY = "agent:main:dashboard:3f0c";
export const T0 = new Date(2026, 8, 20, 14, 5, 0).getTime();

/**
 * A session row with a live run that started a second before the reference time. `extra` may
 * carry fields only the Gateway's own rows have (spawnedBy), which the renderer reads as they come.
 */
export function sessionRow(key: string, extra: Partial<SessionInfo> & Record<string, unknown> = {}): SessionInfo {
  return {
    key,
    sessionId: null,
    agentId: "main",
    title: key,
    kind: kindOfKey(key),
    parentKey: null,
    updatedAt: null,
    status: "running",
    hasActiveRun: true,
    activeRunIds: null,
    startedAt: T0 - 1000,
    endedAt: null,
    ...extra,
  } as SessionInfo;
}

/** The session-row facts deriveCard reads (docs/gateway.md §4.6); null = no row. */
export type RunFacts = Pick<SessionInfo, "status" | "hasActiveRun" | "startedAt" | "endedAt">;

/** A run that started before the card and still runs: an unfinished card is active. */
export const LIVE_RUN: RunFacts = { status: "running", hasActiveRun: true, startedAt: T0 - 60_000, endedAt: null };

/** A run that wrote the card and then ended with `status`. */
export function endedRun(status: RunOutcome): RunFacts {
  return { status, hasActiveRun: false, startedAt: T0 - 60_000, endedAt: T0 + 1000 };
}

export function steps(...statuses: Step["status"][]): Step[] {
  return statuses.map((status, i) => ({ step: `Step ${i + 1}`, status }));
}

export function card(extra: Partial<ProgressCard> = {}): ProgressCard {
  return {
    sessionKey: KEY,
    revision: 1,
    updatedAt: T0,
    markdown: "Working on it",
    steps: steps("completed", "in_progress", "pending"),
    ...extra,
  };
}

/** An entry as the core builds it; `run` (default: a live run) is what the Gateway said about the session. */
export function entry(extra: Partial<CardEntry> & { run?: RunFacts | null } = {}): CardEntry {
  const { run = LIVE_RUN, ...rest } = extra;
  const c = rest.card === undefined ? card() : rest.card;
  return {
    gatewayId: GW,
    sessionKey: KEY,
    agentId: null,
    title: "Repair session owner",
    card: c,
    derived: c ? deriveCard(c, run) : null,
    freshness: "live",
    confirmedAt: T0,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
    ...rest,
  };
}

/** The same slot after the Gateway confirmed a clear by a read at `at`. */
export function clearedByRead(at: number, extra: Partial<CardEntry> = {}): CardEntry {
  return entry({ card: null, derived: null, confirmedAt: at, ...extra });
}

export function connected(since: number, limited = false): ConnectionState {
  return {
    state: "connected",
    since,
    serverVersion: "2026.9.6",
    scopes: ["operator.read", "operator.write"],
    limited,
    advice: "Connected.",
  };
}

export function offline(nextRetryAt: number, extra: Partial<Extract<ConnectionState, { state: "offline" }>> = {}): ConnectionState {
  return {
    state: "offline",
    reason: "connection refused",
    nextRetryAt,
    retryInMs: 5000,
    attempt: 2,
    lastConnectedAt: null,
    restarting: false,
    advice: "Cannot reach the Gateway. Retrying in 5 s.",
    ...extra,
  };
}

/** An exec approval waiting on the person (as the core keeps it), on GW in KEY's session. */
export function need(extra: Partial<NeedEntry> = {}): NeedEntry {
  const id = extra.id ?? "appr-1";
  return {
    gatewayId: GW,
    id,
    kind: "exec",
    sessionKey: KEY,
    agentId: "main",
    runId: "run-1",
    toolCallId: "call-1",
    command: "uname -s",
    cwd: "/srv/project",
    host: "gateway",
    title: null,
    description: null,
    questions: [],
    allowedDecisions: ["allow-once", "allow-always", "deny"],
    arrivedAt: T0,
    expiresAt: T0 + 30 * 60_000,
    linkPath: `/approve/${id}`,
    ...extra,
  };
}
