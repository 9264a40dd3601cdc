// How busy a Gateway is with card writes (issue 11: the cost of being watched). Under a storm of
// writes the Gateway is the bottleneck, and every read we add is throughput its agents lose.
// Either of two signs says so:
// - a storm across sessions: at least 50 change hints a second naming at least 5 sessions. Nobody
//   follows that many cards revision by revision; reading each a few times a second is plenty.
//   (One card changing fast is different: the person watches that one, so it is read at once.)
// - slow replies in a stream of hints: our change-driven reads come back far slower than the
//   quickest one seen on this connection while at least 20 hints arrive a second.
// Then the card store reads less (a small budget per second, one at a time) and lets further
// hints coalesce per session; as soon as the sign fades it reads at once as before. A lone get
// can come back quickly even in a storm (the Gateway queues its writes, not its reads), so slow
// replies alone do not show every storm; and slow replies with few hints (a loaded machine, a far
// Gateway) pace nothing: our reads then cost little, and each is what the person waits for.

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
  /** With slow replies: at least this many change hints per second (smoothed over about a second). */
  busyHintsPerSecond: number;
  /** A storm across sessions: at least this many hints per second … */
  stormHintsPerSecond: number;
  /** … naming at least this many distinct sessions within a second. */
  stormSessions: number;
};

export const DEFAULT_GATEWAY_LOAD: GatewayLoadOptions = {
  busyFloorMs: 30,
  busyFactor: 8,
  busyCeilingMs: 400,
  smoothing: 0.25,
  busyHintsPerSecond: 20,
  stormHintsPerSecond: 50,
  stormSessions: 5,
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
  /** Sessions hinted in this second and the one before (whole seconds since `bucketAt`). */
  private sessionsNow = new Set<string>();
  private sessionsBefore = new Set<string>();
  private bucketAt = 0;

  /** `clock`: monotonic ms, the same clock the round trips are timed with. */
  constructor(opts: Partial<GatewayLoadOptions> = {}, clock: () => number = () => performance.now()) {
    this.opts = { ...DEFAULT_GATEWAY_LOAD, ...opts };
    this.clock = clock;
    this.hintAt = clock();
    this.bucketAt = this.hintAt;
  }

  /** One change hint arrived, naming `sessionKey`. */
  noteHint(sessionKey: string): void {
    this.hintRate = this.hintsPerSecond() + 1000 / HINT_RATE_WINDOW_MS;
    this.hintAt = this.clock();
    this.rotateBuckets();
    this.sessionsNow.add(sessionKey);
  }

  /** Distinct sessions hinted within about the last second. */
  sessionsPerSecond(): number {
    this.rotateBuckets();
    return Math.max(this.sessionsNow.size, this.sessionsBefore.size);
  }

  private rotateBuckets(): void {
    const now = this.clock();
    const elapsed = now - this.bucketAt;
    if (elapsed < HINT_RATE_WINDOW_MS) return;
    this.sessionsBefore = elapsed < 2 * HINT_RATE_WINDOW_MS ? this.sessionsNow : new Set();
    this.sessionsNow = new Set();
    this.bucketAt = now;
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

  /** A storm of hints across sessions, or slow replies in a stream of hints: read less. */
  get busy(): boolean {
    const hints = this.hintsPerSecond();
    if (hints >= this.opts.stormHintsPerSecond && this.sessionsPerSecond() >= this.opts.stormSessions) return true;
    return this.isSlow && hints >= this.opts.busyHintsPerSecond;
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
    this.sessionsNow = new Set();
    this.sessionsBefore = new Set();
    this.bucketAt = this.hintAt;
  }
}
