// How busy a Gateway is with card writes (issue 11: the cost of being watched). A Gateway
// saturated by its agents' writes answers every request late, and every read we add is
// throughput those agents lose. Two signs together say so: our change-driven reads come back far
// slower than the quickest one seen on this connection (slow), and change hints arrive by the
// dozen each second (a storm of writes). Then the card store reads less (a small budget per
// second, one at a time) and lets further hints coalesce per session; as soon as either sign
// fades it reads at once as before. Slow replies alone (a loaded machine, a far Gateway) pace
// nothing: with few hints our reads cost little, and each one is what the person waits for.

export type GatewayLoadOptions = {
  /** Below this smoothed round trip (ms) replies never count as slow, however quick they were before. */
  busyFloorMs: number;
  /** Slow when the smoothed round trip exceeds this many times the quickest one seen. */
  busyFactor: number;
  /**
   * Slow above this smoothed round trip (ms) whatever the quickest was: a connection made in
   * the middle of a storm never saw the Gateway quick.
   */
  busyCeilingMs: number;
  /** Weight of each new round trip in the smoothed one (0–1). */
  smoothing: number;
  /** A storm of writes: at least this many change hints per second (smoothed over about a second). */
  busyHintsPerSecond: number;
};

export const DEFAULT_GATEWAY_LOAD: GatewayLoadOptions = {
  busyFloorMs: 30,
  busyFactor: 8,
  busyCeilingMs: 400,
  smoothing: 0.25,
  busyHintsPerSecond: 20,
};

/** Quick replies in a row that end a slow spell. */
export const QUICK_REPLIES_TO_CALM = 3;
/** Time constant (ms) of the hint rate: hints older than a few of these no longer count. */
const HINT_RATE_WINDOW_MS = 1_000;

export class GatewayLoad {
  private readonly opts: GatewayLoadOptions;
  private readonly clock: () => number;
  private quickestMs = Number.POSITIVE_INFINITY;
  private smoothedMs: number | null = null;
  private isSlow = false;
  /** Quick replies in a row while slow. */
  private quickInARow = 0;
  /** Change hints per second, decayed exponentially, as of `hintAt`. */
  private hintRate = 0;
  private hintAt = 0;

  /** `clock`: monotonic ms, the same clock the round trips are timed with. */
  constructor(opts: Partial<GatewayLoadOptions> = {}, clock: () => number = () => performance.now()) {
    this.opts = { ...DEFAULT_GATEWAY_LOAD, ...opts };
    this.clock = clock;
    this.hintAt = clock();
  }

  /** One change hint arrived (whatever session it names). */
  noteHint(): void {
    this.hintRate = this.hintsPerSecond() + 1000 / HINT_RATE_WINDOW_MS;
    this.hintAt = this.clock();
  }

  /** Change hints per second now (about the last second's count). */
  hintsPerSecond(): number {
    const elapsed = Math.max(0, this.clock() - this.hintAt);
    return this.hintRate * Math.exp(-elapsed / HINT_RATE_WINDOW_MS);
  }

  /**
   * A round trip that only says how quick the Gateway can be (a read of the roster at connect,
   * queued behind our own others): it lowers the quickest, never moves the smoothed one.
   */
  noteQuickest(roundTripMs: number): void {
    if (Number.isFinite(roundTripMs) && roundTripMs >= 0) this.quickestMs = Math.min(this.quickestMs, roundTripMs);
  }

  /** One change-driven read's round trip in ms. */
  sample(roundTripMs: number): void {
    if (!Number.isFinite(roundTripMs) || roundTripMs < 0) return;
    this.quickestMs = Math.min(this.quickestMs, roundTripMs);
    this.smoothedMs = this.smoothedMs === null ? roundTripMs : this.smoothedMs + this.opts.smoothing * (roundTripMs - this.smoothedMs);
    const threshold = Math.min(this.opts.busyCeilingMs, Math.max(this.opts.busyFloorMs, this.opts.busyFactor * this.quickestMs));
    // Hysteresis: slow above the threshold; quick again below half of it, or after a few
    // replies in a row under that (the storm is over: no need to wait for the average to
    // forget it), so one quick reply in a storm does not open the gates for a moment.
    if (!this.isSlow) {
      if (this.smoothedMs > threshold) {
        this.isSlow = true;
        this.quickInARow = 0;
      }
      return;
    }
    this.quickInARow = roundTripMs < threshold / 2 ? this.quickInARow + 1 : 0;
    if (this.smoothedMs < threshold / 2 || this.quickInARow >= QUICK_REPLIES_TO_CALM) {
      this.isSlow = false;
      this.smoothedMs = roundTripMs;
    }
  }

  /** Reads come back far slower than this Gateway can answer. */
  get slow(): boolean {
    return this.isSlow;
  }

  /** Slow replies in a storm of hints: read less. */
  get busy(): boolean {
    return this.isSlow && this.hintsPerSecond() >= this.opts.busyHintsPerSecond;
  }

  /** The smoothed round trip in ms (null before the first sample). */
  get smoothed(): number | null {
    return this.smoothedMs;
  }

  /** A new connection: what the old one measured says nothing about it. */
  reset(): void {
    this.quickestMs = Number.POSITIVE_INFINITY;
    this.smoothedMs = null;
    this.isSlow = false;
    this.quickInARow = 0;
    this.hintRate = 0;
    this.hintAt = this.clock();
  }
}
