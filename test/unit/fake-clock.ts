// A fake clock with its own scheduler, for code that takes `now()` and `schedule(fn, ms) → cancel`:
// time moves only when the test says so, and every timer that falls due runs, in order (timers
// due at the same time in the order they were set).
export class FakeClock {
  now: number;
  private timers: { at: number; fn: () => void; seq: number }[] = [];
  private seq = 0;
  /** Every delay ever asked for, in order (cancelled and fired ones too). */
  readonly requested: number[] = [];
  constructor(start = 1_000_000) {
    this.now = start;
  }
  schedule = (fn: () => void, ms: number): (() => void) => {
    const t = { at: this.now + ms, fn, seq: this.seq++ };
    this.timers.push(t);
    this.requested.push(ms);
    return () => {
      this.timers = this.timers.filter((x) => x !== t);
    };
  };
  /** Moves time forward, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.at);
      due.fn();
    }
    this.now = end;
  }
  get pending(): number {
    return this.timers.length;
  }
}
