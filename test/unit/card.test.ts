// C1, C3, C5, C6 (parseCard) and R1, R6, R7 / docs/gateway.md §4.6 (deriveCard).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { deriveCard, isRunActive, MAX_NOTE_BYTES, parseCard, sameDerived } from "../../common/card.ts";
import type { ProgressCard, SessionInfo, Step } from "../../common/model.ts";
import { isDeskError } from "../../common/errors.ts";

const KEY = "agent:main:dashboard:3f0c";

function raw(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sessionKey: KEY,
    revision: 1,
    updatedAt: 1_760_000_000_000,
    markdown: "Running tests",
    steps: [
      { step: "Install", status: "completed" },
      { step: "Run tests", status: "in_progress" },
      { step: "Report", status: "pending" },
    ],
    ...extra,
  };
}

function malformed(value: unknown, match: RegExp): void {
  assert.throws(
    () => parseCard(value),
    (err: unknown) => {
      assert.ok(isDeskError(err, "MALFORMED_CARD"), `expected a MALFORMED_CARD DeskError, got ${String(err)}`);
      assert.equal(err.code, "MALFORMED_CARD");
      assert.match(err.message, match);
      return true;
    },
  );
}

describe("parseCard", () => {
  test("a valid card is returned with every field", () => {
    const card = parseCard(raw());
    assert.deepEqual(card, {
      sessionKey: KEY,
      revision: 1,
      updatedAt: 1_760_000_000_000,
      markdown: "Running tests",
      steps: [
        { step: "Install", status: "completed" },
        { step: "Run tests", status: "in_progress" },
        { step: "Report", status: "pending" },
      ],
    });
  });

  test("a note-only and a steps-only card are valid", () => {
    const note = parseCard(raw({ steps: undefined }));
    assert.equal(note?.markdown, "Running tests");
    assert.deepEqual(note?.steps, []);
    const steps = parseCard(raw({ markdown: undefined }));
    assert.equal(steps?.markdown, null);
    assert.equal(steps?.steps.length, 3);
    const nullNote = parseCard(raw({ markdown: null }));
    assert.equal(nullNote?.markdown, null);
  });

  test("null and undefined are no card", () => {
    assert.equal(parseCard(null), null);
    assert.equal(parseCard(undefined), null);
  });

  test("C3: no steps and a whitespace-only note is no card", () => {
    assert.equal(parseCard(raw({ steps: [], markdown: "  \n\t " })), null);
    assert.equal(parseCard(raw({ steps: undefined, markdown: "" })), null);
    assert.equal(parseCard(raw({ steps: undefined, markdown: undefined })), null);
    // invisible characters only: stripped first, then nothing readable remains
    assert.equal(parseCard(raw({ steps: [], markdown: "\u200B\uFEFF \u2060" })), null);
  });

  test("C5: a note over 8,192 UTF-8 bytes is malformed, counted in bytes not characters", () => {
    // exactly at the limit is fine (ASCII)
    assert.ok(parseCard(raw({ markdown: "a".repeat(MAX_NOTE_BYTES) })));
    // 3,000 "é" are 3,000 characters but 6,000 bytes: fine
    assert.ok(parseCard(raw({ markdown: "é".repeat(3000) })));
    // 2,731 "€" are 2,731 characters (well under 8,192) but 8,193 bytes: over
    const euros = "€".repeat(2731);
    assert.equal(euros.length, 2731);
    assert.equal(Buffer.byteLength(euros), 8193);
    malformed(raw({ markdown: euros }), /8193 bytes.*8192-byte limit/);
    // emoji: 4 bytes each
    malformed(raw({ markdown: "🎉".repeat(2049) }), /8196 bytes/);
  });

  test("more than 50 steps is malformed; 50 is fine", () => {
    const steps = (n: number): Step[] => Array.from({ length: n }, (_, i) => ({ step: `s${i}`, status: "pending" }));
    assert.equal(parseCard(raw({ steps: steps(50) }))?.steps.length, 50);
    malformed(raw({ steps: steps(51) }), /51 steps.*50-step limit/);
  });

  test("a step over 512 bytes is malformed (bytes, multibyte)", () => {
    assert.ok(parseCard(raw({ steps: [{ step: "x".repeat(512), status: "pending" }] })));
    malformed(
      raw({
        steps: [
          { step: "ok", status: "completed" },
          { step: "x".repeat(513), status: "pending" },
        ],
      }),
      /step 2 .*512-byte/,
    );
    // 171 "€" = 513 bytes
    malformed(raw({ steps: [{ step: "€".repeat(171), status: "pending" }] }), /step 1 .*512-byte/);
  });

  test("two in_progress steps are malformed", () => {
    malformed(
      raw({
        steps: [
          { step: "a", status: "in_progress" },
          { step: "b", status: "in_progress" },
        ],
      }),
      /more than one in_progress/,
    );
  });

  test("an unknown step status is malformed", () => {
    malformed(raw({ steps: [{ step: "a", status: "paused" }] }), /step 1 has unknown status "paused"/);
    malformed(raw({ steps: [{ step: "a", status: "COMPLETED" }] }), /unknown status/);
  });

  test("wrong types are malformed, never a half-valid card", () => {
    malformed("card", /not an object/);
    malformed(42, /not an object/);
    malformed([raw()], /not an object/);
    malformed(raw({ sessionKey: 7 }), /sessionKey/);
    malformed(raw({ sessionKey: "" }), /sessionKey/);
    malformed(raw({ updatedAt: "yesterday" }), /updatedAt/);
    malformed(raw({ updatedAt: Number.NaN }), /updatedAt/);
    malformed(raw({ updatedAt: Number.POSITIVE_INFINITY }), /updatedAt/);
    malformed(raw({ markdown: 5 }), /markdown is not text/);
    malformed(raw({ markdown: { text: "x" } }), /markdown is not text/);
    malformed(raw({ steps: "a,b" }), /steps is not a list/);
    malformed(raw({ steps: { 0: { step: "a", status: "pending" } } }), /steps is not a list/);
    malformed(raw({ steps: [null] }), /step 1 is not \{step, status\}/);
    malformed(raw({ steps: ["do it"] }), /step 1 is not/);
    malformed(raw({ steps: [{ step: 1, status: "pending" }] }), /step 1 is not/);
    malformed(raw({ steps: [{ step: "a" }] }), /step 1 is not/);
  });

  test("revision must be an integer ≥ 1", () => {
    malformed(raw({ revision: 0 }), /revision 0 is not an integer ≥ 1/);
    malformed(raw({ revision: -3 }), /revision -3/);
    malformed(raw({ revision: 1.5 }), /revision 1.5/);
    malformed(raw({ revision: "2" }), /revision "2"/);
    malformed(raw({ revision: null }), /revision null/);
    malformed(raw({ revision: undefined }), /revision/);
    malformed(raw({ revision: 2 ** 53 }), /revision/);
    assert.equal(parseCard(raw({ revision: 7 }))?.revision, 7);
  });

  test("C6: invisible characters are stripped from the note and from steps", () => {
    const card = parseCard(
      raw({
        markdown: "Run\u200B tests\u202E now\u{E0041}",
        steps: [
          { step: "In\uFEFFstall", status: "completed" },
          { step: "\u2060Run\u{E007F}", status: "in_progress" },
        ],
      }),
    );
    assert.equal(card?.markdown, "Run tests now");
    assert.deepEqual(
      card?.steps.map((s) => s.step),
      ["Install", "Run"],
    );
  });
});

