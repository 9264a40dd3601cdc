// What is held while the person is away or in quiet hours, and when it goes out: as one
// summary when the hold ends (the quiet-hours timer re-checks on fire), or on the next card
// change if quiet hours were switched off meanwhile; coming back releases it as
// away-summary.ts says. The policy hands over what to hold and says how a release is sent.
import type { QuietHours } from "./quiet-hours.ts";
import { isQuiet, localMinutesOfDay, msUntilQuietEnd } from "./quiet-hours.ts";
import { DEFAULT_AWAY_THRESHOLD_MS, releaseOnBack, type HoldReason } from "./away-summary.ts";
import { HELD_CAP, merge, type Pending } from "./coalesce.ts";

export type HeldNoticesOptions = {
  now: () => number;
  quietHours: () => QuietHours;
  /** Local time-of-day in minutes since midnight; default from `now()` in the local zone. */
  minutesOfDay?: ((ms: number) => number) | undefined;
  awayThresholdMs?: number | undefined;
  /** The policy's timer: cancelled with everything else when the policy is disposed. */
  later: (ms: number, fn: () => void) => () => void;
  /** Sends what was held as one release (a summary, or one notice for one card). */
  release: (items: Pending[], reason: HoldReason) => void;
  /** Back after a short absence: each held item goes through the normal throttle. */
  resume: (item: Pending) => void;
};

export class HeldNotices {
  private readonly opts: HeldNoticesOptions;
  private held: Pending[] = [];
  private heldInQuiet = false;
  private quietCancel: (() => void) | null = null;
  private awaySince: number | null = null;

  constructor(opts: HeldNoticesOptions) {
    this.opts = opts;
  }

  /** Away or in quiet hours: what would go out is held instead. */
  holding(): boolean {
    return this.awaySince !== null || this.quietNow();
  }

  hold(items: Pending[]): void {
    for (const p of items) merge(this.held, p, HELD_CAP);
    if (this.quietNow()) {
      this.heldInQuiet = true;
      this.scheduleQuietEnd();
    }
  }

  /** The hold ended without its timer (quiet hours switched off): what was held goes out. */
  releaseIfOver(): void {
    if (this.held.length > 0 && !this.holding()) this.flush(this.heldInQuiet ? "quiet" : "away");
  }

  away(): void {
    if (this.awaySince !== null) return;
    this.awaySince = this.opts.now();
  }

  back(): void {
    if (this.awaySince === null) return;
    const awayFor = this.opts.now() - this.awaySince;
    this.awaySince = null;
    switch (releaseOnBack(awayFor, this.opts.awayThresholdMs ?? DEFAULT_AWAY_THRESHOLD_MS, this.quietNow(), this.heldInQuiet)) {
      case "waitForQuietEnd":
        if (this.held.length > 0) {
          this.heldInQuiet = true;
          this.scheduleQuietEnd();
        }
        return;
      case "summary:away":
        return this.flush("away");
      case "summary:quiet":
        return this.flush("quiet");
      case "throttle":
        for (const p of this.held.splice(0)) this.opts.resume(p);
    }
  }

  /** What is held now (the policy keeps it describing each card's latest state). */
  items(): readonly Pending[] {
    return this.held;
  }

  /** Drops what is held for one card. */
  forget(key: string): void {
    this.held = this.held.filter((p) => p.key !== key);
  }

  dispose(): void {
    this.held = [];
    this.quietCancel = null;
  }

  private flush(reason: HoldReason): void {
    const items = this.held.splice(0);
    this.heldInQuiet = false;
    if (items.length > 0) this.opts.release(items, reason);
  }

  private scheduleQuietEnd(): void {
    if (this.quietCancel) return;
    const wait = msUntilQuietEnd(this.opts.quietHours(), this.minutesOfDay());
    if (wait === null) return;
    this.quietCancel = this.opts.later(wait, () => {
      this.quietCancel = null;
      if (this.quietNow())
        this.scheduleQuietEnd(); // a clock change or new settings: not over yet
      else if (this.awaySince === null) this.flush("quiet");
    });
  }

  private quietNow(): boolean {
    return isQuiet(this.opts.quietHours(), this.minutesOfDay());
  }

  private minutesOfDay(): number {
    const now = this.opts.now();
    return this.opts.minutesOfDay ? this.opts.minutesOfDay(now) : localMinutesOfDay(now);
  }
}
