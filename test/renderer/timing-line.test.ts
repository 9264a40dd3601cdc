// Issue 12: the card's timing line and timeline, as the pages word and measure them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CardTiming } from "../../common/model.ts";
import { agoText, elapsedText, positionText, sinceText, timingLineText, timingParts } from "../../renderer/lib/timing-line.ts";
import { finishedToday, segmentWeight, timeline } from "../../renderer/lib/timeline.ts";
import { card, endedRun, entry, steps, T0 } from "./fixtures.ts";

const MIN = 60_000;

function timing(extra: Partial<CardTiming> = {}): CardTiming {
  return {
    currentStepSince: T0 - 12 * MIN,
    lastChangeAt: T0,
    steps: [
      { step: "Step 1", status: "completed", startedAt: T0 - 20 * MIN, finishedAt: T0 - 12 * MIN },
      { step: "Step 2", status: "in_progress", startedAt: T0 - 12 * MIN, finishedAt: null },
      { step: "Step 3", status: "pending", startedAt: null, finishedAt: null },
    ],
    estimate: null,
    planMs: null,
    gaps: [],
    ...extra,
  };
}

describe("timing line words", () => {
  test("elapsed and ago round down to the minute", () => {
    assert.equal(elapsedText(59_999), "under a minute");
    assert.equal(elapsedText(12 * MIN + 59_000), "12 min");
    assert.equal(elapsedText(64 * MIN + 30_000), "1 h 4 min");
    assert.equal(agoText(30_000), "just now");
    assert.equal(agoText(3 * MIN + 10_000), "3 min ago");
    assert.equal(sinceText({ role: "running", at: T0 }, T0 + 12 * MIN), "running 12 min");
    assert.equal(sinceText({ role: "updated", at: T0 }, T0 + 3 * MIN), "updated 3 min ago");
    assert.equal(sinceText({ role: "updated", at: T0 + 5000 }, T0), "updated just now", "a clock behind the card is not negative");
  });

  test("position: the step in progress, else the next pending; complete says all done", () => {
    assert.equal(positionText(entry()), "Step 2 of 3");
    assert.equal(positionText(entry({ card: card({ steps: steps("completed", "pending", "pending") }) })), "Step 2 of 3");
    assert.equal(positionText(entry({ card: card({ steps: steps("completed", "completed") }) })), "All 2 steps done");
    assert.equal(positionText(entry({ card: card({ steps: [] }) })), null);
  });
});

describe("timing line parts", () => {
  test("Step 2 of 3 · running 12 min · updated 3 min ago", () => {
    const e = entry({ timing: timing() });
    assert.equal(timingLineText(timingParts(e), T0 + 3 * MIN), "Step 2 of 3 · running 15 min · updated 3 min ago");
    assert.equal(timingLineText(timingParts(e), T0), "Step 2 of 3 · running 12 min · updated just now");
  });

  test("the estimate stands beside the count when the core made one", () => {
    const e = entry({ timing: timing({ estimate: { minMs: 10 * MIN, maxMs: 20 * MIN } }) });
    assert.equal(timingLineText(timingParts(e), T0), "Step 2 of 3 · running 12 min · about 10–20 min left · updated just now");
  });

  test("no running time nor estimate when paused, offline or without a seen start", () => {
    const paused = entry({ run: endedRun("failed"), timing: timing({ estimate: { minMs: MIN, maxMs: 2 * MIN } }) });
    assert.equal(paused.derived?.state, "paused");
    assert.equal(timingLineText(timingParts(paused), T0), "Step 2 of 3 · updated just now");
    const off = entry({ freshness: "offline", timing: timing() });
    assert.equal(timingLineText(timingParts(off), T0), "Step 2 of 3 · updated just now");
    const unseen = entry({ timing: timing({ currentStepSince: null }) });
    assert.equal(timingLineText(timingParts(unseen), T0), "Step 2 of 3 · updated just now");
    assert.equal(timingLineText(timingParts(entry({ timing: null })), T0), "Step 2 of 3 · updated just now");
  });

  test("a complete card says how long the whole plan took", () => {
    const done = entry({ card: card({ steps: steps("completed", "completed", "completed") }), timing: timing({ planMs: 64 * MIN }) });
    assert.equal(timingLineText(timingParts(done), T0 + 2 * MIN), "All 3 steps done · took 1 h 4 min · updated 2 min ago");
  });

  test("no card, no line", () => {
    assert.deepEqual(timingParts(entry({ card: null, derived: null })), []);
  });
});

