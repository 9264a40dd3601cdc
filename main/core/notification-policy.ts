// Desktop notifications from confirmed card changes (N1–N6): milestones, not noise.
// Pure: the shell feeds every DeskChange "card" entry to observe() and delivers what comes
// out; time, timers, focus, labels and settings are injected.
//
// Rules chosen where the spec leaves room:
// - A card is keyed by gatewayId + sessionKey + agentId; what the policy last knew of it
//   survives reconnects, so offline → live with the same card is nothing. Freshness,
//   errors and hidden entries never make a milestone; an entry older (updatedAt) than the
//   card already known is ignored (C4: never go back).
// - Baseline: a card seen for the first time is `newCard` only if it was written
//   (updatedAt) at or after the policy started; a card reappearing after a clear is new
//   only if it is not the cleared one again. A lower revision with a later updatedAt is a
//   reset (C4) and so a new card too. A new card that is already complete or already
//   stopped says so (the stronger milestone wins).
// - One notice names the strongest milestone that is *still true* of the card's latest
//   state (a pause followed by a resume is dropped, a "Started" whose card was cleared
//   too). Completed or stopped work cleared by someone else is still told.
// - Per session, one notice per interval; a card cleared and started again inside the
//   window is another card and queues behind (at most two per session, intermediate ones
//   dropped). Globally, beyond the cap everything waits for a free slot and goes out as
//   one summary. Duplicates: the same kind for the same revision and update time (or the
//   same failed refresh attempt) is never told twice, even if a state flips back and forth.
// - Own actions: for ownActionGraceMs after noteOwnAction(), that card's milestones are
//   silent, and anything already queued for it is dropped (the person has just seen it).
//   A failed refresh is the exception: it is the answer to the click, so it is still told
//   unless the card is visible in a focused window (N3 decides, as for any milestone).
// - N3 is checked when a milestone happens and again when a queued notice goes out; a
//   card seen in a focused window also drops what was queued for it.
// - Quiet hours [start, end) in local time, wrapping midnight; start = end means none.
//   Held milestones go out as one summary when they end (timer, re-checked on fire), or
//   on the next card change if quiet hours were switched off meanwhile. Away: held until
//   back(); ≥ awayThresholdMs gives one "While you were away" summary, a shorter absence
//   releases them through the normal throttle (or as the quiet-hours summary if quiet
//   hours ended meanwhile). Back during quiet hours waits for their end.
// - Settings are read at every step: switching a milestone (or all) off also silences
//   what is already queued.
// - Text (N5): title = session title, "Label · " first when there are several Gateways;
//   body = milestone · count · current or next step · first readable note line. Never
//   error messages or anything else from the wire.
// - No progress: observeActivity() feeds each session's stall flag (stall-detector.ts). A
//   flag appearing (none → flag, or another kind) is a `noProgress` milestone for the slot
//   {gatewayId, sessionKey, agentId: null}, once per episode (the same kind persisting is
//   nothing; cleared and raised again is a new episode). It takes the same path as the
//   others (switches, throttle, hold, N3) and is still true only while a flag is up, so a
//   queued one is dropped when the flag clears. Own actions do not silence a new flag (it
//   is not their answer). Title as above, or the short session key when no card was ever
//   seen; body = "No progress · " + the flag's text (a label, never tool output).
import type { CardRef, Milestone, Settings } from "../../preload/contract.ts";
import type { SessionActivity, StallFlag } from "./activity.ts";
import { stepDuration } from "./card-timing.ts";
import { humanDuration } from "./duration.ts";
import { noteLine } from "./glance.ts";
import { shortKeyTitle } from "./sessions.ts";
import { stripInvisible } from "./strip.ts";
import { truncate } from "./truncate.ts";
import type { CardDerived, CardEntry, ProgressCard, RefreshState, RunOutcome } from "./types.ts";

