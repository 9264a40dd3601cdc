// `watch` in a terminal with hundreds of cards (issue 11): the working ones are listed, the
// rest counted in one line; a few cards are all listed as before.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { restLine, statusBlock } from "../../main/cli/watch-format.ts";
import type { CardEntry, CardState, DeskSnapshot } from "../../common/model.ts";

function entry(i: number, state: CardState): CardEntry {
  const sessionKey = `agent:main:dashboard:card${String(i).padStart(4, "0")}`;
  return {
    gatewayId: "gw",
    sessionKey,
    agentId: null,
    title: `Card ${i} ${state}`,
    card: { sessionKey, revision: 1, updatedAt: 1_000_000 + i, markdown: null, steps: [{ step: "Do", status: "in_progress" }] },
    derived: { completed: 0, total: 1, current: "Do", state, outcome: null },
    freshness: "live",
    confirmedAt: 1,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
  };
}

function snapshot(cards: CardEntry[]): DeskSnapshot {
  const connection = { state: "connected" as const, since: 1, serverVersion: null, scopes: [], limited: false, advice: "" };
  return {
    gateways: [
      {
        id: "gw",
        label: "gateway",
        color: null,
        url: "ws://127.0.0.1:1",
        connection,
        sessions: [],
        cards,
        boards: { supported: true, pins: [] },
        activity: [],
        needs: { answering: "off", advice: null, entries: [] },
        cardsKnown: true,
      },
    ],
  };
}

describe("watch: the terminal block at scale", () => {
  test("300 cards: the working ones are listed, the rest is one count with its make-up", () => {
    const cards = [
      ...Array.from({ length: 3 }, (_, i) => entry(i, "active")),
      ...Array.from({ length: 200 }, (_, i) => entry(100 + i, "paused")),
      ...Array.from({ length: 97 }, (_, i) => entry(400 + i, "complete")),
    ];
    const lines = statusBlock(snapshot(cards), 200);
    const titled = lines.filter((l) => /Card \d+/.test(l));
    assert.deepEqual(
      titled.map((l) => /Card \d+ (\w+)/.exec(l)![1]),
      ["active", "active", "active"],
    );
    assert.equal(lines.at(-1), "  + 297 finished or paused (97 finished · 200 paused)");
    assert.ok(lines.length < 15, `${lines.length} lines`);
  });

  test("more working cards than fit: the newest are listed and the others counted as working", () => {
    const cards = [...Array.from({ length: 20 }, (_, i) => entry(i, "active")), entry(50, "note")];
    const lines = statusBlock(snapshot(cards), 200, 12);
    assert.equal(lines.filter((l) => /Card \d+ active/.test(l)).length, 12);
    assert.ok(lines.includes("  … and 8 more working"));
    assert.equal(lines.at(-1), "  + 1 notes");
  });

  test("as many cards as fit: every one is listed, none counted", () => {
    const cards = [entry(1, "active"), entry(2, "paused"), entry(3, "complete")];
    const lines = statusBlock(snapshot(cards), 200);
    assert.equal(lines.filter((l) => /Card \d+/.test(l)).length, 3);
    assert.ok(!lines.some((l) => l.startsWith("  +")));
  });

  test("the count names only the kinds there are", () => {
    assert.equal(restLine([entry(1, "paused"), entry(2, "paused")]), "+ 2 paused");
    assert.equal(
      restLine([entry(1, "paused"), entry(2, "note"), entry(3, "complete")]),
      "+ 3 finished, paused or notes (1 finished · 1 paused · 1 notes)",
    );
  });
});
