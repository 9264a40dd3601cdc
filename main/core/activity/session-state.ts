// What the tracker remembers of one session: its live and recently ended runs, the calls of
// the current (or last) run, the no-progress watch and flag, and the bookkeeping of its
// coalesced emits. A new run starts from empty lines; a finished one keeps them a while.
import type { ActivityGlyph, ActivityLine, StallFlag } from "../../../common/model.ts";
import { gatewaySessionKey } from "../../../common/keys.ts";
import { watchRun, type RunWatch } from "../stall-detector.ts";

/** Recently ended runs per session: their stragglers are ignored. */
const MAX_ENDED_RUNS = 8;

export type Call = {
  id: string;
  tool: string;
  glyph: ActivityGlyph;
  verb: string;
  /** The redacted, invisible-stripped argument summary, or null. */
  detail: string | null;
  command: boolean;
  at: number;
  status: ActivityLine["status"];
  fingerprint: string;
  /** Made from a `tool` event (no `item` seen for this call). */
  fromToolStream: boolean;
  /** Same calls just before this one, dropped from `calls` by its bound: they still count in its fold. */
  repeatsBefore: number;
};

export type Session = {
  gatewayId: string;
  sessionKey: string;
  parentKey: string | null;
  liveRuns: string[];
  endedRuns: string[];
  calls: Call[];
  open: Map<string, Call>;
  current: Call | null;
  watch: RunWatch | null;
  stall: StallFlag | null;
  endedAt: number | null;
  lastSeenAt: number;
  updatedAt: number;
  /** When markDirty last ran: a change this long ago or more starts a new burst. */
  lastChangeAt: number;
  dirty: boolean;
  lastEmitAt: number;
  cancel: (() => void) | null;
};

export function newSession(gatewayId: string, sessionKey: string, now: number): Session {
  return {
    gatewayId,
    sessionKey,
    parentKey: null,
    liveRuns: [],
    endedRuns: [],
    calls: [],
    open: new Map(),
    current: null,
    watch: null,
    stall: null,
    endedAt: null,
    lastSeenAt: now,
    updatedAt: now,
    lastChangeAt: Number.NEGATIVE_INFINITY,
    dirty: false,
    lastEmitAt: Number.NEGATIVE_INFINITY,
    cancel: null,
  };
}

/**
 * A run goes live. The first live run replaces the last run's lines and starts the stall
 * watch, as a sub-agent's when the session has a known parent or a sub-agent key.
 */
export function startRun(s: Session, runId: string, now: number, parents: ReadonlyMap<string, string>): void {
  if (s.liveRuns.length === 0) {
    s.calls = [];
    s.open.clear();
    s.current = null;
    s.endedAt = null;
    const parentKey = parents.get(gatewaySessionKey(s)) ?? null;
    const child = parentKey !== null || s.sessionKey.includes(":subagent:");
    s.parentKey = parentKey;
    s.watch = watchRun(now, child ? { parentKey } : null);
  }
  s.liveRuns.push(runId);
}

/** No run is live any more: open calls are done, `current` and the flag cleared, the lines kept. */
export function finishRuns(s: Session, now: number): void {
  for (const c of s.open.values()) if (c.status === "running" || c.status === "waiting") c.status = "done";
  s.open.clear();
  s.current = null;
  s.watch = null;
  s.stall = null;
  s.endedAt = now;
}

export function rememberEnded(s: Session, runId: string): void {
  if (s.endedRuns.includes(runId)) return;
  s.endedRuns.push(runId);
  if (s.endedRuns.length > MAX_ENDED_RUNS) s.endedRuns.shift();
}