export type NoticeKind = Milestone | "summary";
export type Notice = {
  /** Unique, stable per delivered notice. */
  id: string;
  kind: NoticeKind;
  title: string;
  body: string;
  /** Which card a click opens (N4); null for a summary of several cards. */
  card: CardRef | null;
};
export type NotificationSettings = Settings["notifications"];
export type PolicyOptions = {
  now: () => number;
  schedule: (fn: () => void, ms: number) => () => void;
  deliver: (notice: Notice) => void;
  settings: () => NotificationSettings;
  /** N3: true when this card is visible in a focused window (popover or dashboard focused). */
  isVisibleInFocusedWindow?: (ref: CardRef) => boolean;
  /** Gateway label for a Gateway id, and how many Gateways there are (labels only when > 1). */
  gatewayLabel?: (gatewayId: string) => string | null;
  gatewayCount?: () => number;
  /** Local time-of-day in minutes since midnight for quiet hours; default from `now()` in the local zone. */
  minutesOfDay?: (ms: number) => number;
  perSessionIntervalMs?: number;
  globalWindowMs?: number;
  globalMaxPerWindow?: number;
  awayThresholdMs?: number;
  ownActionGraceMs?: number;
};

export const TITLE_BUDGET = 48;
export const BODY_BUDGET = 120;
const SUMMARY_TITLE = "Progress Desk";

/** Strongest first: of the milestones coalesced into one notice, the first still true names it. */
const STRENGTH: readonly Milestone[] = ["allCompleted", "pausedOrBlocked", "noProgress", "refreshFailed", "stepCompleted", "newCard"];
const DAY_MINUTES = 24 * 60;
/** Generations of one card kept waiting per session (now and latest) and while held or capped. */
const SESSION_CAP = 2;
const HELD_CAP = 50;
const SEEN_CAP = 64;

type Known = {
  /** Last confirmed card; null before the first or after a confirmed clear. */
  card: ProgressCard | null;
  derived: CardDerived | null;
  /** The last card ever seen, to tell a reappearing card from a new one. */
  last: ProgressCard | null;
  refreshFail: string | null;
  /** The latest entry accepted for this card (title and ref of a no-progress notice). */
  entry: CardEntry | null;
  /** Bumped for every new card: a new card after a clear is another notice. */
  gen: number;
  seen: string[];
};

/** Milestones waiting to be told about one generation of one card. */
type Pending = {
  key: string;
  gen: number;
  kinds: Set<Milestone>;
  updates: number;
  /** Completed steps before the first of these milestones (for "3 steps completed"). */
  fromCompleted: number;
  /** The latest state with a card. */
  entry: CardEntry;
  /** The card was cleared since: only final outcomes are still worth telling. */
  cleared: boolean;
};

/** A session's stall flag that is up now: its kind (a new kind is a new episode) and latest text. */
type Stall = { kind: StallFlag["kind"]; text: string };

type SessionQueue = { lastSentAt: number | null; pending: Pending[]; cancel: (() => void) | null };
type Reason = "away" | "quiet";

export class NotificationPolicy {
  private readonly opts: PolicyOptions;
  private readonly createdAt: number;
  private readonly known = new Map<string, Known>();
  private readonly sessions = new Map<string, SessionQueue>();
  private readonly ownUntil = new Map<string, number>();
  private readonly stalls = new Map<string, Stall>();
  private readonly timers = new Set<{ cancel: () => void }>();
  private held: Pending[] = [];
  private heldInQuiet = false;
  private quietCancel: (() => void) | null = null;
  private overflow: Pending[] = [];
  private overflowCancel: (() => void) | null = null;
  private sent: number[] = [];
  private awaySince: number | null = null;
  private seq = 0;
  private disposed = false;

  constructor(opts: PolicyOptions) {
    this.opts = opts;
    this.createdAt = opts.now();
  }

