// Issue 21: what of the desk's change stream pages hear (main/core/page-changes.ts). A card slot
// that says nothing reaches pages only when it said something before; every other change passes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { pageChangeFilter, saysSomething } from "../../main/core/page-changes.ts";
import type { CardEntry, DeskChange, DeskSnapshot } from "../../common/model.ts";

const GW = "gw-1";

function entry(sessionKey: string, extra: Partial<CardEntry> = {}): CardEntry {
  return {
    gatewayId: GW,
    sessionKey,
    agentId: null,
    title: sessionKey,
    card: null,
    derived: null,
    freshness: "live",
    confirmedAt: 1,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
    ...extra,
  } as CardEntry;
}

const card = { sessionKey: "s", revision: 1, updatedAt: 1, markdown: "note", steps: [] };
const cardChange = (e: CardEntry): DeskChange => ({ type: "card", gatewayId: GW, entry: e });
const snapshot = (cards: CardEntry[]): DeskSnapshot => ({ gateways: [{ id: GW, cards } as unknown as DeskSnapshot["gateways"][number]] });

describe("page changes (issue 21)", () => {
  test("a slot that never said anything is not sent, however often it says so", () => {
    const forPages = pageChangeFilter(snapshot([]));
    for (let i = 0; i < 3; i++) assert.equal(forPages(cardChange(entry("agent:main:a"))), false);
  });

  test("a slot that said something is sent when it goes quiet, once", () => {
    const forPages = pageChangeFilter(snapshot([]));
    assert.equal(forPages(cardChange(entry("agent:main:a", { card } as Partial<CardEntry>))), true);
    assert.equal(forPages(cardChange(entry("agent:main:a"))), true, "the page must drop the card");
    assert.equal(forPages(cardChange(entry("agent:main:a"))), false);
  });

  test("a slot the desk showed before the filter began is known from the snapshot", () => {
    const forPages = pageChangeFilter(snapshot([entry("agent:main:a", { card } as Partial<CardEntry>), entry("agent:main:b")]));
    assert.equal(forPages(cardChange(entry("agent:main:b"))), false);
    assert.equal(forPages(cardChange(entry("agent:main:a"))), true);
  });

  test("an error, a hidden slot and an update asked for all say something", () => {
    for (const extra of [{ error: { code: "X", message: "m" } }, { hidden: true }, { updateRequired: true }] as Partial<CardEntry>[]) {
      assert.equal(saysSomething(entry("k", extra)), true, JSON.stringify(extra));
      const forPages = pageChangeFilter(snapshot([]));
      assert.equal(forPages(cardChange(entry("agent:main:a", extra))), true);
      assert.equal(forPages(cardChange(entry("agent:main:a"))), true);
    }
    assert.equal(saysSomething(entry("k")), false);
  });

  test("slots are told apart by Gateway, session and agent", () => {
    const forPages = pageChangeFilter(snapshot([]));
    assert.equal(forPages(cardChange(entry("main", { card, agentId: "a1" } as Partial<CardEntry>))), true);
    assert.equal(forPages(cardChange(entry("main", { agentId: "a2" }))), false, "another agent's slot said nothing");
    assert.equal(forPages(cardChange({ ...entry("main", { agentId: "a1" }), gatewayId: "gw-2" })), false, "another Gateway's");
    assert.equal(forPages(cardChange(entry("main", { agentId: "a1" }))), true);
  });

  test("every other change passes", () => {
    const forPages = pageChangeFilter(snapshot([]));
    assert.equal(forPages({ type: "sessions", gatewayId: GW, sessions: [] } as DeskChange), true);
    assert.equal(forPages({ type: "boards", gatewayId: GW, boards: { supported: true, pins: [] } } as unknown as DeskChange), true);
  });
});
