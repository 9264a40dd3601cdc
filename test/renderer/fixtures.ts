// Card entries and connection states for the renderer's pure modules.
import type { CardEntry, ConnectionState, ProgressCard, Step } from "../../main/core/types.ts";

export const GW = "home";
export const KEY = "agent:main:dashboard:3f0c";
export const T0 = new Date(2026, 8, 20, 14, 5, 0).getTime();

export function steps(...statuses: Step["status"][]): Step[] {
  return statuses.map((status, i) => ({ step: `Step ${i + 1}`, status }));
}

export function card(extra: Partial<ProgressCard> = {}): ProgressCard {
  return { sessionKey: KEY, revision: 1, updatedAt: T0, markdown: "Working on it", steps: steps("completed", "in_progress", "pending"), ...extra };
}

export function entry(extra: Partial<CardEntry> = {}): CardEntry {
  const c = extra.card === undefined ? card() : extra.card;
  const total = c?.steps.length ?? 0;
  const completed = c?.steps.filter((s) => s.status === "completed").length ?? 0;
  const current = c?.steps.find((s) => s.status === "in_progress")?.step ?? c?.steps.find((s) => s.status === "pending")?.step ?? null;
  return {
    gatewayId: GW,
    sessionKey: KEY,
    agentId: null,
    title: "Repair session owner",
    card: c,
    derived: c
      ? { completed, total, current: completed === total && total > 0 ? null : current, state: total === 0 ? "note" : completed === total ? "complete" : "active", outcome: null }
      : null,
    freshness: "live",
    confirmedAt: T0,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
    ...extra,
  };
}

/** The same slot after the Gateway confirmed a clear by a read at `at`. */
export function clearedByRead(at: number, extra: Partial<CardEntry> = {}): CardEntry {
  return entry({ card: null, derived: null, confirmedAt: at, ...extra });
}

export function connected(since: number, limited = false): ConnectionState {
  return { state: "connected", since, serverVersion: "2026.9.6", scopes: ["operator.read", "operator.write"], limited, advice: "Connected." };
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