  observe(entry: CardEntry): void {
    if (this.disposed || entry.hidden) return;
    if (this.held.length > 0 && !this.holding()) this.flushHeld(this.heldInQuiet ? "quiet" : "away");

    const key = cardKey(entry);
    let known = this.known.get(key);
    if (!known) {
      known = { card: null, derived: null, last: null, refreshFail: null, entry: null, gen: 0, seen: [] };
      this.known.set(key, known);
    }
    const kinds = detect(known, entry, this.createdAt);
    if (kinds === null) return;
    known.entry = entry;

    const fromCompleted = kinds.includes("newCard") ? 0 : (known.derived?.completed ?? 0);
    const cleared = entry.card === null && entry.error === null && !entry.updateRequired;
    if (entry.card && entry.derived) {
      known.card = known.last = entry.card;
      known.derived = entry.derived;
    } else if (cleared) {
      known.card = null;
      known.derived = null;
    }
    known.refreshFail = refreshFailure(entry.refresh);
    if (kinds.includes("newCard")) known.gen += 1;
    this.updateQueued(key, known.gen, entry, cleared);

    const settings = this.opts.settings();
    if (!settings.enabled) return;
    const now = this.opts.now();
    const own = (this.ownUntil.get(key) ?? -Infinity) > now;
    if (!own) this.ownUntil.delete(key);
    const accepted = kinds.filter((k) => settings.milestones[k] && !known.seen.includes(dedupeKey(k, entry)) && (!own || k === "refreshFailed"));
    if (accepted.length === 0) return;
    for (const k of accepted) known.seen.push(dedupeKey(k, entry));
    known.seen.splice(0, Math.max(0, known.seen.length - SEEN_CAP));

    if (this.isVisible(entry)) {
      this.forget(key); // N3: seen now, so neither told nor held
      return;
    }
    const pending: Pending = { key, gen: known.gen, kinds: new Set(accepted), updates: 1, fromCompleted, entry, cleared: false };
    if (this.holding()) this.hold([pending]);
    else this.throttle(pending);
  }

  /** A session's activity (stall-detector flag); a flag that appears is a `noProgress` milestone. */
  observeActivity(activity: SessionActivity): void {
    if (this.disposed) return;
    if (this.held.length > 0 && !this.holding()) this.flushHeld(this.heldInQuiet ? "quiet" : "away");

    const ref: CardRef = { gatewayId: activity.gatewayId, sessionKey: activity.sessionKey, agentId: null };
    const key = cardKey(ref);
    const flag = activity.stall;
    const before = this.stalls.get(key);
    if (!flag) {
      this.stalls.delete(key); // what is queued for it no longer holds (stillTrue)
      return;
    }
    const text = oneLine(flag.text);
    this.stalls.set(key, { kind: flag.kind, text });
    if (before?.kind === flag.kind) return; // the same episode: only its text moves on

    const settings = this.opts.settings();
    if (!settings.enabled || !settings.milestones.noProgress) return;
    const known = this.known.get(key);
    const entry = known?.entry ?? stallEntry(ref);
    if (this.isVisible(entry)) {
      this.forget(key); // N3
      return;
    }
    const pending: Pending = {
      key,
      gen: known?.gen ?? 0,
      kinds: new Set<Milestone>(["noProgress"]),
      updates: 1,
      fromCompleted: known?.derived?.completed ?? 0,
      entry,
      cleared: false,
    };
    if (this.holding()) this.hold([pending]);
    else this.throttle(pending);
  }

  noteOwnAction(ref: CardRef): void {
    if (this.disposed) return;
    const key = cardKey(ref);
    this.ownUntil.set(key, this.opts.now() + (this.opts.ownActionGraceMs ?? 10_000));
    this.forget(key);
  }

  away(): void {
    if (this.disposed || this.awaySince !== null) return;
    this.awaySince = this.opts.now();
  }

  back(): void {
    if (this.disposed || this.awaySince === null) return;
    const awayFor = this.opts.now() - this.awaySince;
    this.awaySince = null;
    if (this.quietNow()) {
      if (this.held.length > 0) {
        this.heldInQuiet = true;
        this.scheduleQuietEnd();
      }
      return;
    }
    if (awayFor >= (this.opts.awayThresholdMs ?? 5 * 60_000)) this.flushHeld("away");
    else if (this.heldInQuiet) this.flushHeld("quiet");
    else for (const p of this.held.splice(0)) this.throttle(p);
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.sessions.clear();
    this.held = [];
    this.overflow = [];
    this.stalls.clear();
    this.quietCancel = this.overflowCancel = null;
  }

  // ——— per session ———

