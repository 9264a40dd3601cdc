// Card rules that the mutation run (npm run mutation) found unpinned: an explicit null step
// list, steps with no readable text, a queued run's activity when hasActiveRun is unknown,
// and sameDerived telling apart cards that differ only in their counts or current step.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { isRunActive, parseCard, sameDerived } from "../../common/card.ts";
import type { CardDerived } from "../../common/model.ts";
import { isDeskError } from "../../common/errors.ts";

const base = { sessionKey: "agent:main:main", revision: 2, updatedAt: 1_760_000_000_000, markdown: "Building" };

describe("parseCard: steps", () => {
  test("steps: null is a note-only card, not a malformed one", () => {
    const card = parseCard({ ...base, steps: null });
    assert.deepEqual(card?.steps, []);
    assert.equal(card?.markdown, "Building");
  });

  test("a step with no readable text is refused, naming the step by its 1-based position", () => {
    for (const text of ["   ", "\t\n", "\u200b\u200b"]) {
      assert.throws(
        () =>
          parseCard({
            ...base,
            steps: [
              { step: "Fetch", status: "completed" },
              { step: text, status: "pending" },
            ],
          }),
        (err: unknown) => isDeskError(err, "MALFORMED_CARD") && err.message === "card step 2 has no text",
        JSON.stringify(text),
      );
    }
  });
});

describe("isRunActive with hasActiveRun unknown", () => {
  test("queued and running count as active; other states do not", () => {
    const facts = { hasActiveRun: null, startedAt: null, endedAt: null };
    assert.equal(isRunActive({ ...facts, status: "queued" }), true);
    assert.equal(isRunActive({ ...facts, status: "running" }), true);
    assert.equal(isRunActive({ ...facts, status: null }), false);
    assert.equal(isRunActive({ ...facts, status: "done" }), false);
  });
});

describe("sameDerived", () => {
  const a: CardDerived = { completed: 1, total: 3, current: "Test", state: "active", outcome: null };
  test("a change in completed, total or current step alone is a change", () => {
    assert.equal(sameDerived(a, { ...a, completed: 2 }), false);
    assert.equal(sameDerived(a, { ...a, total: 4 }), false);
    assert.equal(sameDerived(a, { ...a, current: "Deploy" }), false);
    assert.equal(sameDerived(a, { ...a }), true);
  });
});
