// G3: capped exponential backoff with jitter; retry hints clamped to 100–2000 ms.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { backoffDelay, DEFAULT_BACKOFF, hintedDelay, type BackoffPolicy } from "../../main/core/backoff.ts";

const NO_JITTER: BackoffPolicy = { ...DEFAULT_BACKOFF, jitter: 0 };
const mid = () => 0.5;

describe("backoffDelay", () => {
  test("defaults: 1 s doubling to 30 s (docs/gateway.md §3)", () => {
    assert.deepEqual(DEFAULT_BACKOFF, { initialMs: 1000, maxMs: 30_000, multiplier: 2, jitter: 0.2 });
  });

  test("grows exponentially from initialMs", () => {
    const delays = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, NO_JITTER, mid));
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000]);
    // a centred random with jitter gives the same values
    assert.deepEqual(
      [1, 2, 3].map((n) => backoffDelay(n, DEFAULT_BACKOFF, mid)),
      [1000, 2000, 4000],
    );
  });

  test("caps at maxMs", () => {
    assert.equal(backoffDelay(6, NO_JITTER, mid), 30_000);
    assert.equal(backoffDelay(50, NO_JITTER, mid), 30_000);
    assert.equal(backoffDelay(10_000, NO_JITTER, mid), 30_000, "no overflow to Infinity/NaN");
  });

  test("attempt 0 or below counts as the first", () => {
    assert.equal(backoffDelay(0, NO_JITTER), 1000);
    assert.equal(backoffDelay(-3, NO_JITTER), 1000);
  });

  test("jitter stays within ±jitter of the (capped) base", () => {
    const policy: BackoffPolicy = { initialMs: 1000, maxMs: 30_000, multiplier: 2, jitter: 0.2 };
    assert.equal(
      backoffDelay(1, policy, () => 0),
      800,
    );
    assert.equal(
      backoffDelay(1, policy, () => 0.999999),
      1200,
    );
    assert.equal(
      backoffDelay(3, policy, () => 0),
      3200,
    );
    assert.equal(
      backoffDelay(3, policy, () => 0.25),
      3600,
    );
    assert.equal(
      backoffDelay(20, policy, () => 0),
      24_000,
    );
    for (let attempt = 1; attempt <= 12; attempt++) {
      const base = Math.min(30_000, 1000 * 2 ** (attempt - 1));
      for (const r of [0, 0.1, 0.33, 0.5, 0.77, 0.999]) {
        const d = backoffDelay(attempt, policy, () => r);
        assert.ok(d >= base * 0.8 && d <= base * 1.2, `attempt ${attempt} r=${r}: ${d}`);
      }
    }
  });

  test("uses the random source it is given (different values give different delays)", () => {
    const a = backoffDelay(4, DEFAULT_BACKOFF, () => 0.1);
    const b = backoffDelay(4, DEFAULT_BACKOFF, () => 0.9);
    assert.ok(a < b);
  });

  test("custom tiny policy", () => {
    const tiny: BackoffPolicy = { initialMs: 5, maxMs: 40, multiplier: 3, jitter: 0 };
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffDelay(n, tiny)),
      [5, 15, 40, 40],
    );
  });

  test("never negative", () => {
    assert.ok(backoffDelay(1, { initialMs: 10, maxMs: 10, multiplier: 2, jitter: 5 }, () => 0) >= 0);
  });
});

describe("hintedDelay", () => {
  test("no hint → undefined", () => {
    assert.equal(hintedDelay(undefined), undefined);
    assert.equal(hintedDelay(Number.NaN), undefined);
    assert.equal(hintedDelay(Number.POSITIVE_INFINITY), undefined);
  });
  test("clamps to 100–2000 ms", () => {
    assert.equal(hintedDelay(0), 100);
    assert.equal(hintedDelay(-50), 100);
    assert.equal(hintedDelay(99), 100);
    assert.equal(hintedDelay(100), 100);
    assert.equal(hintedDelay(500), 500);
    assert.equal(hintedDelay(2000), 2000);
    assert.equal(hintedDelay(2001), 2000);
    assert.equal(hintedDelay(60_000), 2000);
  });
});
