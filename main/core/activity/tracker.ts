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
// This file is the tracker: sessions and their runs, the stall flag, coalesced emits and the
// session bound. Its parts beside it: options.ts (defaults, changes from Settings),
// session-state.ts (one session's runs and calls), calls.ts (events folded into calls),
// session-view.ts (labels and what a session shows), tool-labels.ts (glyph and verb per tool),
// redact-secrets.ts (the security rule every detail passes), fingerprint.ts ("same call" for the
// stall detector), payload.ts (reading an event's fields and details) and strip-lines.ts (the
// card's own writes left out, repeats folded with a count).

import type { SessionActivity, SessionInfo } from "../../../common/model.ts";
import { evaluateStall, noteCardChange, noteEvent, sameFlag } from "../stall-detector.ts";
import { gatewaySessionKey, isOnGateway } from "../../../common/keys.ts";
import { isObj, str } from "./payload.ts";
import { applyOptionChange, resolveOptions, type ActivityDisplayOptions, type ActivityOptions, type ActivitySettings } from "./options.ts";
import { finishRuns, newSession, rememberEnded, startRun, type Session } from "./session-state.ts";
import { applyApproval, applyItemEvent, applyToolEvent } from "./calls.ts";
import { emptyView, label, sessionView } from "./session-view.ts";

export type ActivityListener = (activity: SessionActivity) => void;

/** `noteSessionInfo` ends a run only if the run was quiet this long (a row can be older than events). */
const RECONCILE_QUIET_MS = 5_000;

export class ActivityTracker {
  private readonly opts: ActivitySettings;
  private readonly sessions = new Map<string, Session>();
  private readonly parents = new Map<string, string>();
  private readonly listeners = new Set<ActivityListener>();

  constructor(options: ActivityOptions) {
    this.opts = resolveOptions(options);
  }

  subscribe(listener: ActivityListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Display options changed (Settings): every session is emitted again under the new ones. */
  setOptions(options: ActivityDisplayOptions): void {
    applyOptionChange(this.opts, options);
    for (const s of this.sessions.values()) {
      if (s.watch?.lastCall) {
        const last = s.calls.at(-1);
        if (last && last.fingerprint === s.watch.lastCall.fingerprint) s.watch.lastCall.label = label(last, this.opts);
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
      startRun(s, runId, now, this.parents);
      changed = true;
    }
    if (s.watch) noteEvent(s.watch, now);
    if (stream === "item") changed = applyItemEvent(s, data, now, this.opts) || changed;
    else if (stream === "tool") changed = applyToolEvent(s, data, now, this.opts) || changed;
    else if (stream === "lifecycle" && (phase === "waiting-approval" || phase === "approval-resolved")) {
      changed = applyApproval(s, str(data.toolCallId), phase === "waiting-approval") || changed;
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
    return s ? sessionView(s, this.opts) : null;
  }

  list(): SessionActivity[] {
    return [...this.sessions.values()].map((s) => sessionView(s, this.opts));
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
    const s = newSession(gatewayId, sessionKey, now);
    this.sessions.set(gatewaySessionKey({ gatewayId, sessionKey }), s);
    return s;
  }

  private endRun(s: Session, runId: string, now: number): void {
    s.liveRuns = s.liveRuns.filter((r) => r !== runId);
    rememberEnded(s, runId);
    if (s.liveRuns.length === 0) this.finish(s, now);
    else this.markDirty(s);
  }

  /** No run is live any more: clear `current` and the flag, keep the lines for a while. */
  private finish(s: Session, now: number): void {
    finishRuns(s, now);
    this.markDirty(s);
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

  // --- output ---

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
    this.emit(sessionView(s, this.opts));
  }

  private emit(a: SessionActivity): void {
    for (const l of [...this.listeners]) l(a);
  }

  private drop(k: string, s: Session): void {
    s.cancel?.();
    s.cancel = null;
    this.sessions.delete(k);
    this.emit(emptyView(s, this.opts.now()));
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
