// The notification policy's decisions, each on its own (main/core/notifications/): milestone
// detection, throttle and coalescing, quiet hours, the away release and the notice text.
// The policy's scenarios stay in notification-policy*.test.ts.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import type { Milestone } from "../../common/contract.ts";
import type { CardEntry } from "../../common/model.ts";
import { dedupeKey, detect, stillTrue, unknownCard, type Known } from "../../main/core/notifications/milestones.ts";
import { inWindow, merge, sessionSlotFree, slotFreesAt, type Pending } from "../../main/core/notifications/coalesce.ts";
import { isQuiet, msUntilQuietEnd, parseClock } from "../../main/core/notifications/quiet-hours.ts";
import { releaseOnBack } from "../../main/core/notifications/away-summary.ts";
import { noticeBody, noticeTitle } from "../../main/core/notifications/notice-text.ts";
import { card, endedRun, entry, steps, T0 } from "../renderer/fixtures.ts";

/** What the policy knows after accepting `e`. */
function knowing(e: CardEntry): Known {
  return { ...unknownCard(), card: e.card, derived: e.derived, last: e.card, entry: e };
}

const at = (n: number, st: ReturnType<typeof steps>, extra: Partial<Parameters<typeof card>[0]> = {}): CardEntry =>
  entry({ card: card({ revision: n, updatedAt: T0 + n, steps: st, ...extra }) });

function pending(e: CardEntry, kinds: Milestone[], extra: Partial<Pending> = {}): Pending {
  return { key: "k", gen: 1, kinds: new Set(kinds), updates: 1, fromCompleted: 0, entry: e, cleared: false, ...extra };
}

describe("milestones", () => {
  test("a first card written after the start is new; one written before is the baseline", () => {
    const e = at(1, steps("in_progress"));
    assert.deepEqual(detect(unknownCard(), e, T0), ["newCard"]);
    assert.deepEqual(detect(unknownCard(), e, T0 + 2), []);
  });

  test("a completed step, a completed card, a pause; an older entry is ignored", () => {
    const before = knowing(at(2, steps("in_progress", "pending")));
    assert.deepEqual(detect(before, at(3, steps("completed", "in_progress")), 0), ["stepCompleted"]);
    assert.deepEqual(detect(before, at(3, steps("completed", "completed")), 0), ["allCompleted"]);
    const failedCard = card({ revision: 3, updatedAt: T0 + 3, steps: steps("in_progress", "pending") });
    const failed = entry({ card: failedCard, run: endedRun("failed") });
    assert.deepEqual(detect(before, failed, 0), ["pausedOrBlocked"]);
    assert.equal(detect(before, at(1, steps("completed", "completed")), 0), null);
  });

  test("a lower revision written later is a reset: a new card", () => {
    const before = knowing(at(5, steps("completed", "in_progress")));
    const reset = entry({ card: card({ revision: 1, updatedAt: T0 + 9, steps: steps("in_progress") }) });
    assert.deepEqual(detect(before, reset, 0), ["newCard"]);
  });

  test("the same card reappearing after a clear is nothing; another one is new", () => {
    const e = at(2, steps("in_progress"));
    const afterClear: Known = { ...unknownCard(), last: e.card };
    assert.deepEqual(detect(afterClear, e, 0), []);
    assert.deepEqual(detect(afterClear, at(3, steps("in_progress")), 0), ["newCard"]);
  });

  test("still true: a resumed pause is not, a cleared start is not, a completion cleared by someone else is", () => {
    assert.equal(stillTrue("pausedOrBlocked", pending(at(3, steps("in_progress")), []), false), false);
    assert.equal(stillTrue("newCard", pending(at(3, steps("in_progress")), [], { cleared: true }), false), false);
    assert.equal(stillTrue("allCompleted", pending(at(3, steps("completed")), [], { cleared: true }), false), true);
    assert.equal(stillTrue("stepCompleted", pending(at(3, steps("completed", "pending")), [], { fromCompleted: 1 }), false), false);
    assert.equal(stillTrue("noProgress", pending(at(3, steps("in_progress")), []), true), true);
  });

  test("a duplicate is the same kind for the same revision and update time", () => {
    assert.equal(dedupeKey("stepCompleted", at(3, steps())), dedupeKey("stepCompleted", at(3, steps("completed"))));
    assert.notEqual(dedupeKey("stepCompleted", at(3, steps())), dedupeKey("stepCompleted", at(4, steps())));
  });
});

