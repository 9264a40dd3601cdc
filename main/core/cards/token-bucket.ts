// A token bucket: `rate` tokens a second sustained, at most `burst` at once. Used wherever a
// peer must not set our pace: reads a Gateway's hints cause, messages a page socket sends.
export class TokenBucket {
  private readonly rate: number;
  private readonly burst: number;
  private tokens: number;
  private at: number;

  constructor(rate: number, burst: number, now: number) {
    this.rate = rate;
    this.burst = burst;
    this.tokens = burst;
    this.at = now;
  }

  /** Takes one token if one is there at `now` (ms, monotonic). */
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.rate) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Ms from the last `take` until the next token is due (0 when one is there). */
  msUntilNext(): number {
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.rate);
  }
}
