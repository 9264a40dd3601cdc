// Issue 12: the local card history and the timing derived from it, on a fake clock.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CardHistory, type CardHistoryData } from "../../common/card-history.ts";
import { deriveTiming, estimateRange, stepDuration } from "../../common/card-timing.ts";
import { deriveCard } from "../../common/card.ts";
import type { CardEntry, StepStatus } from "../../common/model.ts";

const MIN = 60_000;
const T0 = 1_800_000_000_000;
const GW = "gw";
const KEY = "agent:main:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";

const letters: Record<string, StepStatus> = { p: "pending", i: "in_progress", c: "completed" };

/** A confirmed (live) entry whose steps are `Step 1..n` with statuses from a string like "cip". */
function entry(revision: number | null, statuses: string, at: number, patch: Partial<CardEntry> = {}): CardEntry {
  const card =
    revision === null
      ? null
      : {
          sessionKey: KEY,
          revision,
          updatedAt: at,
          markdown: "a private note",
          steps: [...statuses].map((l, i) => ({ step: `Step ${i + 1}`, status: letters[l]! })),
        };
  return {
    gatewayId: GW,
    sessionKey: KEY,
    agentId: null,
    title: "t",
    card,
    derived: card ? deriveCard(card, null) : null,
    freshness: "live",
    confirmedAt: at,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
    ...patch,
  };
}

/** Feeds (revision, statuses, minute) triples; the card's absence is confirmed first. */
function watched(rows: [number, string, number][], fromStart = true): CardHistory {
  const h = new CardHistory();
  if (fromStart) h.observe(entry(null, "", T0 - MIN));
  for (const [rev, st, m] of rows) h.observe(entry(rev, st, T0 + m * MIN));
  return h;
}

const open = (h: CardHistory): CardHistoryData => h.current(GW, KEY, null)!;
const timing = (h: CardHistory, state: "active" | "paused" | "complete" = "active", nowMin = 100) =>
  deriveTiming(open(h), state, T0 + nowMin * MIN);

describe("card history", () => {
  test("records each confirmed revision once: its confirm time and the step statuses, never the note", () => {
    const h = watched([
      [1, "ip", 0],
      [1, "ip", 3],
      [2, "ci", 10],
    ]);
    const data = open(h);
    assert.deepEqual(
      data.records.map((r) => [r.revision, r.statuses, r.at]),
      [
        [1, "ip", T0],
        [2, "ci", T0 + 10 * MIN],
      ],
    );
    assert.equal(JSON.stringify(h.data()).includes("private note"), false);
    assert.equal(data.fromStart, true);
  });

  test("offline, stale, hidden and failed entries do not confirm anything", () => {
    const h = watched([[1, "ip", 0]]);
    h.observe(entry(2, "ci", T0 + MIN, { freshness: "offline" }));
    h.observe(entry(2, "ci", T0 + MIN, { freshness: "stale" }));
    h.observe(entry(2, "ci", T0 + MIN, { hidden: true }));
    h.observe(entry(2, "ci", T0 + MIN, { error: { code: "X", message: "x" } }));
    assert.equal(open(h).records.length, 1);
  });

  test("a clear ends the history and a new card starts a new one", () => {
    const h = watched([
      [1, "ip", 0],
      [2, "ci", 5],
    ]);
    h.observe(entry(null, "", T0 + 6 * MIN));
    assert.equal(h.current(GW, KEY, null), null);
    h.observe(entry(1, "ip", T0 + 7 * MIN));
    const all = h.all(GW, KEY, null);
    assert.equal(all.length, 2);
    assert.equal(all[0]!.endedAt, T0 + 6 * MIN);
    assert.deepEqual(
      all[1]!.records.map((r) => r.revision),
      [1],
    );
    assert.equal(all[1]!.fromStart, true, "the clear was confirmed, so the new card was watched from its creation");
  });

  test("a revision-1 announcement seen live marks the card as watched from its creation", () => {
    const announced = new CardHistory();
    announced.noteCreated(GW, KEY, null);
    announced.observe(entry(1, "ip", T0));
    assert.equal(open(announced).fromStart, true);
    const unannounced = new CardHistory();
    unannounced.observe(entry(1, "ip", T0));
    assert.equal(open(unannounced).fromStart, false, "it may have existed before we looked");
    const offline = new CardHistory();
    offline.noteCreated(GW, KEY, null);
    offline.unwatched(GW, T0 - 1);
    offline.observe(entry(1, "ip", T0));
    assert.equal(open(offline).fromStart, false, "an announcement before a disconnect no longer counts");
  });

  test("a lower revision (a reset) is another card", () => {
    const h = watched([
      [1, "ip", 0],
      [4, "ci", 5],
    ]);
    h.observe(entry(1, "ip", T0 + 6 * MIN));
    assert.equal(h.all(GW, KEY, null).length, 2);
  });

  test("a Gateway going away then coming back is recorded as a gap, from when it went", () => {
    const h = watched([[1, "ip", 0]]);
    h.unwatched(GW, T0 + 2 * MIN);
    h.unwatched("other", T0 + 3 * MIN);
    h.observe(entry(1, "ip", T0 + 9 * MIN));
    const last = open(h).records.at(-1)!;
    assert.equal(last.gapFrom, T0 + 2 * MIN, "the same revision confirmed after the gap is still recorded, with the gap");
    assert.equal(open(h).unwatchedSince, null);
  });

  test("bounded: oldest revisions of a card first, then the cards idle longest", () => {
    const h = new CardHistory([], { maxRecordsPerCard: 3, maxCards: 2 });
    h.observe(entry(null, "", T0));
    for (let rev = 1; rev <= 5; rev += 1) h.observe(entry(rev, rev === 5 ? "ci" : "ip", T0 + rev * MIN));
    const data = open(h);
    assert.deepEqual(
      data.records.map((r) => r.revision),
      [3, 4, 5],
    );
    assert.deepEqual(data.records[0]!.steps, ["Step 1", "Step 2"], "the oldest kept record still names the steps");
    assert.equal(data.fromStart, false, "what came before the oldest kept record is unknown");
    for (const key of ["agent:a:x", "agent:b:x"]) h.observe({ ...entry(1, "i", T0 + 10 * MIN), sessionKey: key });
    assert.equal(h.data().length, 2);
    assert.equal(h.current(GW, KEY, null), null, "the card idle longest was dropped");
  });

  test("histories loaded from disk count as unwatched since their last record", () => {
    const h = watched([
      [1, "ip", 0],
      [2, "ci", 4],
    ]);
    const reloaded = new CardHistory(structuredClone(h.data()));
    assert.equal(open(reloaded).unwatchedSince, T0 + 4 * MIN);
  });
});

