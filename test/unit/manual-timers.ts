// A manual scheduler for code that takes `schedule(fn, ms) → cancel`: nothing fires until the
// test says so, so "no retry was scheduled" is a fact to check, not a pause to wait out.
export type ManualTimer = { ms: number; fn: () => void };

export class ManualTimers {
  private readonly timers: ManualTimer[] = [];

  readonly schedule = (fn: () => void, ms: number): (() => void) => {
    const timer: ManualTimer = { ms, fn };
    this.timers.push(timer);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  };

  /** Delays of the timers neither fired nor cancelled, in the order they were set. */
  pending(): number[] {
    return this.timers.map((t) => t.ms);
  }

  /** Fires the oldest pending timer and returns its delay; throws when none is pending. */
  fireNext(): number {
    const timer = this.timers.shift();
    if (!timer) throw new Error("no timer is pending");
    timer.fn();
    return timer.ms;
  }
}
