// GatewayLoad: when the card store counts a Gateway as busy with card writes (issue 11, the cost
// of being watched): slow replies to our reads AND a storm of change hints.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { GatewayLoad, type GatewayLoadOptions } from "../../main/core/cards/gateway-load.ts";

/** A gauge on a clock that stands still unless the test moves it. */
function gauge(opts: Partial<GatewayLoadOptions> = {}) {
  const clock = { at: 0 };
  const load = new GatewayLoad(
    { busyFloorMs: 30, busyFactor: 8, busyCeilingMs: 400, smoothing: 0.25, busyHintsPerSecond: 100, ...opts },
    () => clock.at,
  );
  /** `n` hints spread evenly over `ms`, round-robin over `sessions` sessions. */
  const hints = (n: number, ms = 1_000, sessions = 1) => {
    for (let i = 0; i < n; i++) {
      clock.at += ms / n;
      load.noteHint(`agent:main:s${i % sessions}`);
    }
  };
  return { load, clock, hints };
}

describe("GatewayLoad: slow replies", () => {
  test("quick replies are never slow, however many", () => {
    const { load } = gauge();
    for (let i = 0; i < 1000; i++) load.sample(2 + (i % 5));
    assert.equal(load.slow, false);
  });

  test("replies far slower than the quickest one are slow", () => {
    const { load } = gauge();
    load.sample(2);
    load.sample(150); // smoothed 39.5: above max(30, 8 × 2)
    assert.equal(load.slow, true);
  });

  test("below the floor replies are never slow, even at many times the quickest", () => {
    const { load } = gauge({ smoothing: 1 });
    load.sample(0.5);
    load.sample(25); // 50 × the quickest, but under the floor
    assert.equal(load.slow, false);
    load.sample(31);
    assert.equal(load.slow, true);
  });

  test("a far Gateway's slow but steady replies are its normal", () => {
    const { load } = gauge();
    for (let i = 0; i < 100; i++) load.sample(40 + (i % 3) * 10);
    assert.equal(load.slow, false, "steady 40–60 ms: 8 × 40 ms is the threshold");
    for (let i = 0; i < 20; i++) load.sample(900);
    assert.equal(load.slow, true);
  });

  test("a connection made in the middle of a storm is slow above the ceiling, though it never saw the Gateway quick", () => {
    const { load } = gauge();
    for (let i = 0; i < 5; i++) load.sample(300);
    assert.equal(load.slow, false, "300 ms replies from the start: under the ceiling");
    for (let i = 0; i < 10; i++) load.sample(900);
    assert.equal(load.slow, true);
  });

  test("the roster's reads at connect only say how quick the Gateway can be", () => {
    const { load } = gauge();
    load.noteQuickest(2);
    load.noteQuickest(5_000); // a read queued behind seven others: no sign of a storm
    assert.equal(load.smoothed, null);
    assert.equal(load.slow, false);
    load.sample(150); // the first change-driven read, already in a storm of writes
    load.sample(150);
    assert.equal(load.slow, true, "far slower than the quickest read of the roster");
  });

  test("slow until replies are quick again (hysteresis): one quick reply does not end it, three in a row do", () => {
    const { load } = gauge();
    load.sample(2);
    for (let i = 0; i < 10; i++) load.sample(200);
    assert.equal(load.slow, true);
    load.sample(2);
    assert.equal(load.slow, true, "one quick reply");
    load.sample(200);
    load.sample(2);
    load.sample(2);
    assert.equal(load.slow, true, "two quick replies in a row, after a slow one");
    load.sample(2);
    assert.equal(load.slow, false, "three in a row: the storm is over");
    assert.equal(load.smoothed, 2, "the average starts again from the quick reply");
    load.sample(20);
    assert.equal(load.slow, false, "a reply under the threshold does not bring it back");
  });

  test("the first reply is the average; later ones move it by the smoothing weight", () => {
    const { load } = gauge();
    load.sample(40);
    assert.equal(load.smoothed, 40);
    load.sample(80);
    assert.equal(load.smoothed, 50, "40 + 0.25 × (80 − 40)");
  });

  test("slow only when the average exceeds the threshold, not when it reaches it", () => {
    const { load } = gauge({ smoothing: 1 });
    load.sample(2); // threshold max(30, 8 × 2) = 30
    load.sample(30);
    assert.equal(load.slow, false);
    load.sample(31);
    assert.equal(load.slow, true);
  });

  test("a 0 ms reply is a measurement like any other", () => {
    const { load } = gauge();
    load.sample(0);
    assert.equal(load.smoothed, 0);
    for (let i = 0; i < 10; i++) load.sample(40);
    assert.equal(load.slow, true, "against a quickest of 0 ms the floor (30 ms) is the threshold");
  });

  test("an average that falls below half the threshold ends a slow spell at once", () => {
    const { load } = gauge({ smoothing: 1 });
    load.sample(2); // threshold 30
    load.sample(200);
    assert.equal(load.slow, true);
    load.sample(10);
    assert.equal(load.slow, false, "one reply, but the average (10 ms) is under 15 ms");
  });

  test("replies at exactly half the threshold or above never end a slow spell, however many", () => {
    const { load } = gauge({ smoothing: 1 });
    load.sample(2); // threshold 30, half of it 15
    load.sample(200);
    for (let i = 0; i < 10; i++) load.sample(15);
    assert.equal(load.slow, true, "15 ms is not below half of 30 ms");
    for (let i = 0; i < 10; i++) load.sample(45);
    assert.equal(load.slow, true, "45 ms is above the threshold");
  });

  test("nonsense samples are ignored", () => {
    const { load } = gauge();
    load.sample(Number.NaN);
    load.sample(-5);
    load.sample(Number.POSITIVE_INFINITY);
    assert.equal(load.smoothed, null);
  });

  test("nonsense round trips at connect are ignored too; 0 ms is not nonsense", () => {
    const { load } = gauge();
    load.noteQuickest(Number.NaN);
    load.noteQuickest(-1);
    for (let i = 0; i < 20; i++) load.sample(40 + (i % 3) * 10);
    assert.equal(load.slow, false, "the quickest is still the 40 ms reply: threshold 320 ms");
    load.noteQuickest(0);
    for (let i = 0; i < 20; i++) load.sample(40 + (i % 3) * 10);
    assert.equal(load.slow, true, "against a quickest of 0 ms the floor (30 ms) is the threshold");
  });

  test("the default clock is the monotonic one", () => {
    const load = new GatewayLoad();
    for (let i = 0; i < 300; i++) load.noteHint(`agent:main:s${i % 50}`);
    assert.ok(load.hintsPerSecond() > 250, `${load.hintsPerSecond()} hints/s just after 300 hints`);
    assert.equal(load.busy, true, "a burst across 50 sessions is a storm");
  });
});

