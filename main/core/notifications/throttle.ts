// When a notice may go out, with the timers that wait for it (the rules are coalesce.ts's):
// - per session, one notice per interval; what comes sooner waits, merged by generation, and
//   the next one still true goes out when the interval is over (one that no longer holds does
//   not use the slot);
// - globally, at most `max` notices per window; beyond it everything waits for a free slot and
//   is tried again as one.
// What is still worth telling is the policy's to say (`dispatch`, `retry`).
import { HELD_CAP, inWindow, merge, SESSION_CAP, sessionSlotFree, slotFreesAt, type Pending } from "./coalesce.ts";

type Later = (ms: number, fn: () => void) => () => void;

type SessionQueue = { lastSentAt: number | null; pending: Pending[]; cancel: (() => void) | null };

export type SessionThrottleOptions = {
  now: () => number;
  intervalMs: number;
  later: Later;
  /** Tells `p` now (or holds it); false when nothing of it is left to tell. */
  dispatch: (p: Pending) => boolean;
};

export class SessionThrottle {
  private readonly opts: SessionThrottleOptions;
  private readonly sessions = new Map<string, SessionQueue>();

  constructor(opts: SessionThrottleOptions) {
    this.opts = opts;
  }

  offer(p: Pending): void {
    const interval = this.opts.intervalMs;
    const now = this.opts.now();
    let q = this.sessions.get(p.key);
    if (!q) {
      q = { lastSentAt: null, pending: [], cancel: null };
      this.sessions.set(p.key, q);
    }
    if (sessionSlotFree(q.pending.length, q.lastSentAt, now, interval)) {
      if (this.opts.dispatch(p)) q.lastSentAt = now;
      return;
    }
    merge(q.pending, p, SESSION_CAP);
    q.cancel ??= this.opts.later((q.lastSentAt ?? now) + interval - now, () => this.flush(p.key));
  }

  *items(): Iterable<Pending> {
    for (const q of this.sessions.values()) yield* q.pending;
  }

  /** Drops what waits for one card, and its timer. */
  forget(key: string): void {
    const q = this.sessions.get(key);
    if (q) {
      q.pending = [];
      q.cancel?.();
      q.cancel = null;
    }
  }

  clear(): void {
    this.sessions.clear();
  }

  private flush(key: string): void {
    const q = this.sessions.get(key);
    if (!q) return;
    q.cancel = null;
    // A notice that no longer holds (resumed, switched off, in view) does not use the slot.
    for (let next = q.pending.shift(); next; next = q.pending.shift()) {
      if (!this.opts.dispatch(next)) continue;
      q.lastSentAt = this.opts.now();
      if (q.pending.length > 0) q.cancel = this.opts.later(this.opts.intervalMs, () => this.flush(key));
      return;
    }
  }
}

export type GlobalCapOptions = {
  now: () => number;
  windowMs: number;
  max: number;
  later: Later;
  /** What waited for a free slot, tried again together. */
  retry: (items: Pending[]) => void;
};

export class GlobalCap {
  private readonly opts: GlobalCapOptions;
  private sent: number[] = [];
  private waiting: Pending[] = [];
  private cancel: (() => void) | null = null;

  constructor(opts: GlobalCapOptions) {
    this.opts = opts;
  }

  /** A notice may go out now: nothing waits for a slot and the window has room. */
  hasRoom(): boolean {
    if (this.waiting.length !== 0) return false;
    this.sent = inWindow(this.sent, this.opts.now(), this.opts.windowMs);
    return this.sent.length < this.opts.max;
  }

  noteSent(): void {
    this.sent.push(this.opts.now());
  }

  /** `items` wait for the next free slot. */
  wait(items: readonly Pending[]): void {
    for (const p of items) merge(this.waiting, p, HELD_CAP);
    if (this.cancel) return;
    const freeAt = slotFreesAt(this.sent, this.opts.now(), this.opts.windowMs, this.opts.max);
    this.cancel = this.opts.later(freeAt - this.opts.now(), () => {
      this.cancel = null;
      this.opts.retry(this.waiting.splice(0));
    });
  }

  items(): readonly Pending[] {
    return this.waiting;
  }

  forget(key: string): void {
    this.waiting = this.waiting.filter((p) => p.key !== key);
  }

  dispose(): void {
    this.waiting = [];
    this.cancel = null;
  }
}