// ——— deriveCard ———

type Run = Pick<SessionInfo, "status" | "hasActiveRun" | "startedAt" | "endedAt">;

function card(steps: Array<Step["status"]>, updatedAt = 10_000, markdown: string | null = null): ProgressCard {
  return { sessionKey: KEY, revision: 3, updatedAt, markdown, steps: steps.map((status, i) => ({ step: `step ${i + 1}`, status })) };
}

function run(extra: Partial<Run> = {}): Run {
  return { status: "running", hasActiveRun: true, startedAt: 5_000, endedAt: null, ...extra };
}

describe("deriveCard", () => {
  test("R1: completed/total and the in_progress step as current", () => {
    const d = deriveCard(card(["completed", "completed", "in_progress", "pending", "pending"]), run());
    assert.equal(d.completed, 2);
    assert.equal(d.total, 5);
    assert.equal(d.current, "step 3");
  });

  test("R1: with no in_progress step, the next pending step is current", () => {
    const d = deriveCard(card(["completed", "pending", "pending"]), run());
    assert.equal(d.current, "step 2");
    assert.equal(d.completed, 1);
  });

  test("R7: complete only when every step is completed", () => {
    assert.equal(deriveCard(card(["completed", "completed"]), run()).state, "complete");
    assert.equal(deriveCard(card(["completed", "completed"]), null).state, "complete");
    assert.equal(deriveCard(card(["completed", "completed"]), null).current, null);
    assert.notEqual(deriveCard(card(["completed", "pending"]), run()).state, "complete");
    assert.notEqual(deriveCard(card(["completed", "in_progress"]), run()).state, "complete");
  });

  test("a note-only card is 'note'", () => {
    const d = deriveCard(card([], 10_000, "Reviewing PRs"), run());
    assert.deepEqual(
      { state: d.state, total: d.total, completed: d.completed, current: d.current },
      { state: "note", total: 0, completed: 0, current: null },
    );
  });

  test("R6: an active run keeps an unfinished card active", () => {
    assert.equal(deriveCard(card(["completed", "in_progress"]), run()).state, "active");
    // status unknown, hasActiveRun true, no start time: still active (§4.6 "status unknown")
    assert.equal(deriveCard(card(["in_progress"]), run({ status: null, startedAt: null })).state, "active");
  });

  test("R6: no active run → paused", () => {
    assert.equal(deriveCard(card(["in_progress"]), run({ hasActiveRun: false })).state, "paused");
    assert.equal(deriveCard(card(["in_progress"]), run({ status: null, hasActiveRun: false })).state, "paused");
    assert.equal(deriveCard(card(["pending"]), run({ status: null, hasActiveRun: null, startedAt: null })).state, "paused");
  });

  test("R6: status queued → paused, even with hasActiveRun", () => {
    assert.equal(isRunActive(run({ status: "queued" })), true);
    assert.equal(deriveCard(card(["in_progress"]), run({ status: "queued" })).state, "paused");
  });

  test("R6: a card older than the run's start (stale) → paused", () => {
    const d = deriveCard(card(["in_progress"], 4_999), run({ startedAt: 5_000 }));
    assert.equal(d.state, "paused");
    // equal times are not stale
    assert.equal(deriveCard(card(["in_progress"], 5_000), run({ startedAt: 5_000 })).state, "active");
  });

  test("R6: running with an active run but no start time → paused (§4.6 needs startedAt known)", () => {
    assert.equal(deriveCard(card(["in_progress"]), run({ startedAt: null })).state, "paused");
  });

  test("R6: a finished run covering the card shows its outcome", () => {
    for (const status of ["done", "failed", "killed", "timeout"] as const) {
      const d = deriveCard(card(["completed", "in_progress"], 10_000), { status, hasActiveRun: false, startedAt: 5_000, endedAt: 20_000 });
      assert.equal(d.outcome, status, status);
      assert.equal(d.state, "paused", status);
    }
    // the bounds are inclusive
    assert.equal(
      deriveCard(card(["in_progress"], 5_000), { status: "failed", hasActiveRun: false, startedAt: 5_000, endedAt: 9_000 }).outcome,
      "failed",
    );
    assert.equal(
      deriveCard(card(["in_progress"], 9_000), { status: "failed", hasActiveRun: false, startedAt: 5_000, endedAt: 9_000 }).outcome,
      "failed",
    );
  });

  test("R6: no outcome when the card lies outside the run or the run is not terminal", () => {
    const fin = { hasActiveRun: false, startedAt: 5_000, endedAt: 9_000 };
    assert.equal(deriveCard(card(["in_progress"], 4_000), { ...fin, status: "done" }).outcome, null);
    assert.equal(deriveCard(card(["in_progress"], 9_001), { ...fin, status: "done" }).outcome, null);
    assert.equal(deriveCard(card(["in_progress"], 6_000), { ...fin, status: "done", endedAt: null }).outcome, null);
    assert.equal(deriveCard(card(["in_progress"], 6_000), { ...fin, status: "done", startedAt: null }).outcome, null);
    assert.equal(deriveCard(card(["in_progress"], 6_000), run()).outcome, null);
    // and an outside-the-run terminal status is still paused
    assert.equal(deriveCard(card(["in_progress"], 9_001), { ...fin, status: "done" }).state, "paused");
  });

  test("an unknown session (null) → paused, no outcome", () => {
    const d = deriveCard(card(["completed", "in_progress"]), null);
    assert.equal(d.state, "paused");
    assert.equal(d.outcome, null);
    assert.equal(isRunActive(null), false);
  });

  test("elapsed time never pauses an active run's card", () => {
    const longAgo = Date.UTC(2001, 0, 1);
    const d = deriveCard(card(["completed", "in_progress"], longAgo), run({ startedAt: longAgo - 1000 }));
    assert.equal(d.state, "active");
  });

  test("isRunActive follows §4.6", () => {
    assert.equal(isRunActive(run({ status: "done", hasActiveRun: true })), false);
    assert.equal(isRunActive(run({ status: "running", hasActiveRun: false })), false);
    assert.equal(isRunActive(run({ status: "running", hasActiveRun: null })), true);
    assert.equal(isRunActive(run({ status: null, hasActiveRun: null })), false);
    assert.equal(isRunActive(run({ status: null, hasActiveRun: true })), true);
  });

  test("sameDerived compares every field", () => {
    const a = deriveCard(card(["completed", "in_progress"]), run());
    assert.equal(sameDerived(a, { ...a }), true);
    assert.equal(sameDerived(a, { ...a, state: "paused" }), false);
    assert.equal(sameDerived(a, { ...a, outcome: "done" }), false);
    assert.equal(sameDerived(a, null), false);
    assert.equal(sameDerived(null, null), true);
  });
});
