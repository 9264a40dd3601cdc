// P2, P4: the one rule for which cards are listed and in what order (common/visible-cards.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { byRecency, shownSlotsOf, visibleCardsOf } from "../../common/visible-cards.ts";
import { card, entry, T0 } from "../renderer/fixtures.ts";

const names = (list: { title: string }[]): string[] => list.map((e) => e.title);

describe("visible cards", () => {
  test("equal times: session key, then Gateway, then agent (code unit order, not locale)", () => {
    const at = (title: string, gatewayId: string, sessionKey: string, agentId: string | null) =>
      entry({ title, gatewayId, sessionKey, agentId, card: card({ sessionKey, updatedAt: T0 }) });
    const list = [
      at("b-main-ops", "b", "main", "ops"),
      at("a-main-ops", "a", "main", "ops"),
      at("a-main-none", "a", "main", null),
      at("a-Z", "a", "Z", null),
      at("a-main-main", "a", "main", "main"),
    ];
    assert.deepEqual(names(visibleCardsOf(list)), ["a-Z", "a-main-none", "a-main-main", "a-main-ops", "b-main-ops"]);
    assert.deepEqual(names(visibleCardsOf(list.reverse())), ["a-Z", "a-main-none", "a-main-main", "a-main-ops", "b-main-ops"]);
  });

  test("only the very same slot compares equal", () => {
    const a = entry({ agentId: "main" });
    assert.equal(byRecency(a, entry({ agentId: "main" })), 0);
    assert.notEqual(byRecency(a, entry({ agentId: "ops" })), 0);
    assert.notEqual(byRecency(a, entry({ agentId: "main", gatewayId: "other" })), 0);
  });

  test("the order is antisymmetric: swapping two entries flips the sign", () => {
    const at = (sessionKey: string, gatewayId: string, agentId: string | null) =>
      entry({ title: `${gatewayId}/${sessionKey}/${agentId}`, gatewayId, sessionKey, agentId, card: card({ sessionKey, updatedAt: T0 }) });
    const pairs = [
      [at("a", "g", null), at("b", "g", null)],
      [at("a", "g", null), at("a", "h", null)],
      [at("a", "g", null), at("a", "g", "main")],
    ] as const;
    for (const [first, second] of pairs) {
      assert.ok(byRecency(first, second) < 0, `${first.title} before ${second.title}`);
      assert.ok(byRecency(second, first) > 0, `${second.title} after ${first.title}`);
    }
  });

  test("no agent sorts before every agent id, whatever characters the id starts with", () => {
    const at = (agentId: string | null) => entry({ title: String(agentId), agentId, card: card({ updatedAt: T0 }) });
    const list = [at("0ps"), at("Main"), at(null), at("a")];
    assert.deepEqual(names(visibleCardsOf(list)), ["null", "0ps", "Main", "a"]);
    assert.deepEqual(names(visibleCardsOf(list.reverse())), ["null", "0ps", "Main", "a"]);
  });

  test("a hidden card and a slot without a card are not listed; a card beside a read error is", () => {
    const list = [
      entry({ title: "hidden", hidden: true }),
      entry({ title: "cleared", card: null }),
      entry({ title: "kept", sessionKey: "k2", error: { code: "MALFORMED_CARD", message: "bad" } }),
    ];
    assert.deepEqual(names(visibleCardsOf(list)), ["kept"]);
  });
});

describe("the popover's slots", () => {
  test("also a malformed card or an update required without a card, placed by their last confirmation", () => {
    const list = [
      entry({ title: "card", sessionKey: "k1", card: card({ updatedAt: T0 }) }),
      entry({ title: "malformed", sessionKey: "k2", card: null, confirmedAt: T0 + 5, error: { code: "MALFORMED_CARD", message: "bad" } }),
      entry({ title: "update", sessionKey: "k3", card: null, confirmedAt: T0 - 5, updateRequired: true }),
      entry({ title: "unreadable", sessionKey: "k4", card: null, error: { code: "UNAVAILABLE", message: "no" } }),
      entry({ title: "hidden update", sessionKey: "k5", card: null, updateRequired: true, hidden: true }),
    ];
    assert.deepEqual(names(shownSlotsOf(list)), ["malformed", "card", "update"]);
  });
});
