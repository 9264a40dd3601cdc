// GatewayLoad: when the card store counts a Gateway as busy (issue 11, the cost of being watched).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { GatewayLoad } from "../../main/core/gateway-load.ts";

describe("GatewayLoad", () => {
  test("quick replies never make a Gateway busy, however many", () => {
    const load = new GatewayLoad();
    for (let i = 0; i < 1000; i++) load.sample(2 + (i % 5));
    assert.equal(load.busy, false);
    assert.equal(load.busySpells, 0);
  });

  test("replies far slower than the quickest one make it busy", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, smoothing: 0.25 });
    load.sample(2);
    load.sample(150); // smoothed 39.5: above max(30, 8 × 2)
    assert.equal(load.busy, true);
    assert.equal(load.busySpells, 1);
  });

  test("below the floor a Gateway is never busy, even at many times its quickest reply", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, smoothing: 1 });
    load.sample(0.5);
    load.sample(25); // 50 × the quickest, but under the floor
    assert.equal(load.busy, false);
    load.sample(31);
    assert.equal(load.busy, true);
  });

  test("a remote Gateway's slow but steady replies are its normal, not a storm", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, smoothing: 0.25 });
    for (let i = 0; i < 100; i++) load.sample(80 + (i % 3) * 20);
    assert.equal(load.busy, false, "steady 80–120 ms: 8 × 80 ms is the threshold");
    for (let i = 0; i < 20; i++) load.sample(900);
    assert.equal(load.busy, true);
  });

  test("busy until replies are quick again (hysteresis): one quick reply in a storm does not end it, three in a row do", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, smoothing: 0.25 });
    load.sample(2);
    for (let i = 0; i < 10; i++) load.sample(200);
    assert.equal(load.busy, true);
    load.sample(2);
    assert.equal(load.busy, true, "one quick reply");
    load.sample(200);
    load.sample(2);
    load.sample(2);
    assert.equal(load.busy, true, "two quick replies in a row, after a slow one");
    load.sample(2);
    assert.equal(load.busy, false, "three in a row: the storm is over");
    assert.equal(load.smoothed, 2, "the average starts again from the quick reply");
    load.sample(20);
    assert.equal(load.busy, false, "a reply under the threshold does not bring it back");
  });

  test("a connection made in the middle of a storm is busy above the ceiling, though it never saw the Gateway quick", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, busyCeilingMs: 400, smoothing: 0.25 });
    for (let i = 0; i < 5; i++) load.sample(300);
    assert.equal(load.busy, false, "300 ms replies from the start: slow, but not above the ceiling");
    for (let i = 0; i < 10; i++) load.sample(900);
    assert.equal(load.busy, true);
  });

  test("the roster's reads at connect only say how quick the Gateway can be", () => {
    const load = new GatewayLoad({ busyFloorMs: 30, busyFactor: 8, busyCeilingMs: 400, smoothing: 0.25 });
    load.noteQuickest(2);
    load.noteQuickest(5_000); // a read queued behind seven others: no sign of a storm
    assert.equal(load.smoothed, null);
    assert.equal(load.busy, false);
    load.sample(150); // the first change-driven read, already in a storm of writes
    load.sample(150);
    assert.equal(load.busy, true, "far slower than the quickest read of the roster");
  });

  test("reset forgets the old connection: a new one starts quiet", () => {
    const load = new GatewayLoad({ smoothing: 1 });
    load.sample(1);
    load.sample(500);
    assert.equal(load.busy, true);
    load.reset();
    assert.equal(load.busy, false);
    assert.equal(load.smoothed, null);
    load.sample(40); // the new connection's quickest so far: not busy against itself
    assert.equal(load.busy, false);
  });

  test("nonsense samples are ignored", () => {
    const load = new GatewayLoad();
    load.sample(Number.NaN);
    load.sample(-5);
    load.sample(Number.POSITIVE_INFINITY);
    assert.equal(load.smoothed, null);
  });
});