describe("derived timing", () => {
  test("steps seen starting and finishing get both times; the current step runs since its start", () => {
    const h = watched([
      [1, "ipp", 0],
      [2, "cip", 12],
      [3, "cci", 20],
    ]);
    const t = timing(h);
    assert.deepEqual(
      t.steps.map((s) => [s.step, s.startedAt, s.finishedAt]),
      [
        ["Step 1", T0, T0 + 12 * MIN],
        ["Step 2", T0 + 12 * MIN, T0 + 20 * MIN],
        ["Step 3", T0 + 20 * MIN, null],
      ],
    );
    assert.equal(stepDuration(t.steps[0]!), 12 * MIN);
    assert.equal(t.currentStepSince, T0 + 20 * MIN);
    assert.equal(t.lastChangeAt, T0 + 20 * MIN);
  });

  test("a step seen completed without being seen in progress has no duration", () => {
    const h = watched([
      [1, "ipp", 0],
      [2, "ccp", 5],
    ]);
    const t = timing(h);
    assert.equal(stepDuration(t.steps[0]!), 5 * MIN);
    assert.equal(t.steps[1]!.startedAt, null);
    assert.equal(t.steps[1]!.finishedAt, T0 + 5 * MIN);
    assert.equal(stepDuration(t.steps[1]!), null);
  });

  test("a card first seen already under way has no start for what was under way", () => {
    const t = timing(
      watched(
        [
          [7, "cip", 0],
          [8, "cci", 6],
        ],
        false,
      ),
    );
    assert.equal(t.steps[1]!.startedAt, null, "step 2 was in progress before we looked");
    assert.equal(t.steps[1]!.finishedAt, T0 + 6 * MIN);
    assert.equal(t.steps[2]!.startedAt, T0 + 6 * MIN);
    assert.deepEqual(t.gaps, [{ from: null, to: T0 }]);
  });

  test("a gap is never work time: what ran across it or changed in it has no time", () => {
    const h = watched([[1, "iip", 0]]);
    h.unwatched(GW, T0 + 2 * MIN);
    // Step 1 finished and step 3 started while nothing was watched; step 2 ran across the gap.
    h.observe(entry(2, "cii", T0 + 30 * MIN));
    const t = timing(h);
    assert.deepEqual(
      t.steps.map((s) => [s.startedAt, s.finishedAt]),
      [
        [null, null],
        [null, null],
        [null, null],
      ],
    );
    assert.equal(t.currentStepSince, null);
    assert.equal(t.lastChangeAt, null, "the change happened at an unknown time in the gap");
    assert.deepEqual(t.gaps, [{ from: T0 + 2 * MIN, to: T0 + 30 * MIN }]);
    h.observe(entry(3, "cci", T0 + 40 * MIN));
    assert.equal(stepDuration(timing(h).steps[1]!), null, "its start was in the gap, so its duration is unknown");
  });

  test("the same revision across a gap keeps the time of the change", () => {
    const h = watched([
      [1, "ip", 0],
      [2, "ci", 5],
    ]);
    h.unwatched(GW, T0 + 6 * MIN);
    h.observe(entry(2, "ci", T0 + 9 * MIN));
    assert.equal(timing(h).lastChangeAt, T0 + 5 * MIN);
  });

  test("steps are matched by text when the plan is rewritten", () => {
    const h = new CardHistory();
    h.observe(entry(null, "", T0 - MIN));
    h.observe(entry(1, "ip", T0));
    const e = entry(2, "ci", T0 + 4 * MIN);
    e.card!.steps.unshift({ step: "Added first", status: "completed" });
    h.observe(e);
    const t = deriveTiming(open(h), "active", T0 + 5 * MIN);
    assert.equal(t.steps[1]!.step, "Step 1");
    assert.equal(stepDuration(t.steps[1]!), 4 * MIN);
    assert.equal(stepDuration(t.steps[0]!), null);
  });

  test("the whole plan's time is known only for a card watched from creation to completion without a gap", () => {
    const full = watched([
      [1, "ip", 0],
      [2, "ci", 10],
      [3, "cc", 64],
    ]);
    assert.equal(timing(full, "complete").planMs, 64 * MIN);
    assert.equal(
      timing(
        watched(
          [
            [1, "ip", 0],
            [2, "ci", 10],
            [3, "cc", 64],
          ],
          false,
        ),
        "complete",
      ).planMs,
      null,
    );
    const gapped = watched([
      [1, "ip", 0],
      [2, "ci", 10],
    ]);
    gapped.unwatched(GW, T0 + 20 * MIN);
    gapped.observe(entry(3, "cc", T0 + 64 * MIN));
    assert.equal(timing(gapped, "complete").planMs, null);
    const midGap = watched([[1, "ip", 0]]);
    midGap.unwatched(GW, T0 + MIN);
    midGap.observe(entry(2, "ci", T0 + 10 * MIN));
    midGap.observe(entry(3, "cc", T0 + 64 * MIN));
    assert.equal(timing(midGap, "complete").planMs, null, "completion was seen, but the plan's time spans a gap");
  });

  test("repeated step texts are told apart by their order", () => {
    const h = new CardHistory();
    h.observe(entry(null, "", T0 - MIN));
    const named = (rev: number, st: string, m: number): CardEntry => {
      const e = entry(rev, st, T0 + m * MIN);
      e.card!.steps = e.card!.steps.map((s) => ({ ...s, step: "Run tests" }));
      return e;
    };
    h.observe(named(1, "ip", 0));
    h.observe(named(2, "ci", 3));
    h.observe(named(3, "cc", 8));
    assert.deepEqual(timing(h, "complete").steps.map(stepDuration), [3 * MIN, 5 * MIN]);
  });
});

