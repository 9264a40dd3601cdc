// Issue 12: the estimate checked on recorded card histories (scripts/recorded-estimates.ts), on
// hand-made recordings whose answers are worked out here, and on the recording kept in
// test/fixtures/recorded-histories.json (made by scripts/record-histories.ts on a real Gateway).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { deriveTiming } from "../../common/card-timing.ts";
import {
  evaluateRecorded,
  historyAt,
  parseRecordedSet,
  recordedReport,
  stepsTimedSinceGap,
  type RecordedCard,
  type RecordedSet,
} from "../../scripts/recorded-estimates.ts";

const root = join(import.meta.dirname, "..", "..");
const set = (...cards: RecordedCard[]): RecordedSet => ({ msPerMinute: 1, recordedOn: "2026-12-03", how: "by hand", cards });
/** Records from [at, statuses] pairs, revisions counting up. */
const records = (...rs: [number, string, number?][]): RecordedCard["records"] =>
  rs.map(([at, statuses, gapFrom], i) => ({ at, revision: i + 1, statuses, ...(gapFrom !== undefined ? { gapFrom } : {}) }));

// Steps of 10, 20, 15 and 15: from the third step on, every range holds the time really left.
const steady: RecordedCard = {
  card: "steady",
  scenario: "by hand",
  fromStart: true,
  records: records([0, "ippp"], [10, "cipp"], [30, "ccip"], [45, "ccci"], [60, "cccc"]),
  states: [
    { at: 0, state: "active" },
    { at: 60, state: "complete" },
  ],
};

describe("recorded histories: the evaluator", () => {
  test("replays the history the app held at a moment and compares the range with the time that really remained", () => {
    const h = historyAt(steady, 37)!;
    assert.deepEqual(
      h.records.map((r) => r.statuses),
      ["ippp", "cipp", "ccip"],
      "only what was confirmed by then",
    );
    // Steps of 10 and 20 done, step 3 running for 7: 3–13 for it, 10–20 for step 4.
    assert.deepEqual(deriveTiming(h, "active", 37).estimate, { minMs: 13, maxMs: 33 });
    const t = evaluateRecorded(set(steady), { perInterval: 8 });
    assert.deepEqual(
      [t.cards, t.moments, t.withEstimate, t.inside, t.below, t.above],
      [1, 32, 16, 16, 0, 0],
      "no estimate during the first two steps; inside for every moment of the last two",
    );
  });

  test("a last step far longer than the others is counted above the range", () => {
    const slow: RecordedCard = {
      ...steady,
      records: records([0, "ippp"], [10, "cipp"], [30, "ccip"], [45, "ccci"], [300, "cccc"]),
      states: [
        { at: 0, state: "active" },
        { at: 300, state: "complete" },
      ],
    };
    const t = evaluateRecorded(set(slow), { perInterval: 8 });
    assert.equal(t.withEstimate, 16);
    assert.ok(t.above >= 12, `mostly above: ${JSON.stringify(t)}`);
    assert.equal(t.inside + t.above + t.below, t.withEstimate);
  });

  test("no estimate while the card is paused", () => {
    const paused: RecordedCard = {
      ...steady,
      states: [
        { at: 0, state: "active" },
        { at: 30, state: "paused" },
        { at: 45, state: "active" },
        { at: 60, state: "complete" },
      ],
    };
    const t = evaluateRecorded(set(paused), { perInterval: 8 });
    assert.deepEqual(t.paused, { moments: 8, withEstimate: 0 });
    assert.equal(t.withEstimate, 8, "only the moments of the last step, active again");
  });

  test("no estimate while the app was closed, nor after it until two steps were timed again", () => {
    const restarted: RecordedCard = {
      card: "restarted",
      scenario: "by hand",
      fromStart: true,
      // Closed from 35 to 50 while step 4 ran; step 5 is the only one timed after.
      records: records([0, "ipppp"], [10, "cippp"], [20, "ccipp"], [30, "cccip"], [50, "cccip", 35], [60, "cccci"], [70, "ccccc"]),
      states: [
        { at: 0, state: "active" },
        { at: 70, state: "complete" },
      ],
    };
    assert.equal(historyAt(restarted, 40)?.unwatchedSince, 35, "inside the gap nothing is watched");
    assert.equal(historyAt(restarted, 33)?.unwatchedSince, null);
    assert.equal(stepsTimedSinceGap(restarted, 65), 0);
    assert.equal(stepsTimedSinceGap(restarted, 75), 1);
    assert.equal(stepsTimedSinceGap(restarted, 25), null, "no gap yet");
    const t = evaluateRecorded(set(restarted), { perInterval: 40 });
    assert.ok(t.unwatched.moments > 0 && t.afterGap.moments === 80, JSON.stringify(t));
    assert.equal(t.unwatched.withEstimate, 0);
    assert.equal(t.afterGap.withEstimate, 0);
    assert.ok(t.withEstimate > 0, "before the gap, with steps 1 and 2 timed, there were estimates");
  });

  test("a recording that is not one is refused with what is wrong", () => {
    assert.throws(() => parseRecordedSet({ ...set(steady), msPerMinute: 0 }), /msPerMinute must be a positive number/);
    const backwards = { ...steady, records: records([10, "ip"], [5, "ci"]) };
    assert.throws(() => parseRecordedSet(set(backwards)), /card 0, record 1: times must be ms and in order/);
    const text = { ...steady, records: [{ at: 0, revision: 1, statuses: "Step 1" }] };
    assert.throws(() => parseRecordedSet(set(text)), /statuses of p, i, c/);
    assert.throws(() => parseRecordedSet({ ...set(steady), cards: [] }), /no cards/);
  });
});

describe("recorded histories: the kept recording", () => {
  const raw = readFileSync(join(root, "test", "fixtures", "recorded-histories.json"), "utf8");
  const recorded = parseRecordedSet(JSON.parse(raw));
  const t = evaluateRecorded(recorded);

  test("holds step statuses and times only: no step or note text, no session key", () => {
    assert.doesNotMatch(raw, /"(steps|step|markdown|sessionKey)"|agent:/);
  });

  test("exercises a pause and an app restart, and the rules hold on them", () => {
    assert.ok(t.paused.moments > 0, "a paused card was recorded");
    assert.ok(t.unwatched.moments > 0, "a gap was recorded");
    assert.ok(t.afterGap.moments > 0, "moments after the gap were recorded");
    assert.deepEqual([t.paused.withEstimate, t.unwatched.withEstimate, t.afterGap.withEstimate], [0, 0, 0]);
    assert.ok(t.withEstimate >= 100, `enough estimates to state a share: ${t.withEstimate}`);
  });

  test("docs/estimate.md states the figure this recording gives", () => {
    const doc = readFileSync(join(root, "docs", "estimate.md"), "utf8");
    const figure = /the range contained the real time left in ([\d.]+ %) of (\d+) estimates/.exec(recordedReport(recorded, t));
    assert.ok(figure);
    const [, share, count] = figure;
    assert.ok(doc.includes(`**${share}** of ${count} estimates`), `docs/estimate.md should quote "**${share}** of ${count} estimates"`);
  });
});