  private throttle(p: Pending): void {
    const interval = this.opts.perSessionIntervalMs ?? 60_000;
    const now = this.opts.now();
    let q = this.sessions.get(p.key);
    if (!q) {
      q = { lastSentAt: null, pending: [], cancel: null };
      this.sessions.set(p.key, q);
    }
    if (q.pending.length === 0 && (q.lastSentAt === null || now - q.lastSentAt >= interval)) {
      if (this.dispatch([p], null)) q.lastSentAt = now;
      return;
    }
    merge(q.pending, p, SESSION_CAP);
    q.cancel ??= this.later((q.lastSentAt ?? now) + interval - now, () => this.flushSession(p.key));
  }

  private flushSession(key: string): void {
    const q = this.sessions.get(key);
    if (!q) return;
    q.cancel = null;
    // A notice that no longer holds (resumed, switched off, in view) does not use the slot.
    for (let next = q.pending.shift(); next; next = q.pending.shift()) {
      if (!this.dispatch([next], null)) continue;
      q.lastSentAt = this.opts.now();
      if (q.pending.length > 0) q.cancel = this.later(this.opts.perSessionIntervalMs ?? 60_000, () => this.flushSession(key));
      return;
    }
  }

  // ——— overall: hold, cap, deliver ———

  /** Sends one notice for `items`, or holds them, or adds them to the capped summary; false when nothing is left to tell. */
  private dispatch(items: Pending[], reason: Reason | null): boolean {
    if (!this.opts.settings().enabled) return false;
    if (this.holding()) {
      this.hold(items);
      return true;
    }
    const live = items.filter((p) => this.strongest(p) !== null && !this.isVisible(p.entry));
    if (live.length === 0) return false;
    if (this.overflow.length === 0 && this.hasRoom()) {
      this.send(this.compose(live, reason));
      return true;
    }
    for (const p of live) merge(this.overflow, p, HELD_CAP);
    if (!this.overflowCancel) {
      const max = this.opts.globalMaxPerWindow ?? 3;
      const freeAt = (this.sent[this.sent.length - max] ?? this.opts.now()) + (this.opts.globalWindowMs ?? 60_000);
      this.overflowCancel = this.later(freeAt - this.opts.now(), () => {
        this.overflowCancel = null;
        this.dispatch(this.overflow.splice(0), null);
      });
    }
    return true;
  }

  private hasRoom(): boolean {
    const since = this.opts.now() - (this.opts.globalWindowMs ?? 60_000);
    this.sent = this.sent.filter((t) => t > since);
    return this.sent.length < (this.opts.globalMaxPerWindow ?? 3);
  }

  private send(notice: Notice): void {
    this.sent.push(this.opts.now());
    this.opts.deliver(notice);
  }

  private hold(items: Pending[]): void {
    for (const p of items) merge(this.held, p, HELD_CAP);
    if (this.quietNow()) {
      this.heldInQuiet = true;
      this.scheduleQuietEnd();
    }
  }

  private flushHeld(reason: Reason): void {
    const items = this.held.splice(0);
    this.heldInQuiet = false;
    if (items.length > 0) this.dispatch(items, reason);
  }

  private holding(): boolean {
    return this.awaySince !== null || this.quietNow();
  }