describe("estimate of the time left", () => {
  const two = (): CardHistory =>
    watched([
      [1, "ippp", 0],
      [2, "cipp", 10],
      [3, "ccip", 30],
    ]);

  test("appears only with two steps completed with known durations", () => {
    assert.equal(
      timing(
        watched([
          [1, "ippp", 0],
          [2, "cipp", 10],
        ]),
        "active",
        12,
      ).estimate,
      null,
    );
    const t = timing(two(), "active", 35);
    // Durations 10 and 20 min; step 3 running 5 min; then one more step.
    assert.deepEqual(t.estimate, { minMs: 5 * MIN + 10 * MIN, maxMs: 15 * MIN + 20 * MIN });
  });

  test("is gone when the card is paused, complete, cleared or not watched", () => {
    assert.equal(timing(two(), "paused", 35).estimate, null);
    assert.equal(timing(two(), "complete", 35).estimate, null);
    const cleared = two();
    const data = open(cleared);
    cleared.observe(entry(null, "", T0 + 36 * MIN));
    assert.equal(deriveTiming(data, "active", T0 + 37 * MIN).estimate, null);
    const offline = two();
    offline.unwatched(GW, T0 + 31 * MIN);
    assert.equal(timing(offline, "active", 35).estimate, null);
  });

  test("needs no gap from the first measured step until now", () => {
    const h = watched([
      [1, "ippp", 0],
      [2, "cipp", 10],
      [3, "ccip", 30],
    ]);
    h.unwatched(GW, T0 + 31 * MIN);
    h.observe(entry(3, "ccip", T0 + 40 * MIN));
    // Step 4 is seen starting after the gap, steps 1 and 2 were measured before it.
    h.observe(entry(4, "ccci", T0 + 45 * MIN));
    assert.equal(timing(h).currentStepSince, T0 + 45 * MIN);
    assert.equal(timing(h, "active", 46).estimate, null);
  });

  test("a running step past the longest measured one may take up to another longest one", () => {
    assert.deepEqual(estimateRange([10 * MIN, 20 * MIN], 2, 25 * MIN), { minMs: 10 * MIN, maxMs: 40 * MIN });
    assert.deepEqual(estimateRange([10 * MIN, 20 * MIN], 1, 0), { minMs: 10 * MIN, maxMs: 20 * MIN });
  });
});