describe("GatewayLoad: busy = slow replies in a storm of hints", () => {
  function slowGauge() {
    const g = gauge();
    g.load.sample(2);
    for (let i = 0; i < 5; i++) g.load.sample(200);
    assert.equal(g.load.slow, true);
    return g;
  }

  test("slow replies with few hints are not busy: a loaded machine reading one card at a time is never paced", () => {
    const { load, hints } = slowGauge();
    hints(30);
    assert.equal(load.busy, false, "30 hints a second");
  });

  test("slow replies with exactly the hint rate named are busy; one hint fewer is not", () => {
    const { load, hints } = slowGauge();
    hints(99, 0);
    assert.equal(load.busy, false, "99 hints a second, threshold 100");
    hints(1, 0);
    assert.equal(load.busy, true, "100 hints a second");
  });

  test("slow replies with hundreds of hints a second are busy", () => {
    const { load, hints } = slowGauge();
    hints(300);
    assert.ok(load.hintsPerSecond() > 150 && load.hintsPerSecond() < 300, `${load.hintsPerSecond()} hints/s`);
    assert.equal(load.busy, true);
  });

  test("one card changing hundreds of times a second, with quick replies, is not paced (the person watches that one)", () => {
    const { load, hints } = gauge();
    for (let i = 0; i < 20; i++) load.sample(3);
    hints(500);
    assert.equal(load.busy, false);
  });

  test("when the hints stop, busy ends within a few seconds even with no reply to measure", () => {
    const { load, clock, hints } = slowGauge();
    hints(300);
    assert.equal(load.busy, true);
    clock.at += 2_000;
    assert.equal(load.busy, false, `${load.hintsPerSecond().toFixed(1)} hints/s two seconds later`);
  });

  test("reset forgets the old connection: a new one starts quiet", () => {
    const { load, hints } = slowGauge();
    hints(300);
    assert.equal(load.busy, true);
    load.reset();
    assert.equal(load.busy, false);
    assert.equal(load.slow, false);
    assert.equal(load.smoothed, null);
    assert.equal(load.hintsPerSecond(), 0);
    load.sample(40); // the new connection's quickest so far: not slow against itself
    assert.equal(load.slow, false);
  });
});

describe("GatewayLoad: busy = a storm of hints across sessions, however quick the replies", () => {
  function quickGauge() {
    const g = gauge();
    for (let i = 0; i < 20; i++) g.load.sample(3);
    return g;
  }

  test("300 hints a second across 50 sessions is a storm", () => {
    const { load, hints } = quickGauge();
    hints(300, 1_000, 50);
    assert.equal(load.sessionsPerSecond(), 50);
    assert.equal(load.busy, true);
  });

  test("exactly the storm's hint rate across exactly its number of sessions is a storm", () => {
    const { load, hints } = quickGauge();
    hints(49, 0, 5);
    assert.equal(load.busy, false, "49 hints a second");
    hints(1, 0, 5);
    assert.equal(load.hintsPerSecond(), 50);
    assert.equal(load.sessionsPerSecond(), 5);
    assert.equal(load.busy, true);
  });

  test("the same hints on 4 sessions are not a storm", () => {
    const { load, hints } = quickGauge();
    hints(300, 1_000, 4);
    assert.equal(load.busy, false);
  });

  test("50 sessions changing now and then (40 hints a second) are not a storm", () => {
    const { load, hints } = quickGauge();
    hints(40, 1_000, 50);
    assert.equal(load.busy, false);
  });

  test("the storm ends a few seconds after the hints stop", () => {
    const { load, clock, hints } = quickGauge();
    hints(300, 1_000, 50);
    assert.equal(load.busy, true);
    clock.at += 2_500;
    assert.equal(load.sessionsPerSecond(), 0);
    assert.equal(load.busy, false);
  });

  test("sessions count within about a second: 50 sessions hinted once each over ten seconds are not 50 at once", () => {
    const { load, hints } = quickGauge();
    hints(50, 10_000, 50);
    assert.ok(load.sessionsPerSecond() <= 10, `${load.sessionsPerSecond()} sessions`);
  });

  test("the sessions of the last second still count when the hints come seconds apart and nobody asked in between", () => {
    const { load, hints } = quickGauge();
    hints(50, 10_000, 50);
    const n = load.sessionsPerSecond();
    assert.ok(n >= 4 && n <= 6, `${n} sessions: one hint every 200 ms`);
  });
});