describe("timeline", () => {
  test("a segment per seen step, the running one measured to now, pending ones left out", () => {
    const tl = timeline(timing(), T0 + 3 * MIN);
    assert.deepEqual(
      tl.segments.map((s) => s.label),
      ["Step 1: 8 min", "Step 2: running 15 min"],
    );
    assert.equal(tl.totalMs, 23 * MIN);
    const [a, b] = tl.segments;
    assert.ok(a && b && segmentWeight(b, tl.totalMs) > segmentWeight(a, tl.totalMs), "the longer step is the longer segment");
  });

  test("the running step grows with the clock", () => {
    const before = timeline(timing(), T0);
    const later = timeline(timing(), T0 + 10 * MIN);
    assert.equal(later.totalMs - before.totalMs, 10 * MIN);
  });

  test("a step in progress on a paused or offline card is not measured", () => {
    const tl = timeline(timing(), T0 + 3 * MIN, false);
    assert.deepEqual(
      tl.segments.map((s) => s.label),
      ["Step 1: 8 min", "Step 2: not running now"],
    );
    assert.equal(tl.totalMs, 8 * MIN);
  });

  test("a gap sits where it fell and is no work time; a step without a seen start has no segment", () => {
    const t = timing({
      steps: [
        { step: "Install", status: "completed", startedAt: null, finishedAt: T0 - 30 * MIN },
        { step: "Build", status: "completed", startedAt: T0 - 30 * MIN, finishedAt: T0 - 25 * MIN },
        { step: "Test", status: "completed", startedAt: T0 - 5 * MIN, finishedAt: T0 - 2 * MIN },
      ],
      gaps: [
        { from: null, to: T0 - 40 * MIN },
        { from: T0 - 24 * MIN, to: T0 - 6 * MIN },
      ],
    });
    const tl = timeline(t, T0);
    assert.deepEqual(
      tl.segments.map((s) => s.label),
      ["Build: 5 min", "gap", "Test: 3 min"],
    );
    assert.equal(tl.totalMs, 8 * MIN);
  });

  test("a step of a second is still drawn", () => {
    const tl = timeline(
      timing({
        currentStepSince: null,
        steps: [
          { step: "a", status: "completed", startedAt: T0, finishedAt: T0 + 1000 },
          { step: "b", status: "completed", startedAt: T0 + 1000, finishedAt: T0 + 3_600_000 },
        ],
      }),
      T0,
    );
    assert.equal(tl.segments[0]!.label, "a: 1 s");
    assert.ok(segmentWeight(tl.segments[0]!, tl.totalMs) >= 0.02);
  });
});

describe("finished in the last day", () => {
  test("complete cards with a timed plan, newest first; older than a day left out", () => {
    const done = (title: string, at: number, planMs: number | null) =>
      entry({
        title,
        card: card({ steps: steps("completed", "completed") }),
        timing: timing({
          currentStepSince: null,
          lastChangeAt: at,
          steps: [{ step: "x", status: "completed", startedAt: at - MIN, finishedAt: at }],
          planMs,
        }),
      });
    const now = T0 + 25 * 60 * MIN;
    const list = finishedToday(
      [
        done("old", T0, 5 * MIN),
        done("new", now - MIN, 4 * MIN),
        done("mid", now - 60 * MIN, 65 * MIN),
        done("untimed", now, null),
        entry({ timing: timing() }),
      ],
      now,
    );
    assert.deepEqual(
      list.map((f) => `${f.title} ${f.took}`),
      ["new 4 min", "mid 1 h 5 min"],
    );
  });
});