  private scheduleQuietEnd(): void {
    if (this.quietCancel) return;
    const end = parseClock(this.opts.settings().quietHours.end);
    if (end === null) return;
    const minutes = (((end - this.minutesOfDay()) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
    this.quietCancel = this.later(Math.max(1000, Math.ceil(minutes * 60_000)), () => {
      this.quietCancel = null;
      if (this.quietNow()) this.scheduleQuietEnd(); // a clock change or new settings: not over yet
      else if (this.awaySince === null) this.flushHeld("quiet");
    });
  }

  private quietNow(): boolean {
    const q = this.opts.settings().quietHours;
    const start = parseClock(q.start);
    const end = parseClock(q.end);
    if (!q.enabled || start === null || end === null || start === end) return false;
    const m = this.minutesOfDay();
    return start < end ? m >= start && m < end : m >= start || m < end;
  }

  private minutesOfDay(): number {
    const now = this.opts.now();
    if (this.opts.minutesOfDay) return this.opts.minutesOfDay(now);
    const d = new Date(now);
    return d.getHours() * 60 + d.getMinutes() + d.getSeconds() / 60 + d.getMilliseconds() / 60_000;
  }

  // ——— queued state ———

  /** Keeps what is queued describing the card's latest state. */
  private updateQueued(key: string, gen: number, entry: CardEntry, cleared: boolean): void {
    for (const p of this.queued()) {
      if (p.key !== key || p.gen !== gen) continue;
      if (entry.card) {
        p.entry = entry;
        p.cleared = false;
      } else if (cleared) p.cleared = true;
    }
  }

  private *queued(): Iterable<Pending> {
    yield* this.held;
    yield* this.overflow;
    for (const q of this.sessions.values()) yield* q.pending;
  }

  private forget(key: string): void {
    this.held = this.held.filter((p) => p.key !== key);
    this.overflow = this.overflow.filter((p) => p.key !== key);
    const q = this.sessions.get(key);
    if (q) {
      q.pending = [];
      q.cancel?.();
      q.cancel = null;
    }
  }

  private strongest(p: Pending): Milestone | null {
    const on = this.opts.settings().milestones;
    return STRENGTH.find((k) => p.kinds.has(k) && on[k] && stillTrue(k, p, this.stalls.has(p.key))) ?? null;
  }

  private isVisible(entry: CardEntry): boolean {
    return this.opts.isVisibleInFocusedWindow?.(refOf(entry)) ?? false;
  }

  private later(ms: number, fn: () => void): () => void {
    const handle = { cancel: () => {} };
    this.timers.add(handle);
    handle.cancel = this.opts.schedule(() => {
      this.timers.delete(handle);
      if (!this.disposed) fn();
    }, Math.max(0, ms));
    return () => {
      if (this.timers.delete(handle)) handle.cancel();
    };
  }

  // ——— text (N5) ———

  private compose(items: Pending[], reason: Reason | null): Notice {
    const id = `${this.createdAt.toString(36)}-${++this.seq}`;
    const first = items[0]!;
    const oneCard = items.every((p) => p.key === first.key);
    if (items.length === 1 && reason === null) {
      const kind = this.strongest(first)!;
      return { id, kind, title: this.titleOf(first.entry), body: truncate(this.describe(first, kind), BODY_BUDGET), card: refOf(first.entry) };
    }
    const body =
      items.length === 1 ? `${PREFIX[reason!]}: ${this.describe(first, this.strongest(first)!)}` : this.tally(items, reason);
    return {
      id,
      kind: "summary",
      title: oneCard ? this.titleOf(first.entry) : SUMMARY_TITLE,
      body: truncate(body, BODY_BUDGET),
      card: oneCard ? refOf(first.entry) : null,
    };
  }

  private describe(p: Pending, kind: Milestone): string {
    if (kind === "noProgress") {
      const text = this.stalls.get(p.key)?.text;
      return text ? `${phrase(kind, p)} · ${text}` : phrase(kind, p);
    }
    return describe(p, kind);
  }

  /** "4 updates in 3 sessions: 2 completed, 1 paused" / "While you were away: 2 cards completed, 1 paused". */
  private tally(items: Pending[], reason: Reason | null): string {
    const counts = new Map<string, number>();
    const ranked = items
      .map((p) => ({ p, kind: this.strongest(p)! }))
      .sort((a, b) => STRENGTH.indexOf(a.kind) - STRENGTH.indexOf(b.kind));
    for (const { p, kind } of ranked) {
      const label = summaryLabel(kind, p.entry.derived);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    const groups = [...counts].map(([label, n], i) => (i === 0 && reason ? `${n} ${plural(n, "card")} ${label}` : `${n} ${label}`));
    if (reason) return `${PREFIX[reason]}: ${groups.join(", ")}`;
    const updates = items.reduce((sum, p) => sum + p.updates, 0);
    const sessions = new Set(items.map((p) => p.key)).size;
    return `${updates} ${plural(updates, "update")} in ${sessions} ${plural(sessions, "session")}: ${groups.join(", ")}`;
  }

  private titleOf(entry: CardEntry): string {
    const title = oneLine(entry.title) || entry.sessionKey;
    const label = (this.opts.gatewayCount?.() ?? 1) > 1 ? oneLine(this.opts.gatewayLabel?.(entry.gatewayId) ?? "") : "";
    return truncate(label ? `${label} · ${title}` : title, TITLE_BUDGET);
  }
}

const PREFIX: Record<Reason, string> = { away: "While you were away", quiet: "During quiet hours" };

// ——— milestones (N1) ———

/** The milestones from what was known to `entry`; null for an entry older than the card known. */
function detect(known: Known, entry: CardEntry, since: number): Milestone[] | null {
  const { card, derived } = entry;
  const kinds: Milestone[] = [];
  if (card && derived) {
    const prev = known.card;
    const pd = known.derived;
    if (prev && pd) {
      if (card.updatedAt < prev.updatedAt) return null;
      kinds.push(...(card.revision < prev.revision ? appeared(derived) : progressed(pd, derived)));
    } else {
      const last = known.last;
      const fresh = last ? card.updatedAt >= last.updatedAt && !(card.revision === last.revision && card.updatedAt === last.updatedAt) : card.updatedAt >= since;
      if (fresh) kinds.push(...appeared(derived));
    }
  }
  const r = entry.refresh;
  if (r && r.status !== "pending" && refreshFailure(r) !== known.refreshFail && r.at >= since) kinds.push("refreshFailed");
  return kinds;
}

function appeared(d: CardDerived): Milestone[] {
  const kinds: Milestone[] = ["newCard"];
  if (d.state === "complete") kinds.push("allCompleted");
  if (isStopped(d.outcome)) kinds.push("pausedOrBlocked");
  return kinds;
}

function progressed(before: CardDerived, d: CardDerived): Milestone[] {
  const kinds: Milestone[] = [];
  if (d.state === "complete" && before.state !== "complete") kinds.push("allCompleted");
  else if (d.completed > before.completed) kinds.push("stepCompleted");
  const paused = before.state === "active" && d.state === "paused";
  const stopped = isStopped(d.outcome) && d.outcome !== before.outcome;
  const replacedByNote = before.completed < before.total && d.total === 0;
  if (paused || stopped || replacedByNote) kinds.push("pausedOrBlocked");
  return kinds;
}

function stillTrue(kind: Milestone, p: Pending, stalled: boolean): boolean {
  const d = p.entry.derived;
  switch (kind) {
    case "allCompleted":
      return d?.state === "complete";
    case "pausedOrBlocked":
      return d !== null && (d.state === "paused" || d.state === "note" || isStopped(d.outcome));
    case "refreshFailed":
      return !p.cleared && refreshFailure(p.entry.refresh) !== null;
    case "stepCompleted":
      return !p.cleared && d !== null && d.completed > p.fromCompleted;
    case "newCard":
      return !p.cleared;
    case "noProgress":
      return stalled;
  }
}

function isStopped(outcome: RunOutcome | null): boolean {
  return outcome === "failed" || outcome === "killed" || outcome === "timeout";
}

/** Identity of a failed refresh attempt, so a retry that fails again is told again. */
function refreshFailure(refresh: RefreshState | null): string | null {
  return refresh && refresh.status !== "pending" ? `${refresh.status}:${refresh.key}:${refresh.at}` : null;
}

function dedupeKey(kind: Milestone, entry: CardEntry): string {
  if (kind === "refreshFailed") return `refresh:${refreshFailure(entry.refresh)}`;
  return `${kind}:${entry.card?.revision}:${entry.card?.updatedAt}`;
}

/** Coalesces `p` into `list` (same card and generation), keeping at most `cap` generations per card. */
function merge(list: Pending[], p: Pending, cap: number): void {
  const same = list.find((q) => q.key === p.key && q.gen === p.gen);
  if (same) {
    for (const k of p.kinds) same.kinds.add(k);
    same.updates += p.updates;
    // A stall alone says nothing new about the card: the card's latest state stays.
    if (!(p.kinds.size === 1 && p.kinds.has("noProgress"))) {
      same.entry = p.entry;
      same.cleared = p.cleared;
    }
    return;
  }
  list.push(p);
  const mine = list.filter((q) => q.key === p.key);
  const dropped = mine.length > cap ? mine[mine.length - 2] : undefined;
  if (dropped) {
    list.splice(list.indexOf(dropped), 1);
    p.updates += dropped.updates;
  }
}

function cardKey(ref: CardRef): string {
  return `${ref.gatewayId}\u0000${ref.sessionKey}\u0000${ref.agentId ?? ""}`;
}

/** Stands in for the card of a stalled session the policy never saw a card for. */
function stallEntry(ref: CardRef): CardEntry {
  return {
    ...ref,
    title: shortKeyTitle(ref.sessionKey),
    card: null,
    derived: null,
    freshness: "live",
    confirmedAt: null,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
  };
}

function refOf(entry: CardEntry): CardRef {
  return { gatewayId: entry.gatewayId, sessionKey: entry.sessionKey, agentId: entry.agentId };
}

function parseClock(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : null;
}

// ——— text ———

function describe(p: Pending, kind: Milestone): string {
  const { card, derived: d } = p.entry;
  const parts = [
    phrase(kind, p),
    d && d.total > 0 ? `${d.completed}/${d.total}` : null,
    card && d ? stepLine(card, d) : null,
    noteLine(card?.markdown ?? null),
  ];
  return parts.filter((s): s is string => !!s).join(" · ");
}

function phrase(kind: Milestone, p: Pending): string {
  const d = p.entry.derived;
  switch (kind) {
    case "newCard":
      return "Started";
    case "stepCompleted": {
      const n = (d?.completed ?? 0) - p.fromCompleted;
      if (n > 1) return `${n} steps completed`;
      const took = justFinishedStepMs(p.entry);
      return took !== null && took >= MIN_TOLD_DURATION_MS ? `Step done in ${humanDuration(took)}` : "Step completed";
    }
    case "allCompleted": {
      const plan = p.entry.timing?.planMs ?? null;
      return plan !== null && plan >= MIN_TOLD_DURATION_MS ? `Plan complete in ${humanDuration(plan)}` : "Completed";
    }
    case "pausedOrBlocked":
      if (d?.outcome === "failed") return "Run failed";
      if (d?.outcome === "killed") return "Run stopped";
      if (d?.outcome === "timeout") return "Run timed out";
      return d?.state === "note" ? "Blocked" : "Paused";
    case "refreshFailed":
      return p.entry.refresh?.status === "timed_out" ? "Refresh timed out" : "Refresh failed";
    case "noProgress":
      return "No progress";
  }
}

/** Durations shorter than this are not worth the words ("Step done in 4 s" is noise). */
const MIN_TOLD_DURATION_MS = 60_000;

/** How long the step finished by the card's last change took, when both ends were seen. */
function justFinishedStepMs(entry: CardEntry): number | null {
  const t = entry.timing;
  if (!t || t.lastChangeAt === null) return null;
  const done = t.steps.filter((s) => s.status === "completed" && s.finishedAt === t.lastChangeAt);
  return done.length === 1 ? stepDuration(done[0]!) : null;
}

function summaryLabel(kind: Milestone, d: CardDerived | null): string {
  switch (kind) {
    case "allCompleted":
      return "completed";
    case "pausedOrBlocked":
      return isStopped(d?.outcome ?? null) ? "stopped" : "paused";
    case "refreshFailed":
      return "failed to refresh";
    case "stepCompleted":
      return "progressed";
    case "newCard":
      return "started";
    case "noProgress":
      return "stalled";
  }
}

function stepLine(card: ProgressCard, d: CardDerived): string | null {
  const doing = card.steps.find((s) => s.status === "in_progress");
  if (doing) return `${d.state === "active" ? "Now" : "At"}: ${oneLine(doing.step)}`;
  const next = card.steps.find((s) => s.status === "pending");
  return next ? `Next: ${oneLine(next.step)}` : null;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function oneLine(text: string): string {
  return stripInvisible(text).replace(/\s+/g, " ").trim();
}
