// What the agent is doing right now, per session, from the Gateway's broadcast `agent`
// events (docs/agent-events.md): whether a run is live, the current tool line and the last
// few lines, each a glyph and a short label (`Read · docs/guide.md`, `Shell · npm test`,
// `Web search · "electron tray"`), plus the no-progress flag (stall-detector.ts).
//
// Only labels: built from the tool name and the Gateway's short argument summary (`meta`),
// redacted, never from tool output, file contents or results. Bounded: a few lines per
// session, a capped number of sessions, and changes coalesced per session so a tool that
// emits ten updates a second costs a few emits a second. No timers of its own: the caller
// injects `now` and `schedule`, and calls `tick()` while `needsTick()` says so.
//
// This file is the tracker; its pure parts live in activity/: tool-labels.ts (glyph and verb
// per tool), redact-secrets.ts (the security rule every detail passes), fingerprint.ts
// ("same call" for the stall detector), payload.ts (reading an event's fields and details) and
// strip-lines.ts (the card's own writes left out, repeats folded with a count).

import { truncate } from "../../common/truncate.ts";
import type {
  ActivityGlyph,
  ActivityLine,
  ActivityMode,
  CommandText,
  SessionActivity,
  SessionInfo,
  StallFlag,
} from "../../common/model.ts";
import {
  DEFAULT_STALL_OPTIONS,
  evaluateStall,
  noteCall,
  noteCardChange,
  noteEvent,
  sameFlag,
  watchRun,
  type RunWatch,
  type StallOptions,
} from "./stall-detector.ts";
import { gatewaySessionKey, isOnGateway } from "../../common/keys.ts";
import { kindOf, type ToolKind } from "./activity/tool-labels.ts";
import { argsFingerprint, summaryFingerprint } from "./activity/fingerprint.ts";
import { cleanDetail, detailFromArgs, isObj, str, type Obj } from "./activity/payload.ts";
import { foldRepeats, leftOffStrip } from "./activity/strip-lines.ts";

export type { StallOptions } from "./stall-detector.ts";

export type ActivityOptions = {
  now: () => number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  schedule: (fn: () => void, ms: number) => () => void;
  /** Default `all`. */
  mode?: ActivityMode;
  /** Default `raw`. */
  commandText?: CommandText;
  /** Lines kept per session (default 8, at most 50). */
  maxLines?: number;
  /** Characters per label (default 120, the progress-draft budget). */
  lineBudget?: number;
  /**
   * Within a burst, at most one emit per session per this interval after the previous one (default 250 ms);
   * the last state is always delivered.
   */
  minIntervalMs?: number;
  /** A change after this long without changes starts a burst and is emitted at once (default 125 ms). */
  burstGapMs?: number;
  /** How long the last run's lines stay after it ended (default 5 min, checked by `tick()`). */
  retainAfterEndMs?: number;
  /** Sessions tracked at once (default 500); the longest-idle finished session is dropped first. */
  maxSessions?: number;
  stall?: Partial<StallOptions>;
};

export type ActivityListener = (activity: SessionActivity) => void;

export const ACTIVITY_DEFAULTS = {
  mode: "all" as ActivityMode,
  commandText: "raw" as CommandText,
  maxLines: 8,
  lineBudget: 120,
  minIntervalMs: 250,
  burstGapMs: 125,
  retainAfterEndMs: 5 * 60_000,
  maxSessions: 500,
};

const MAX_LINES_LIMIT = 50;
/** Raw calls kept per session: enough for `new` mode to fill its lines after skipping repeats. */
const STORED_PER_LINE = 4;
/** Calls of the live run remembered by id (to apply their update/end). */
const MAX_OPEN_CALLS = 64;
/** Recently ended runs per session: their stragglers are ignored. */
const MAX_ENDED_RUNS = 8;
/** `noteSessionInfo` ends a run only if the run was quiet this long (a row can be older than events). */
const RECONCILE_QUIET_MS = 5_000;

