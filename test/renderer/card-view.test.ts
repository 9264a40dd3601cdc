// R1, R2, R5–R7, A1, A2, G3/P4 as the card shows them.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cardView, clockTime, dismissView, EMPTY_NOTE_TEXT, progressText, refreshView, stepView } from "../../renderer/lib/card-view.ts";
import { CONFIRM_CLEAR_QUESTION } from "../../common/model.ts";
import { card, endedRun, entry, LIVE_RUN, steps, T0 } from "./fixtures.ts";

const NOW = T0 + 60_000;

describe("R1 header", () => {
  test("title, completed/total, current step, local HH:MM", () => {
    const v = cardView(entry(), { now: NOW });
    assert.equal(v.title, "Repair session owner");
    assert.equal(v.count, "1/3");
    assert.equal(v.countLabel, "1 of 3 completed");
    assert.equal(v.current, "Step 2");
    assert.equal(v.subline, "Step 2");
    assert.equal(v.time, "14:05");
    assert.match(v.toggleLabel, /^Repair session owner, 1 of 3 completed, current step: Step 2/);
  });

  test("the count is the number completed, not the current step's position", () => {
    const v = cardView(
      entry({ card: card({ steps: steps("completed", "completed", "completed", "in_progress", "pending", "pending", "pending") }) }),
      { now: NOW },
    );
    assert.equal(v.count, "3/7");
  });

  test("no steps, no count", () => {
    const v = cardView(entry({ card: card({ steps: [] }) }), { now: NOW });
    assert.equal(v.count, null);
    assert.equal(v.subline, "Note");
  });

  test("an untitled session falls back to its key", () => {
    assert.equal(cardView(entry({ title: "  " })).title, "agent:main:dashboard:3f0c");
  });

  test("a card from another day shows the date with the time", () => {
    assert.equal(clockTime(T0, T0 + 86_400_000), "20 Sep 14:05");
    assert.equal(clockTime(new Date(2025, 0, 2, 9, 7).getTime(), T0), "2 Jan 2025 09:07");
    assert.equal(clockTime(T0, T0), "14:05");
  });

  test("the spoken name has no doubled text on a note-only card", () => {
    const v = cardView(entry({ card: card({ steps: [] }) }), { now: NOW });
    assert.equal(v.toggleLabel, "Repair session owner, Note, updated 14:05"); // no note line given
  });
});

describe("R2/R6 checklist", () => {
  test("plan order, one glyph and label per status", () => {
    const v = cardView(entry());
    assert.deepEqual(
      v.steps.map((s) => [s.text, s.glyph, s.status, s.current]),
      [
        ["Step 1", "completed", "completed", false],
        ["Step 2", "in_progress", "in progress", true],
        ["Step 3", "pending", "pending", false],
      ],
    );
    assert.equal(v.steps[1]!.ariaLabel, "Step 2, in progress");
  });

  test("paused: the in_progress step shows as paused, not active, and a badge says so", () => {
    // No active run for the session (R6): the core derives paused.
    const v = cardView(entry({ run: null }));
    assert.equal(v.steps[1]!.glyph, "paused");
    assert.equal(v.steps[1]!.status, "paused");
    assert.equal(v.currentGlyph, "paused");
    assert.equal(v.paused, true);
    assert.deepEqual(
      v.badges.map((b) => b.text),
      ["Paused"],
    );
    assert.match(v.toggleLabel, /paused at: Step 2/);
  });

  test("a card older than the session's current run is paused too (stale), although a run is active", () => {
    const v = cardView(entry({ run: { ...LIVE_RUN, startedAt: T0 + 1 } }));
    assert.equal(v.paused, true);
    assert.equal(v.steps[1]!.glyph, "paused");
    assert.equal(cardView(entry()).paused, false, "the same card under the run that wrote it is active");
  });

  test("without an in_progress step the next pending one is current", () => {
    const v = cardView(entry({ card: card({ steps: steps("completed", "pending", "pending") }) }));
    assert.equal(v.current, "Step 2");
    assert.equal(v.steps[1]!.current, true);
    assert.equal(v.currentGlyph, "pending");
  });

  test("stepView alone", () => {
    assert.equal(stepView({ step: "x", status: "in_progress" }, true, true).glyph, "paused");
    assert.equal(stepView({ step: "x", status: "in_progress" }, false, true).glyph, "in_progress");
    assert.equal(stepView({ step: "x", status: "pending" }, true, false).glyph, "pending");
  });
});

describe("R6 outcome, R7 complete", () => {
  for (const [outcome, text] of [
    ["failed", "Run failed"],
    ["killed", "Run killed"],
    ["timeout", "Run timed out"],
    ["done", "Run finished"],
  ] as const) {
    test(`a finished run (${outcome}) says "${text}"`, () => {
      const v = cardView(entry({ run: endedRun(outcome) }));
      assert.equal(v.outcome?.text, text);
      assert.ok(v.badges.some((b) => b.kind === "outcome" && b.text === text));
      assert.ok(!v.badges.some((b) => b.kind === "paused"), "the outcome replaces the plain paused badge");
      assert.match(v.toggleLabel, new RegExp(text));
    });
  }

  test("complete only when every step is completed", () => {
    const done = cardView(entry({ card: card({ steps: steps("completed", "completed") }) }));
    assert.equal(done.complete, true);
    assert.equal(done.subline, "All 2 steps completed");
    assert.equal(done.current, null);
    const notYet = cardView(entry({ card: card({ steps: steps("completed", "pending") }) }));
    assert.equal(notYet.complete, false);
  });

  test("a finished run on a completed card adds no badge", () => {
    const v = cardView(entry({ card: card({ steps: steps("completed") }), run: endedRun("done") }));
    assert.equal(v.outcome?.kind, "done", "the core did derive the outcome");
    assert.deepEqual(v.badges, []);
  });
});