describe("throttle and coalesce", () => {
  test("the same card and generation merge: kinds joined, updates counted, latest state kept", () => {
    const list = [pending(at(1, steps("in_progress")), ["newCard"])];
    merge(list, pending(at(2, steps("completed")), ["allCompleted"]), 2);
    assert.equal(list.length, 1);
    assert.deepEqual([...list[0]!.kinds], ["newCard", "allCompleted"]);
    assert.equal(list[0]!.updates, 2);
    assert.equal(list[0]!.entry.card?.revision, 2);
  });

  test("a stall alone does not replace the card's state", () => {
    const list = [pending(at(1, steps("in_progress")), ["newCard"])];
    merge(list, pending(at(2, steps("completed")), ["noProgress"]), 2);
    assert.equal(list[0]!.entry.card?.revision, 1);
  });

  test("past the cap the intermediate generation is dropped and its updates counted", () => {
    const list: Pending[] = [];
    for (const gen of [1, 2, 3]) merge(list, pending(at(gen, steps()), ["newCard"], { gen }), 2);
    assert.deepEqual(
      list.map((p) => [p.gen, p.updates]),
      [
        [1, 1],
        [3, 2],
      ],
    );
  });

  test("a session's slot: free when nothing waits and the interval has passed", () => {
    assert.equal(sessionSlotFree(0, null, 0, 60), true);
    assert.equal(sessionSlotFree(0, 100, 159, 60), false);
    assert.equal(sessionSlotFree(0, 100, 160, 60), true);
    assert.equal(sessionSlotFree(1, 100, 999, 60), false);
  });

  test("the global window: sends older than it leave; a slot frees when the max-th last send leaves", () => {
    assert.deepEqual(inWindow([10, 50, 70], 110, 60), [70]);
    assert.equal(slotFreesAt([10, 20, 30], 40, 60, 3), 70);
    assert.equal(slotFreesAt([10, 20, 30], 40, 60, 2), 80);
    assert.equal(slotFreesAt([], 40, 60, 3), 100);
  });
});

describe("quiet hours", () => {
  const q = (start: string, end: string, enabled = true) => ({ enabled, start, end });

  test("clock text: HH:MM only, in range", () => {
    assert.deepEqual(["7:05", "23:59", "24:00", "12:60", "1205", " 1:00"].map(parseClock), [425, 1439, null, null, null, null]);
  });

  test("[start, end), wrapping midnight; off, equal or invalid means never", () => {
    const night = q("22:00", "08:00");
    assert.deepEqual(
      [21 * 60 + 59, 22 * 60, 3 * 60, 8 * 60 - 1, 8 * 60].map((m) => isQuiet(night, m)),
      [false, true, true, true, false],
    );
    const day = q("09:00", "17:00");
    assert.deepEqual(
      [8 * 60, 9 * 60, 17 * 60].map((m) => isQuiet(day, m)),
      [false, true, false],
    );
    assert.equal(isQuiet(q("22:00", "08:00", false), 23 * 60), false);
    assert.equal(isQuiet(q("08:00", "08:00"), 8 * 60), false);
    assert.equal(isQuiet(q("nope", "08:00"), 3 * 60), false);
  });

  test("the end is found across midnight, at least a second away; a bad end has none", () => {
    assert.equal(msUntilQuietEnd(q("22:00", "08:00"), 23 * 60), 9 * 60 * 60_000);
    assert.equal(msUntilQuietEnd(q("22:00", "08:00"), 7 * 60 + 30), 30 * 60_000);
    assert.equal(msUntilQuietEnd(q("22:00", "08:00"), 8 * 60), 1000);
    assert.equal(msUntilQuietEnd(q("22:00", "8h"), 8 * 60), null);
  });
});

describe("away", () => {
  test("back: quiet hours wait; a long absence is a summary; a short one the quiet summary or the throttle", () => {
    assert.equal(releaseOnBack(10 * 60_000, 5 * 60_000, true, false), "waitForQuietEnd");
    assert.equal(releaseOnBack(5 * 60_000, 5 * 60_000, false, true), "summary:away");
    assert.equal(releaseOnBack(60_000, 5 * 60_000, false, true), "summary:quiet");
    assert.equal(releaseOnBack(60_000, 5 * 60_000, false, false), "throttle");
  });
});

describe("notice text", () => {
  test("the title is the session title, with the Gateway's label first when one is given", () => {
    const e = entry({ title: "Fix\u200b the  build" });
    assert.equal(noticeTitle(e, null), "Fix the build");
    assert.equal(noticeTitle(e, "Home"), "Home · Fix the build");
    assert.equal(noticeTitle(entry({ title: "" }), ""), entry().sessionKey);
  });

  test("one card: milestone · count · step · note line; a held one says why", () => {
    const e = at(3, steps("completed", "in_progress"), { markdown: "**Waiting** on CI" });
    const told = [{ pending: pending(e, ["stepCompleted"]), kind: "stepCompleted" as const, stallText: undefined }];
    assert.equal(noticeBody(told, null), "Step completed · 1/2 · Now: Step 2 · Waiting on CI");
    assert.equal(noticeBody(told, "away"), "While you were away: Step completed · 1/2 · Now: Step 2 · Waiting on CI");
  });

  test("a stall says its flag's text; several cards are tallied, strongest first", () => {
    const e = at(3, steps("in_progress"));
    const stalled = { pending: pending(e, ["noProgress"]), kind: "noProgress" as const, stallText: "Shell · make (5×)" };
    assert.equal(noticeBody([stalled], null), "No progress · Shell · make (5×)");
    const two = [
      { pending: pending(e, ["newCard"], { key: "a", updates: 2 }), kind: "newCard" as const, stallText: undefined },
      { pending: pending(at(4, steps("completed")), ["allCompleted"], { key: "b" }), kind: "allCompleted" as const, stallText: undefined },
    ];
    assert.equal(noticeBody(two, null), "3 updates in 2 sessions: 1 completed, 1 started");
    assert.equal(noticeBody(two, "quiet"), "During quiet hours: 1 card completed, 1 started");
  });
});
