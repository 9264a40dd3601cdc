// Session rows from `sessions.list` / `sessions.subscribe` / `sessions.changed` (docs/gateway.md §5).
import type { RunStatus, SessionInfo, SessionKind } from "./model.ts";
import { stripInvisible } from "./strip.ts";

const STATUSES: ReadonlySet<string> = new Set<RunStatus>(["queued", "running", "done", "failed", "killed", "timeout"]);

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function text(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? stripInvisible(v).trim() : null;
}

export function sessionKind(key: string, row?: Record<string, unknown>): SessionKind {
  if (row && ((typeof row.spawnDepth === "number" && row.spawnDepth > 0) || typeof row.spawnedBy === "string")) return "subagent";
  const classified = row?.classification;
  if (classified === "main" || classified === "dashboard" || classified === "cron" || classified === "subagent") return classified;
  return kindOfKey(key);
}

/** The kind a session key alone suggests (`agent:<id>:dashboard:…` and so on). */
export function kindOfKey(key: string): SessionKind {
  const rest = key.startsWith("agent:") ? key.split(":").slice(2) : key.split(":");
  if (rest[0] === "main" && rest.length === 1) return "main";
  if (rest[0] === "dashboard") return "dashboard";
  if (rest[0] === "cron") return "cron";
  if (rest.includes("subagent")) return "subagent";
  return "other";
}

/** A readable stand-in for an untitled session: `dashboard:3f0c1a2b`, agent-prefixed unless main. */
export function shortKeyTitle(key: string): string {
  const m = /^agent:([^:]+):(.+)$/.exec(key);
  const agent = m?.[1] ?? null;
  const rest = (m?.[2] ?? key).replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "$1");
  return agent && agent !== "main" ? `${agent} · ${rest}` : rest;
}

/** The agent id a key names (`agent:<id>:…`), else null. */
export function agentIdOfKey(key: string): string | null {
  const m = /^agent:([a-z0-9][a-z0-9_-]{0,63}):/.exec(key);
  return m?.[1] ?? null;
}

export function parseSessionRow(value: unknown): SessionInfo | null {
  if (!value || typeof value !== "object") return null;
  const row = value as Record<string, unknown>;
  const key = typeof row.key === "string" && row.key !== "" ? row.key : null;
  if (!key) return null;
  const status = typeof row.status === "string" && STATUSES.has(row.status) ? (row.status as RunStatus) : null;
  const ids = Array.isArray(row.activeRunIds) ? row.activeRunIds.filter((x): x is string => typeof x === "string") : null;
  return {
    key,
    sessionId: typeof row.sessionId === "string" ? row.sessionId : null,
    agentId: text(row.agentId) ?? agentIdOfKey(key),
    title: text(row.label) ?? text(row.displayName) ?? text(row.derivedTitle) ?? shortKeyTitle(key),
    kind: sessionKind(key, row),
    parentKey: text(row.spawnedBy) ?? text(row.parentSessionKey),
    updatedAt: num(row.updatedAt),
    status,
    hasActiveRun: typeof row.hasActiveRun === "boolean" ? row.hasActiveRun : null,
    activeRunIds: ids,
    startedAt: num(row.startedAt),
    endedAt: num(row.endedAt),
  };
}

/**
 * Applies a `sessions.changed` payload without a full row to a known row. Fields the
 * event omits stay; `activeRunIds: null` means unknown; an array replaces (§5.3).
 */
export function mergeRunFields(base: SessionInfo, payload: Record<string, unknown>): SessionInfo {
  const next = { ...base };
  if (typeof payload.status === "string" && STATUSES.has(payload.status)) next.status = payload.status as RunStatus;
  if (typeof payload.hasActiveRun === "boolean") next.hasActiveRun = payload.hasActiveRun;
  if ("activeRunIds" in payload) {
    const ids = payload.activeRunIds;
    next.activeRunIds = Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : null;
    if (Array.isArray(ids) && typeof payload.hasActiveRun !== "boolean") next.hasActiveRun = ids.length > 0;
  }
  if (num(payload.startedAt) !== null) next.startedAt = num(payload.startedAt);
  if (num(payload.endedAt) !== null) next.endedAt = num(payload.endedAt);
  const title = text(payload.label) ?? text(payload.displayName) ?? text(payload.derivedTitle);
  if (title) next.title = title;
  return next;
}

export function sameSession(a: SessionInfo | undefined, b: SessionInfo): boolean {
  if (!a) return false;
  return (
    a.title === b.title &&
    a.status === b.status &&
    a.hasActiveRun === b.hasActiveRun &&
    a.startedAt === b.startedAt &&
    a.endedAt === b.endedAt &&
    a.updatedAt === b.updatedAt &&
    JSON.stringify(a.activeRunIds) === JSON.stringify(b.activeRunIds)
  );
}