describe("R5 note", () => {
  test("a note with no readable text shows Progress updated", () => {
    const v = cardView(entry({ card: card({ steps: [], markdown: "<img src=x>" }) }), { noteEmpty: true });
    assert.equal(v.subline, EMPTY_NOTE_TEXT);
    assert.equal(EMPTY_NOTE_TEXT, "Progress updated");
  });
});

describe("freshness (G3, P4)", () => {
  test("offline: last confirmed time", () => {
    const v = cardView(entry({ freshness: "offline", confirmedAt: T0 }), { now: NOW });
    assert.deepEqual(v.freshness, { kind: "offline", text: "Offline — last confirmed 14:05" });
    assert.ok(v.badges.some((b) => b.kind === "offline"));
  });

  test("stale: the last card stays, and says so", () => {
    const v = cardView(entry({ freshness: "stale", error: { code: "UNAVAILABLE", message: "x" } }));
    assert.deepEqual(v.freshness, { kind: "stale", text: "Couldn't refresh — showing the last card" });
  });

  test("live: nothing to say", () => {
    assert.equal(cardView(entry()).freshness, null);
  });

  test("a malformed card is an error state, never a blank card (C5)", () => {
    const v = cardView(entry({ card: null, derived: null, error: { code: "MALFORMED_CARD", message: "card has 51 steps" } }));
    assert.match(v.problem ?? "", /couldn't be shown: card has 51 steps/);
    assert.equal(v.subline, "This card can't be shown");
    assert.ok(v.badges.some((b) => b.kind === "error"));
  });

  test("update required and no access get badges", () => {
    const v = cardView(entry({ updateRequired: true, hidden: true }));
    assert.deepEqual(v.badges.map((b) => b.kind).sort(), ["no_access", "update_required"]);
    assert.match(v.problem ?? "", /update OpenClaw/);
  });
});

describe("A2 refresh", () => {
  test("idle", () => {
    assert.deepEqual(refreshView(entry()), { status: "idle", text: null, busy: false, action: null });
  });

  test("pending: Refreshing…, busy, the card stays", () => {
    const v = refreshView(entry({ refresh: { status: "pending", key: "k", baseline: 1, startedAt: T0 } }));
    assert.equal(v.text, "Refreshing…");
    assert.equal(v.busy, true);
  });

  test("timed out: No update yet — Retry with the same key", () => {
    const v = refreshView(entry({ refresh: { status: "timed_out", key: "k", baseline: 1, at: T0 } }));
    assert.equal(v.text, "No update yet");
    assert.deepEqual(v.action, { label: "Retry", retry: true });
  });

  test("failed: the error, and Retry with the same key", () => {
    const v = refreshView(
      entry({ refresh: { status: "failed", key: "k", error: "agent busy", code: "UNAVAILABLE", terminal: false, at: T0 } }),
    );
    assert.equal(v.text, "Couldn't refresh: agent busy");
    assert.deepEqual(v.action, { label: "Retry", retry: true });
  });

  test("terminal failure: a new click with a fresh key", () => {
    const v = refreshView(
      entry({ refresh: { status: "failed", key: "k", error: "no", code: "PROGRESS_CARD_REFRESH_TERMINAL", terminal: true, at: T0 } }),
    );
    assert.deepEqual(v.action, { label: "Try again", retry: false });
  });
});

describe("A1 dismiss", () => {
  test("a completed card is dismissed at once", () => {
    assert.deepEqual(dismissView(entry({ card: card({ steps: steps("completed", "completed") }) })), {
      confirm: false,
      question: null,
      label: "Dismiss completed progress",
    });
  });

  for (const [what, e] of [
    ["unfinished", entry()],
    ["paused", entry({ run: null })],
    ["note-only", entry({ card: card({ steps: [] }) })],
  ] as const) {
    test(`a card that is ${what} asks first`, () => {
      const v = dismissView(e);
      assert.equal(v?.confirm, true);
      assert.equal(v?.question, CONFIRM_CLEAR_QUESTION);
    });
  }

  test("the question is the spec's", () => {
    assert.equal(CONFIRM_CLEAR_QUESTION, "Clear this saved progress for everyone?");
  });

  test("nothing to dismiss without a card", () => {
    assert.equal(dismissView(entry({ card: null, derived: null })), null);
  });
});

describe("R4 pinned progress label", () => {
  test("the aria-label is the visible text when it carries the count", () => {
    assert.deepEqual(progressText({ value: 12, max: 30, label: "PRs reviewed · 12/30" }), {
      label: "PRs reviewed · 12/30",
      count: null,
      ariaLabel: "PRs reviewed · 12/30",
    });
  });

  test("a label without numbers gets the count beside it", () => {
    assert.deepEqual(progressText({ value: 3, max: 7, label: "Checks" }), { label: "Checks", count: "3/7", ariaLabel: "Checks 3/7" });
  });

  test("no label: Progress and the count; values clamp to [0, max]", () => {
    assert.deepEqual(progressText({ value: 50, max: 10, label: null }), { label: "Progress", count: "10/10", ariaLabel: "Progress 10/10" });
    assert.equal(progressText({ value: -1, max: 4, label: null }).count, "0/4");
  });
});

test("a note-only card's header shows the note's first line", () => {
  const v = cardView(entry({ card: card({ steps: [], markdown: "**Waiting** for review" }) }), {
    noteLine: "Waiting for review",
    now: NOW,
  });
  assert.equal(v.subline, "Waiting for review");
  assert.equal(v.toggleLabel, "Repair session owner, Waiting for review, updated 14:05");
});
