// How busy a Gateway is, judged from how long our own change-driven reads take (issue 11: the
// cost of being watched). A Gateway saturated by its agents' writes answers every request late;
// each read we add then costs those agents throughput. So while the smoothed read round trip
// stays far above the quickest one seen on this connection, the card store reads less (a small
// budget per second, few in flight) and lets further hints coalesce per session; as soon as
// reads come back quickly again, it reads at once as before. A quiet Gateway is never paced:
// one put at a time is read the moment its hint arrives.

export type GatewayLoadOptions = {
  /** Below this smoothed round trip (ms) a Gateway is never called busy, however quick it was before. */
  busyFloorMs: number;
  /** Busy when the smoothed round trip exceeds this many times the quickest one seen. */
  busyFactor: number;
  /**
   * Busy above this smoothed round trip (ms) whatever the quickest was: a connection made in
   * the middle of a storm never saw the Gateway quick.
   */
  busyCeilingMs: number;
  /** Weight of each new round trip in the smoothed one (0–1). */
  smoothing: number;
};

export const DEFAULT_GATEWAY_LOAD: GatewayLoadOptions = {
  busyFloorMs: 30,
  busyFactor: 8,
  busyCeilingMs: 400,
  smoothing: 0.25,
};

/** Quick replies in a row that end a busy spell. */
export const QUICK_REPLIES_TO_CALM = 3;

export class GatewayLoad {
  private readonly opts: GatewayLoadOptions;
  private quickestMs = Number.POSITIVE_INFINITY;
  private smoothedMs: number | null = null;
  private isBusy = false;
  /** Quick replies in a row while busy. */
  private quickInARow = 0;
  /** Times the gauge went from quiet to busy (diagnostics and benchmarks). */
  busySpells = 0;

  constructor(opts: Partial<GatewayLoadOptions> = {}) {
    this.opts = { ...DEFAULT_GATEWAY_LOAD, ...opts };
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
    // Hysteresis: busy above the threshold; quiet again below half of it, or after a few
    // replies in a row under that (the storm is over: no need to wait for the average to
    // forget it), so one quick reply in a storm does not open the gates for a moment.
    if (!this.isBusy) {
      if (this.smoothedMs > threshold) {
        this.isBusy = true;
        this.busySpells += 1;
        this.quickInARow = 0;
      }
      return;
    }
    this.quickInARow = roundTripMs < threshold / 2 ? this.quickInARow + 1 : 0;
    if (this.smoothedMs < threshold / 2 || this.quickInARow >= QUICK_REPLIES_TO_CALM) {
      this.isBusy = false;
      this.smoothedMs = roundTripMs;
    }
  }

  get busy(): boolean {
    return this.isBusy;
  }

  /** The smoothed round trip in ms (null before the first sample). */
  get smoothed(): number | null {
    return this.smoothedMs;
  }

  /** A new connection: what the old one measured says nothing about it. */
  reset(): void {
    this.quickestMs = Number.POSITIVE_INFINITY;
    this.smoothedMs = null;
    this.isBusy = false;
    this.quickInARow = 0;
  }
}
