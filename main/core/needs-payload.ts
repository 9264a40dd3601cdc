// Reading the Gateway's approval and question payloads into needs-you entries
// (docs/gateway.md §10). What an agent or a Gateway sends is data: every field is checked
// for its type, anything else is left out, and nothing here interprets the text.
import { isObj, str, type Obj } from "./activity/payload.ts";
import type { NeedDecision, NeedEntry, NeedKind, NeedQuestion } from "../../common/model.ts";

const DECISIONS: readonly NeedDecision[] = ["allow-once", "allow-always", "deny"];
/** Bounds on what one entry keeps, whatever a Gateway sends. */
const MAX_TEXT = 64 * 1024;
const MAX_QUESTIONS = 20;
const MAX_OPTIONS = 20;

const time = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null);
const text = (v: unknown): string | null => {
  const s = str(v);
  return s === null ? null : s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s;
};

/** The Control UI page of an approval (`/approve/<id>`) or a question (`/ask/<id>`). */
export function needLinkPath(kind: NeedKind, id: string): string {
  return `${kind === "question" ? "/ask/" : "/approve/"}${encodeURIComponent(id)}`;
}

/** An entry with nothing known yet but its Gateway, id and kind: the builders fill in what a payload says. */
export function blankEntry(gatewayId: string, id: string, kind: NeedKind, now: number): NeedEntry {
  return {
    gatewayId,
    id,
    kind,
    sessionKey: null,
    agentId: null,
    runId: null,
    toolCallId: null,
    command: null,
    cwd: null,
    host: null,
    title: null,
    description: null,
    questions: [],
    allowedDecisions: [],
    arrivedAt: now,
    expiresAt: null,
    linkPath: needLinkPath(kind, id),
  };
}

/**
 * An `exec.approval.requested` / `plugin.approval.requested` payload, or one record of
 * `exec.approval.list` / `plugin.approval.list` (the same shape): `{id, request, createdAtMs, expiresAtMs}`.
 */
export function approvalEntry(gatewayId: string, kind: "exec" | "plugin", payload: unknown, now: number): NeedEntry | null {
  if (!isObj(payload)) return null;
  const id = str(payload.id);
  if (id === null) return null;
  const request: Obj = isObj(payload.request) ? payload.request : {};
  const entry = blankEntry(gatewayId, id, kind, time(payload.createdAtMs) ?? now);
  entry.expiresAt = time(payload.expiresAtMs);
  entry.sessionKey = text(request.sessionKey);
  entry.agentId = text(request.agentId);
  entry.runId = text(request.runId);
  entry.toolCallId = text(request.toolCallId);
  if (kind === "exec") {
    entry.command = text(request.command);
    entry.cwd = text(request.cwd);
    entry.host = text(request.host);
  } else {
    entry.title = text(request.title);
    entry.description = text(request.description);
  }
  const allowed = Array.isArray(request.allowedDecisions) ? request.allowedDecisions : ["allow-once", "deny"];
  entry.allowedDecisions = DECISIONS.filter((d) => allowed.includes(d));
  return entry;
}

function question(raw: unknown): NeedQuestion | null {
  if (!isObj(raw)) return null;
  const questionId = str(raw.questionId);
  const q = text(raw.question);
  if (questionId === null || q === null) return null;
  const options = (Array.isArray(raw.options) ? raw.options : [])
    .slice(0, MAX_OPTIONS)
    .filter(isObj)
    .map((o) => ({ label: text(o.label), description: text(o.description) }))
    .filter((o): o is { label: string; description: string | null } => o.label !== null);
  return {
    questionId,
    header: text(raw.header) ?? "",
    question: q,
    options,
    multiSelect: raw.multiSelect === true,
    isOther: raw.isOther === true,
  };
}

/** A `question.requested` payload or one record of `question.list`'s `questions`. */
export function questionEntry(gatewayId: string, payload: unknown, now: number): NeedEntry | null {
  if (!isObj(payload)) return null;
  const id = str(payload.id);
  if (id === null) return null;
  if (payload.status !== undefined && payload.status !== "pending") return null;
  const entry = blankEntry(gatewayId, id, "question", time(payload.createdAtMs) ?? now);
  entry.expiresAt = time(payload.expiresAtMs);
  entry.sessionKey = text(payload.sessionKey);
  entry.agentId = text(payload.agentId);
  entry.runId = text(payload.runId);
  entry.questions = (Array.isArray(payload.questions) ? payload.questions : [])
    .slice(0, MAX_QUESTIONS)
    .map(question)
    .filter((q): q is NeedQuestion => q !== null);
  return entry;
}

/** An `agent` lifecycle event: `waiting-approval` / `approval-resolved` with its approval id, or a run's end. */
export type LifecycleSignal =
  | {
      phase: "waiting-approval" | "approval-resolved";
      approvalId: string;
      sessionKey: string;
      runId: string;
      agentId: string | null;
      toolCallId: string | null;
    }
  | { phase: "run-ended"; sessionKey: string; runId: string };

export function lifecycleSignal(payload: unknown): LifecycleSignal | null {
  if (!isObj(payload) || payload.stream !== "lifecycle" || !isObj(payload.data)) return null;
  const sessionKey = str(payload.sessionKey);
  const runId = str(payload.runId);
  if (sessionKey === null || runId === null) return null;
  const phase = str(payload.data.phase);
  if (phase === "end" || phase === "error") return { phase: "run-ended", sessionKey, runId };
  if (phase !== "waiting-approval" && phase !== "approval-resolved") return null;
  const approvalId = str(payload.data.approvalId);
  if (approvalId === null) return null;
  return { phase, approvalId, sessionKey, runId, agentId: str(payload.agentId), toolCallId: str(payload.data.toolCallId) };
}

/** `*.approval.resolved`: `{id, decision, resolvedBy?}`; `question.resolved`: `{id, status}`. */
export type Resolution = { id: string; decision: NeedDecision | null; status: string | null; resolvedBy: string | null };

export function resolution(payload: unknown): Resolution | null {
  if (!isObj(payload)) return null;
  const id = str(payload.id);
  if (id === null) return null;
  const decision = DECISIONS.find((d) => d === payload.decision) ?? null;
  return { id, decision, status: str(payload.status) ?? str(payload.reason), resolvedBy: text(payload.resolvedBy) };
}
