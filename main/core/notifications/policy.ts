// Desktop notifications from confirmed card changes (N1–N6): milestones, not noise.
// Pure: the shell feeds every DeskChange "card" entry to observe() and each session's
// activity to observeActivity(), and delivers what comes out; time, timers, focus, labels
// and settings are injected.
//
// Module map (each decision in its own module beside this one, this class wires them):
//   notice.ts       — what a notice is, and the settings it follows
//   milestones.ts   — which milestones a change makes, and whether one is still true (N1)
//   throttle.ts     — the per-session throttle and the global cap, with their timers
//   coalesce.ts     — their rules: coalescing of generations, when a slot is free
//   held-notices.ts — what is held while away or in quiet hours, and its release
//   quiet-hours.ts  — whether now is quiet, and when it ends
//   away-summary.ts — what coming back does with what was held
//   notice-text.ts  — every title and body (N5)
//
// Rules kept here, where the pieces meet:
// - One notice names the strongest milestone still true of the card's latest state.
//   Completed or stopped work cleared by someone else is still told.
// - Own actions: for ownActionGraceMs after noteOwnAction(), that card's milestones are
//   silent and what is queued for it is dropped (the person has just seen it); a failed
//   refresh is the exception, being the answer to the click.
// - N3 is checked when a milestone happens and again when a queued notice goes out; a card
//   seen in a focused window also drops what was queued for it.
// - Held milestones (quiet hours, away) go out as one summary when the hold ends (a timer,
//   re-checked on fire), or on the next card change if quiet hours were switched off meanwhile
//   (held-notices.ts).
// - Settings are read at every step: switching a milestone (or all) off also silences what
//   is already queued.
// - No progress: a stall flag appearing (none → flag, or another kind) is a `noProgress`
//   milestone for the slot {gatewayId, sessionKey, agentId: null}, once per episode; it takes
//   the same path as the others and is still true only while a flag is up. Own actions do
//   not silence it. Title as for cards, or the short session key when no card was ever seen.
import type { CardRef, Milestone } from "../../../common/contract.ts";
import type { CardEntry, SessionActivity, StallFlag } from "../../../common/model.ts";
import { cardSlotKey } from "../../../common/keys.ts";
import type { Notice, NotificationSettings } from "./notice.ts";
import { dedupeKey, detect, refreshFailure, stallEntry, STRENGTH, stillTrue, unknownCard, type Known } from "./milestones.ts";
import type { Pending } from "./coalesce.ts";
import { GlobalCap, SessionThrottle } from "./throttle.ts";
import { HeldNotices } from "./held-notices.ts";
import type { HoldReason } from "./away-summary.ts";
import { noticeBody, noticeTitle, oneLine, SUMMARY_TITLE } from "./notice-text.ts";

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

/** Dedupe keys remembered per card. */
const SEEN_CAP = 64;

/** A session's stall flag that is up now: its kind (a new kind is a new episode) and latest text. */
type Stall = { kind: StallFlag["kind"]; text: string };

export class NotificationPolicy {
  private readonly opts: PolicyOptions;
  private readonly createdAt: number;
  private readonly known = new Map<string, Known>();
  private readonly throttle: SessionThrottle;
  private readonly ownUntil = new Map<string, number>();
  private readonly stalls = new Map<string, Stall>();
  private readonly timers = new Set<{ cancel: () => void }>();
  private readonly held: HeldNotices;
  private readonly cap: GlobalCap;
  private seq = 0;
  private disposed = false;

  constructor(opts: PolicyOptions) {
    this.opts = opts;
    this.createdAt = opts.now();
    this.held = new HeldNotices({
      now: () => this.opts.now(),
      quietHours: () => this.opts.settings().quietHours,
      minutesOfDay: opts.minutesOfDay,
      awayThresholdMs: opts.awayThresholdMs,
      later: (ms, fn) => this.later(ms, fn),
      release: (items, reason) => void this.dispatch(items, reason),
      resume: (p) => this.throttle.offer(p),
    });
    this.throttle = new SessionThrottle({
      now: () => this.opts.now(),
      intervalMs: opts.perSessionIntervalMs ?? 60_000,
      later: (ms, fn) => this.later(ms, fn),
      dispatch: (p) => this.dispatch([p], null),
    });
    this.cap = new GlobalCap({
      now: () => this.opts.now(),
      windowMs: opts.globalWindowMs ?? 60_000,
      max: opts.globalMaxPerWindow ?? 3,
      later: (ms, fn) => this.later(ms, fn),
      retry: (items) => void this.dispatch(items, null),
    });
  }

