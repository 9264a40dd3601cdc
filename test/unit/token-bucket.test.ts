// The token bucket behind the read budget and the host's message rate.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TokenBucket } from "../../main/core/cards/token-bucket.ts";

test("a full burst at once, then one token per 1/rate seconds, never more than the burst", () => {
  const b = new TokenBucket(10, 3, 0);
  assert.deepEqual([b.take(0), b.take(0), b.take(0), b.take(0)], [true, true, true, false]);
  assert.equal(b.msUntilNext(), 100, "the next token is due after 1/rate");
  assert.equal(b.take(50), false, "half a token is not a token");
  assert.equal(b.msUntilNext(), 50);
  assert.equal(b.take(100), true);
  assert.equal(b.take(10_000), true, "a long pause refills only up to the burst");
  assert.deepEqual([b.take(10_000), b.take(10_000), b.take(10_000)], [true, true, false]);
});

test("msUntilNext is 0 while a token is there", () => {
  const b = new TokenBucket(1, 2, 0);
  b.take(0);
  assert.equal(b.msUntilNext(), 0);
});

test("a bucket that holds more than one token has no wait either", () => {
  const b = new TokenBucket(1, 3, 0);
  assert.equal(b.msUntilNext(), 0, "a fresh bucket is full");
  b.take(0);
  assert.equal(b.msUntilNext(), 0, "two tokens left");
});