type Call = {
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

type Session = {
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

export class ActivityTracker {
  private readonly opts: Required<Omit<ActivityOptions, "stall">> & { stall: StallOptions };
  private readonly sessions = new Map<string, Session>();
  private readonly parents = new Map<string, string>();
  private readonly listeners = new Set<ActivityListener>();

  constructor(options: ActivityOptions) {
    this.opts = {
      ...ACTIVITY_DEFAULTS,
      ...definedOnly(options),
      stall: { ...DEFAULT_STALL_OPTIONS, ...definedOnly(options.stall ?? {}) },
    } as Required<Omit<ActivityOptions, "stall">> & { stall: StallOptions };
    this.opts.maxLines = clampLines(this.opts.maxLines);
  }

  subscribe(listener: ActivityListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Display options changed (Settings): every session is emitted again under the new ones. */
  setOptions(options: Partial<Omit<ActivityOptions, "now" | "schedule">>): void {
    const { stall, ...rest } = options;
    Object.assign(this.opts, definedOnly(rest));
    if (stall) this.opts.stall = { ...this.opts.stall, ...definedOnly(stall) };
    this.opts.maxLines = clampLines(this.opts.maxLines);
    for (const s of this.sessions.values()) {
      if (s.watch?.lastCall) {
        const last = s.calls.at(-1);
        if (last && last.fingerprint === s.watch.lastCall.fingerprint) s.watch.lastCall.label = this.label(last);
      }
      this.evaluate(s);
      this.markDirty(s);
    }
  }

  /** Feeds one `agent` event payload (any stream; unknown ones count as signs of life). */
  handleAgentEvent(gatewayId: string, payload: unknown): void {
    if (!isObj(payload)) return;
    const sessionKey = str(payload.sessionKey);
    const runId = str(payload.runId);
    const stream = str(payload.stream);
    if (sessionKey === null || runId === null || stream === null) return;
    const data = isObj(payload.data) ? payload.data : {};
    const now = this.opts.now();
    const spawnedBy = str(payload.spawnedBy);
    if (spawnedBy !== null) this.parents.set(gatewaySessionKey({ gatewayId, sessionKey }), spawnedBy);

    const existing = this.sessions.get(gatewaySessionKey({ gatewayId, sessionKey }));
    if (existing?.endedRuns.includes(runId)) return; // a straggler of a finished run
    const phase = str(data.phase);
    const ending = stream === "lifecycle" && (phase === "end" || phase === "error");
    if (ending && !existing?.liveRuns.includes(runId)) {
      // The end of a run never seen live: remember it so its stragglers stay out.
      if (existing) rememberEnded(existing, runId);
      return;
    }
    const s = existing ?? this.create(gatewayId, sessionKey, now);
    s.lastSeenAt = now;
    if (ending) {
      this.endRun(s, runId, now);
      return;
    }
    let changed = false;
    if (!s.liveRuns.includes(runId)) {
      this.startRun(s, runId, now);
      changed = true;
    }
    if (s.watch) noteEvent(s.watch, now);
    if (stream === "item") changed = this.onItem(s, data, now) || changed;
    else if (stream === "tool") changed = this.onTool(s, data, now) || changed;
    else if (stream === "lifecycle" && (phase === "waiting-approval" || phase === "approval-resolved")) {
      changed = this.onApproval(s, str(data.toolCallId), phase === "waiting-approval") || changed;
    }
    // Everything else (lifecycle, run_status, usage, assistant, plan, command_output) is only
    // a sign of life: its content, output included, is never read.
    if (this.evaluate(s)) changed = true;
    if (changed) this.markDirty(s);
  }

  /** The session's card changed (`progressCard.changed`): progress, for the stall detector. */
  noteCardChange(gatewayId: string, sessionKey: string): void {
    const s = this.sessions.get(gatewaySessionKey({ gatewayId, sessionKey }));
    if (!s?.watch) return;
    noteCardChange(s.watch, this.opts.now());
    if (this.evaluate(s)) this.markDirty(s);
  }

  /**
   * A session row from the Gateway (`sessions.list`/`sessions.changed`): its parent marks a
   * sub-agent; `hasActiveRun: false` ends a run whose end event was missed (a reconnect), but
   * only once that run has been quiet a few seconds, since a row can be older than events.
   */
  noteSessionInfo(gatewayId: string, info: Pick<SessionInfo, "key" | "parentKey" | "hasActiveRun">): void {
    const k = gatewaySessionKey({ gatewayId, sessionKey: info.key });
    if (info.parentKey) this.parents.set(k, info.parentKey);
    const s = this.sessions.get(k);
    if (!s || info.hasActiveRun !== false || s.liveRuns.length === 0) return;
    const now = this.opts.now();
    if (s.watch && now - s.watch.lastEventAt < RECONCILE_QUIET_MS) return;
    // Not remembered as ended: if events for it do come, the run shows again.
    s.liveRuns.length = 0;
    this.finish(s, now);
  }

  /** The connection to this Gateway is gone: nothing there is known to be live any more. */
  resetGateway(gatewayId: string): void {
    const now = this.opts.now();
    for (const s of this.sessions.values()) {
      if (s.gatewayId !== gatewayId || s.liveRuns.length === 0) continue;
      s.liveRuns.length = 0;
      this.finish(s, now);
    }
  }

  /** Drops a session (deleted) or every session of a Gateway (removed), emitting them empty. */
  forget(gatewayId: string, sessionKey?: string): void {
    for (const [k, s] of [...this.sessions]) {
      if (s.gatewayId !== gatewayId || (sessionKey !== undefined && s.sessionKey !== sessionKey)) continue;
      this.drop(k, s);
    }
    for (const k of [...this.parents.keys()]) {
      if (isOnGateway(k, gatewayId) && (sessionKey === undefined || k === gatewaySessionKey({ gatewayId, sessionKey })))
        this.parents.delete(k);
    }
  }

  /**
   * Re-evaluates time-based flags (silent, idle-child, their minute counts) and drops the
   * lines of runs that ended over `retainAfterEndMs` ago. Call every ~30 s while `needsTick()`.
   */
  tick(): void {
    const now = this.opts.now();
    for (const [k, s] of [...this.sessions]) {
      if (s.liveRuns.length === 0) {
        if (now - (s.endedAt ?? s.lastSeenAt) >= this.opts.retainAfterEndMs) this.drop(k, s);
        continue;
      }
      if (this.evaluate(s)) this.markDirty(s);
    }
  }

  /** Something is live or retained, so `tick()` has work to do. */
  needsTick(): boolean {
    return this.sessions.size > 0;
  }

  get(gatewayId: string, sessionKey: string): SessionActivity | null {
    const s = this.sessions.get(gatewaySessionKey({ gatewayId, sessionKey }));
    return s ? this.snapshot(s) : null;
  }

  list(): SessionActivity[] {
    return [...this.sessions.values()].map((s) => this.snapshot(s));
  }

  dispose(): void {
    for (const s of this.sessions.values()) s.cancel?.();
    this.sessions.clear();
    this.parents.clear();
    this.listeners.clear();
  }

  // --- runs ---

  private create(gatewayId: string, sessionKey: string, now: number): Session {
    if (this.sessions.size >= this.opts.maxSessions) this.evictOne();
    const s: Session = {
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
    this.sessions.set(gatewaySessionKey({ gatewayId, sessionKey }), s);
    return s;
  }

  private startRun(s: Session, runId: string, now: number): void {
    if (s.liveRuns.length === 0) {
      // A new run replaces the last run's lines.
      s.calls = [];
      s.open.clear();
      s.current = null;
      s.endedAt = null;
      const parentKey = this.parents.get(gatewaySessionKey(s)) ?? null;
      const child = parentKey !== null || s.sessionKey.includes(":subagent:");
      s.parentKey = parentKey;
      s.watch = watchRun(now, child ? { parentKey } : null);
    }
    s.liveRuns.push(runId);
  }

  private endRun(s: Session, runId: string, now: number): void {
    s.liveRuns = s.liveRuns.filter((r) => r !== runId);
    rememberEnded(s, runId);
    if (s.liveRuns.length === 0) this.finish(s, now);
    else this.markDirty(s);
  }

  /** No run is live any more: clear `current` and the flag, keep the lines for a while. */
  private finish(s: Session, now: number): void {
    for (const c of s.open.values()) if (c.status === "running" || c.status === "waiting") c.status = "done";
    s.open.clear();
    s.current = null;
    s.watch = null;
    s.stall = null;
    s.endedAt = now;
    this.markDirty(s);
  }

  // --- calls ---

  private onItem(s: Session, data: Obj, now: number): boolean {
    const tool = str(data.name);
    if (tool === null) return false;
    if (leftOffStrip(tool)) return this.onCardWrite(s, now);
    const id = str(data.toolCallId) ?? str(data.itemId) ?? `${tool}#${s.calls.length}`;
    const phase = str(data.phase);
    const kind = kindOf(tool);
    const detail = kind.noDetail ? null : cleanDetail(data.meta, kind.lead);
    const command = kind.command === true || data.commandBearing === true;
    let call = s.open.get(id);
    let changed = false;
    if (!call) {
      const source = str(data.meta) ?? (kind.noDetail ? "" : (str(data.title) ?? ""));
      call = this.addCall(s, {
        id,
        tool,
        kind,
        detail,
        command,
        now,
        fingerprint: summaryFingerprint(tool, source),
        fromToolStream: false,
      });
      changed = true;
    } else if (call.fromToolStream || (detail !== null && detail !== call.detail)) {
      // The Gateway's own summary replaces a line made from arguments, or a revised one.
      call.detail = detail ?? call.detail;
      call.fromToolStream = false;
      changed = true;
    }
    if (phase === "end") {
      const status = str(data.status);
      const next = status === "failed" || status === "error" || status === "cancelled" || status === "blocked" ? "failed" : "done";
      if (call.status !== next) {
        call.status = next;
        changed = true;
      }
      s.open.delete(id);
    }
    return changed;
  }

  /** Y7: a call waiting for the person's approval says so, not "running", until the approval is resolved. */
  private onApproval(s: Session, toolCallId: string | null, waiting: boolean): boolean {
    const call = toolCallId === null ? null : (s.open.get(toolCallId) ?? null);
    if (!call) return false;
    const next = waiting ? "waiting" : "running";
    if (call.status === next || (!waiting && call.status !== "waiting")) return false;
    call.status = next;
    return true;
  }

  /** The agent writes its card: progress for the stall detector, and no line (the card shows it). */
  private onCardWrite(s: Session, now: number): boolean {
    if (s.watch) noteCardChange(s.watch, now);
    return false;
  }

  /** `tool` events reach only the run's own client with `tool-events`; used only when no `item` came. */
  private onTool(s: Session, data: Obj, now: number): boolean {
    const tool = str(data.name);
    const id = str(data.toolCallId);
    if (tool === null || id === null) return false;
    if (leftOffStrip(tool)) return this.onCardWrite(s, now);
    const phase = str(data.phase);
    const existing = s.open.get(id) ?? s.calls.find((c) => c.id === id);
    if (phase === "start" && !existing) {
      const kind = kindOf(tool);
      const command = kind.command === true || data.commandBearing === true;
      this.addCall(s, {
        id,
        tool,
        kind,
        detail: detailFromArgs(tool, data.args),
        command,
        now,
        fingerprint: argsFingerprint(tool, data.args),
        fromToolStream: true,
      });
      return true;
    }
    if (phase === "result" && existing?.fromToolStream) {
      existing.status = data.isError === true ? "failed" : "done";
      s.open.delete(id);
      return true;
    }
    return false;
  }

  private addCall(
    s: Session,
    c: {
      id: string;
      tool: string;
      kind: ToolKind;
      detail: string | null;
      command: boolean;
      now: number;
      fingerprint: string;
      fromToolStream: boolean;
    },
  ): Call {
    const call: Call = {
      id: c.id,
      tool: c.tool,
      glyph: c.kind.glyph,
      verb: c.kind.verb,
      detail: c.detail,
      command: c.command,
      at: c.now,
      status: "running",
      fingerprint: c.fingerprint,
      fromToolStream: c.fromToolStream,
      repeatsBefore: 0,
    };
    s.calls.push(call);
    const keep = this.opts.maxLines * STORED_PER_LINE;
    if (s.calls.length > keep) carryRepeats(s.calls.splice(0, s.calls.length - keep), s.calls);
    s.open.set(call.id, call);
    if (s.open.size > MAX_OPEN_CALLS) {
      const oldestOpen = s.open.keys().next();
      if (!oldestOpen.done) s.open.delete(oldestOpen.value);
    }
    s.current = call;
    if (s.watch)
      noteCall(
        s.watch,
        { fingerprint: call.fingerprint, tool: call.tool, verb: call.verb, label: this.label(call), shell: call.command },
        c.now,
      );
    return call;
  }

  // --- output ---

  private label(c: Call): string {
    const showDetail = c.detail !== null && !(c.command && this.opts.commandText === "status");
    return truncate(showDetail ? `${c.verb} · ${c.detail}` : c.verb, this.opts.lineBudget);
  }

  private line(c: Call): ActivityLine {
    return { glyph: c.glyph, label: this.label(c), tool: c.tool, at: c.at, status: c.status };
  }

  private snapshot(s: Session): SessionActivity {
    const { mode, maxLines } = this.opts;
    let lines: ActivityLine[] = [];
    let current = s.current ? this.line(s.current) : null;
    if (mode === "new") {
      lines = s.calls.filter((c, i) => i === 0 || s.calls[i - 1]?.tool !== c.tool).map((c) => this.line(c));
    } else if (mode === "all") {
      // Folded before the bound, so a folded line counts as one of `maxLines`.
      lines = foldRepeats(s.calls.map((c) => ({ ...this.line(c), count: 1 + c.repeatsBefore })));
      // The newest call is the last line's newest call: the current line carries its count.
      if (s.current && s.current === s.calls.at(-1)) current = lines.at(-1) ?? current;
    }
    lines = lines.slice(-maxLines);
    const live = s.liveRuns.length > 0;
    return {
      gatewayId: s.gatewayId,
      sessionKey: s.sessionKey,
      live,
      runId: s.liveRuns.at(-1) ?? null,
      current: live && mode !== "off" ? current : null,
      lines,
      stall: s.stall,
      updatedAt: s.updatedAt,
    };
  }

  /** Recomputes the flag; true when it changed. */
  private evaluate(s: Session): boolean {
    // A run waiting for the person's approval is not stalled, however long it waits.
    const waiting = [...s.open.values()].some((c) => c.status === "waiting");
    const next = s.watch && !waiting ? evaluateStall(s.watch, this.opts.now(), this.opts.stall) : null;
    if (sameFlag(next, s.stall)) return false;
    s.stall = next;
    return true;
  }

  /**
   * Coalescing, leading edge + trailing last state. A change after a quiet gap (`burstGapMs`) is the first
   * of a burst and emits on the next turn, even when the previous burst's trailing emit is still pending
   * (that emit is folded into this one). Later changes of the burst emit at most once per `minIntervalMs`
   * after the previous emit, and the last state always goes out. So a new tool call after the previous
   * call's end is drawn at once, while a tool that changes ten times a second costs four emits a second.
   */
  private markDirty(s: Session): void {
    const now = this.opts.now();
    const leading = now - s.lastChangeAt >= this.opts.burstGapMs;
    s.lastChangeAt = now;
    s.updatedAt = now;
    s.dirty = true;
    if (leading) s.cancel?.();
    else if (s.cancel) return;
    const wait = leading ? 0 : Math.max(0, s.lastEmitAt + this.opts.minIntervalMs - now);
    s.cancel = this.opts.schedule(() => {
      s.cancel = null;
      this.flush(s);
    }, wait);
  }

  private flush(s: Session): void {
    if (!s.dirty || this.sessions.get(gatewaySessionKey(s)) !== s) return;
    s.dirty = false;
    s.lastEmitAt = this.opts.now();
    this.emit(this.snapshot(s));
  }

  private emit(a: SessionActivity): void {
    for (const l of [...this.listeners]) l(a);
  }

  private drop(k: string, s: Session): void {
    s.cancel?.();
    s.cancel = null;
    this.sessions.delete(k);
    this.emit({
      gatewayId: s.gatewayId,
      sessionKey: s.sessionKey,
      live: false,
      runId: null,
      current: null,
      lines: [],
      stall: null,
      updatedAt: this.opts.now(),
    });
  }

  private evictOne(): void {
    let oldest: [string, Session] | null = null;
    for (const entry of this.sessions) {
      const s = entry[1];
      if (s.liveRuns.length > 0) continue;
      if (!oldest || s.lastSeenAt < oldest[1].lastSeenAt) oldest = entry;
    }
    // All live: drop the longest-quiet one anyway, the bound holds.
    if (!oldest) for (const entry of this.sessions) if (!oldest || entry[1].lastSeenAt < oldest[1].lastSeenAt) oldest = entry;
    if (oldest) this.drop(oldest[0], oldest[1]);
  }
}

function rememberEnded(s: Session, runId: string): void {
  if (s.endedRuns.includes(runId)) return;
  s.endedRuns.push(runId);
  if (s.endedRuns.length > MAX_ENDED_RUNS) s.endedRuns.shift();
}

/** The calls dropped by the bound hand their count to the first kept call when they were the same call. */
function carryRepeats(dropped: readonly Call[], kept: readonly Call[]): void {
  const first = kept[0];
  if (!first) return;
  for (const d of [...dropped].reverse()) {
    if (d.tool !== first.tool || d.detail !== first.detail || d.verb !== first.verb) return;
    first.repeatsBefore += 1 + d.repeatsBefore;
  }
}

function clampLines(n: number): number {
  return Math.min(MAX_LINES_LIMIT, Math.max(1, Math.floor(Number.isFinite(n) ? n : ACTIVITY_DEFAULTS.maxLines)));
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
