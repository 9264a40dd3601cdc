// G3: capped exponential backoff with jitter, honouring the Gateway's retry hints.

export type BackoffPolicy = {
  initialMs: number;
  maxMs: number;
  multiplier: number;
  /** ± fraction of the delay, so many clients do not reconnect in lockstep. */
  jitter: number;
};

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 30_000, multiplier: 2, jitter: 0.2 };

/** Delay before retry number `attempt` (1-based), with `random` in [0, 1). */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.multiplier ** Math.max(0, attempt - 1));
  const spread = base * policy.jitter;
  return Math.min(policy.maxMs, Math.max(0, Math.round(base - spread + random() * 2 * spread)));
}

/** A server hint (retryAfterMs) wins, clamped to 100–2000 ms as the official client does. */
export function hintedDelay(retryAfterMs: number | undefined): number | undefined {
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs)) return undefined;
  return Math.min(2000, Math.max(100, retryAfterMs));
}