  observe(entry: CardEntry): void {
    if (this.disposed || entry.hidden) return;
    this.held.releaseIfOver();

    const key = cardSlotKey(entry);
    let known = this.known.get(key);
    if (!known) {
      known = unknownCard();
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
    const accepted = kinds.filter(
      (k) => settings.milestones[k] && !known.seen.includes(dedupeKey(k, entry)) && (!own || k === "refreshFailed"),
    );
    if (accepted.length === 0) return;
    for (const k of accepted) known.seen.push(dedupeKey(k, entry));
    known.seen.splice(0, Math.max(0, known.seen.length - SEEN_CAP));

    if (this.isVisible(entry)) {
      this.forget(key); // N3: seen now, so neither told nor held
      return;
    }
    const pending: Pending = { key, gen: known.gen, kinds: new Set(accepted), updates: 1, fromCompleted, entry, cleared: false };
    if (this.held.holding()) this.held.hold([pending]);
    else this.throttle.offer(pending);
  }

  /** A session's activity (stall-detector flag); a flag that appears is a `noProgress` milestone. */
  observeActivity(activity: SessionActivity): void {
    if (this.disposed) return;
    this.held.releaseIfOver();

    const ref: CardRef = { gatewayId: activity.gatewayId, sessionKey: activity.sessionKey, agentId: null };
    const key = cardSlotKey(ref);
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
    if (this.held.holding()) this.held.hold([pending]);
    else this.throttle.offer(pending);
  }

  noteOwnAction(ref: CardRef): void {
    if (this.disposed) return;
    const key = cardSlotKey(ref);
    this.ownUntil.set(key, this.opts.now() + (this.opts.ownActionGraceMs ?? 10_000));
    this.forget(key);
  }

  away(): void {
    if (this.disposed) return;
    this.held.away();
  }

  back(): void {
    if (this.disposed) return;
    this.held.back();
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.throttle.clear();
    this.held.dispose();
    this.cap.dispose();
    this.stalls.clear();
  }

  // ——— overall: hold, cap, deliver ———

  /** Sends one notice for `items`, or holds them, or adds them to the capped summary; false when nothing is left to tell. */
  private dispatch(items: Pending[], reason: HoldReason | null): boolean {
    if (!this.opts.settings().enabled) return false;
    if (this.held.holding()) {
      this.held.hold(items);
      return true;
    }
    const live = items.filter((p) => this.strongest(p) !== null && !this.isVisible(p.entry));
    if (live.length === 0) return false;
    if (this.cap.hasRoom()) {
      const notice = this.compose(live, reason);
      this.cap.noteSent();
      this.opts.deliver(notice);
      return true;
    }
    this.cap.wait(live);
    return true;
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
    yield* this.held.items();
    yield* this.cap.items();
    yield* this.throttle.items();
  }

  private forget(key: string): void {
    this.held.forget(key);
    this.cap.forget(key);
    this.throttle.forget(key);
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
    handle.cancel = this.opts.schedule(
      () => {
        this.timers.delete(handle);
        if (!this.disposed) fn();
      },
      Math.max(0, ms),
    );
    return () => {
      if (this.timers.delete(handle)) handle.cancel();
    };
  }

  // ——— text (N5): notice-text.ts ———

  private compose(items: Pending[], reason: HoldReason | null): Notice {
    const id = `${this.createdAt.toString(36)}-${++this.seq}`;
    const [first] = items;
    if (!first) throw new Error("a notice needs at least one pending milestone");
    const oneCard = items.every((p) => p.key === first.key);
    // Callers pass only items with a milestone still true (see `live` in dispatch()).
    const told = items.flatMap((p) => {
      const kind = this.strongest(p);
      return kind ? [{ pending: p, kind, stallText: this.stalls.get(p.key)?.text }] : [];
    });
    const [firstTold] = told;
    const single = items.length === 1 && reason === null;
    return {
      id,
      kind: single && firstTold ? firstTold.kind : "summary",
      title: oneCard ? this.titleOf(first.entry) : SUMMARY_TITLE,
      body: noticeBody(told, reason),
      card: oneCard ? refOf(first.entry) : null,
    };
  }

  private titleOf(entry: CardEntry): string {
    const several = (this.opts.gatewayCount?.() ?? 1) > 1;
    return noticeTitle(entry, several ? (this.opts.gatewayLabel?.(entry.gatewayId) ?? "") : null);
  }
}

function refOf(entry: CardEntry): CardRef {
  return { gatewayId: entry.gatewayId, sessionKey: entry.sessionKey, agentId: entry.agentId };
}
