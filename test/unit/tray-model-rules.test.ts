// P1: tray rules the mutation run found unpinned: the wording of every menu row state,
// connection phrase and tooltip; the title's fallbacks; which notes count as working; and
// the tracker's memory (debounce default, first down time, forgetting, seen and flagged
// cards, the earliest pending redraw).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectionPhrase, DEFAULT_DISCONNECT_DEBOUNCE_MS, titleFor, TrayTracker, trayModel } from "../../main/core/tray-model.ts";
import type {
  CardDerived,
  CardEntry,
  ConnectionState,
  DeskSnapshot,
  GatewaySnapshot,
  SessionActivity,
  SessionInfo,
} from "../../common/model.ts";
import { card, connected, entry, offline, steps, T0 } from "../renderer/fixtures.ts";

const NOW = T0 + 60_000;

function gateway(id: string, cards: CardEntry[], extra: Partial<GatewaySnapshot> = {}): GatewaySnapshot {
  return {
    id,
    label: id.toUpperCase(),
    color: null,
    url: `ws://${id}.test:1`,
    connection: connected(T0),
    sessions: [],
    cards,
    boards: { widgets: [], updateRequired: false } as never,
    activity: [],
    needs: { answering: "off", advice: null, entries: [] },
    cardsKnown: true,
    ...extra,
  };
}
const snap = (...gateways: GatewaySnapshot[]): DeskSnapshot => ({ gateways });

/** A card entry whose derived state is given outright. */
function shown(key: string, derived: Partial<CardDerived>, extra: Partial<CardEntry> = {}, at = T0): CardEntry {
  return entry({
    gatewayId: "a",
    sessionKey: key,
    title: "Build",
    card: card({ sessionKey: key, updatedAt: at, steps: steps("completed", "in_progress", "pending") }),
    derived: { completed: 1, total: 3, current: "Test", state: "active", outcome: null, ...derived },
    ...extra,
  });
}

/** The model with nothing seen, nothing flagged and nothing down. */
function plain(s: DeskSnapshot, over: Partial<Parameters<typeof trayModel>[2]> = {}) {
  return trayModel(s, NOW, { showTitle: true, isDown: () => false, seenRevision: () => null, flag: () => null, ...over });
}

function live(sessionKey: string, label: string | null, stall: SessionActivity["stall"] = null): SessionActivity {
  return {
    gatewayId: "a",
    sessionKey,
    live: true,
    runId: "r1",
    current: label === null ? null : ({ label } as SessionActivity["current"]),
    lines: [],
    stall,
    updatedAt: T0,
  };
}

describe("menu rows say each state in words", () => {
  test("row details per state, with the step count when there are steps", () => {
    const label = (e: CardEntry) => plain(snap(gateway("a", [e]))).cards[0]!.label;
    assert.equal(label(shown("k", {})), "Build — Test (1/3)");
    assert.equal(label(shown("k", { current: null })), "Build — working (1/3)");
    assert.equal(label(shown("k", { state: "complete", completed: 3, current: null })), "Build — done (3/3)");
    assert.equal(label(shown("k", { state: "paused" })), "Build — paused at Test (1/3)");
    assert.equal(label(shown("k", { state: "paused", current: null })), "Build — paused (1/3)");
    assert.equal(label(shown("k", { state: "paused", outcome: "timeout" })), "Build — run timed out at Test (1/3)");
    assert.equal(label(shown("k", { state: "paused", outcome: "failed", current: null })), "Build — run failed (1/3)");
    assert.equal(label(shown("k", { state: "paused", outcome: "killed" })), "Build — run killed at Test (1/3)");
    assert.equal(
      label(
        shown(
          "k",
          { state: "note", total: 0, completed: 0, current: null },
          { card: card({ steps: [], markdown: "**Reading** the logs" }) },
        ),
      ),
      "Build — Reading the logs",
    );
    assert.equal(
      label(shown("k", { state: "note", total: 0, completed: 0, current: null }, { card: card({ steps: [], markdown: "```\nx\n```" }) })),
      "Build — Progress updated",
    );
    assert.equal(label(shown("k", { state: "active", total: 0, completed: 0 })), "Build — Test");
    assert.equal(label(shown("k", {}, { error: { code: "MALFORMED_CARD", message: "bad" } })), "Build — cannot be shown");
  });

  test("only a malformed card is an error row; another read error keeps the card's own state", () => {
    const m = plain(snap(gateway("a", [shown("k", {}, { error: { code: "UNAVAILABLE", message: "x" }, freshness: "stale" })])));
    assert.equal(m.cards[0]!.state, "active");
  });

  test("a finished, unseen card asks in the menu even though it is no action", () => {
    const m = plain(snap(gateway("a", [shown("k", { state: "complete", completed: 3, current: null })])));
    assert.equal(m.cards[0]!.asks, true);
    const seen = plain(snap(gateway("a", [shown("k", { state: "complete", completed: 3, current: null })])), { seenRevision: () => 1 });
    assert.equal(seen.cards[0]!.asks, false);
  });
});

describe("Open Session rows", () => {
  test("a row has a session only where its Gateway URL and key give a Control UI route", () => {
    const uuidKey = "agent:dev:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";
    const rows = plain(snap(gateway("a", [shown(uuidKey, {}), shown("agent:main:main", {})]))).cards;
    assert.deepEqual(
      rows.map((r) => [r.ref.sessionKey, r.hasSession]),
      [
        [uuidKey, true],
        ["agent:main:main", false],
      ],
    );
    // The same key on a Gateway whose URL gives no route (not ws/wss).
    const noRoute = plain(snap(gateway("a", [shown(uuidKey, {})], { url: "http://a.test:1" }))).cards;
    assert.equal(noRoute[0]!.hasSession, false);
  });
});

describe("connection phrases", () => {
  test("one phrase per state", () => {
    assert.equal(connectionPhrase(connected(T0), NOW), "Connected");
    assert.equal(connectionPhrase(connected(T0, true), NOW), "Connected — limited access");
    assert.equal(connectionPhrase({ state: "connecting", attempt: 1, advice: "" }, NOW), "Connecting…");
    assert.equal(connectionPhrase(offline(NOW + 4_200), NOW), "Offline — retrying in 5 s");
    assert.equal(connectionPhrase(offline(NOW, { restarting: true }), NOW), "Restarting — retrying now");
    assert.equal(connectionPhrase(offline(NOW - 1_000), NOW), "Offline — retrying now");
    const pairing: ConnectionState = {
      state: "pairing_required",
      requestId: null,
      deviceId: "d",
      command: null,
      reason: "not-paired",
      advice: "",
    };
    assert.equal(connectionPhrase(pairing, NOW), "Pairing required — approve on the Gateway host");
    assert.equal(
      connectionPhrase({ state: "auth_failed", code: "X", setting: "password", advice: "" }, NOW),
      "Sign-in failed — check the password",
    );
    assert.equal(connectionPhrase({ state: "update_required", reason: "r", advice: "" }, NOW), "Gateway update required");
  });
});

describe("tooltip", () => {
  test("counts in words, singular and plural", () => {
    const asking = (n: number) => Array.from({ length: n }, (_, i) => shown(`p${i}`, { state: "paused" }));
    assert.equal(plain(snap(gateway("a", asking(1)))).tooltip, "Progress Desk — 1 item needs a look");
    assert.equal(plain(snap(gateway("a", asking(2)))).tooltip, "Progress Desk — 2 items need a look");
    const mixed = [shown("w", {}), shown("d", { state: "complete", completed: 3, current: null })];
    assert.equal(plain(snap(gateway("a", mixed))).tooltip, "Progress Desk — 1 finished, 1 working");
    assert.equal(plain(snap(gateway("a", []))).tooltip, "Progress Desk — nothing in progress");
  });

  test("live runs without a card count as working; one with a card is not counted twice", () => {
    const g = gateway("a", [shown("k", {})], { activity: [live("k", "Read"), live("other", "Shell")] });
    assert.equal(plain(snap(g)).tooltip, "Progress Desk — 2 working");
  });

  test("Gateways needing the person count as items; all down names them", () => {
    const g = gateway("a", [], { connection: { state: "update_required", reason: "r", advice: "" } });
    assert.equal(plain(snap(g, gateway("b", []))).tooltip, "Progress Desk — 1 item needs a look");
    assert.equal(plain(snap(gateway("a", []), gateway("b", [])), { isDown: () => true }).tooltip, "Progress Desk — not connected (A, B)");
  });

  test("no Gateway at all is idle, not disconnected", () => {
    const m = plain(snap(), { isDown: () => true });
    assert.equal(m.icon, "idle");
  });
});

describe("working notes and the title", () => {
  const note = (key: string) => shown(key, { state: "note", total: 0, completed: 0, current: null }, { title: "Notes" });
  const session = (key: string, hasActiveRun: boolean): SessionInfo => ({ key, hasActiveRun }) as SessionInfo;

  test("a note card works only while its session has an active run", () => {
    assert.equal(plain(snap(gateway("a", [note("k")], { sessions: [session("k", true)] }))).icon, "working");
    assert.equal(plain(snap(gateway("a", [note("k")], { sessions: [session("k", false)] }))).icon, "idle");
    assert.equal(plain(snap(gateway("a", [note("k")], { sessions: [session("other", true)] }))).icon, "idle");
  });

  test("titles: count and title, or the title alone for a note", () => {
    assert.equal(titleFor(shown("k", {})), "1/3 Build");
    assert.equal(titleFor(note("k")), "Notes");
  });

  test("title order: a working card, else a live run's tool, else what asks, else what finished", () => {
    const working = shown("w", {}, { title: "Working card" }, T0 + 1);
    const asking = shown("p", { state: "paused" }, { title: "Paused card" }, T0 + 2);
    const done = shown("d", { state: "complete", completed: 3, current: null }, { title: "Done card" }, T0 + 3);
    assert.equal(plain(snap(gateway("a", [working, asking, done], { activity: [live("x", "Shell · ls")] }))).title, "1/3 Working card");
    assert.equal(plain(snap(gateway("a", [asking, done], { activity: [live("x", "Shell · ls")] }))).title, "Shell · ls");
    assert.equal(plain(snap(gateway("a", [asking, done], { activity: [live("x", null)] }))).title, "Working");
    assert.equal(plain(snap(gateway("a", [asking, done]))).title, "1/3 Paused card");
    assert.equal(plain(snap(gateway("a", [done]))).title, "3/3 Done card");
    assert.equal(plain(snap(gateway("a", [working])), { isDown: () => true }).title, "", "nothing while all is down");
    assert.equal(plain(snap(gateway("a", [asking], { activity: [live("x", "Shell · ls")] })), { isDown: () => true }).title, "");
  });
});

describe("TrayTracker memory", () => {
  test("the default disconnect debounce is 20 s, counted from the first down report", () => {
    const t = new TrayTracker();
    const g = gateway("a", [], { connection: offline(NOW) });
    t.noteConnection("a", g.connection, T0);
    t.noteConnection("a", g.connection, T0 + 15_000);
    assert.equal(DEFAULT_DISCONNECT_DEBOUNCE_MS, 20_000);
    assert.equal(t.model(snap(g), T0 + 19_999, { showTitle: true }).icon, "idle");
    assert.equal(t.model(snap(g), T0 + 20_000, { showTitle: true }).icon, "disconnected");
    assert.equal(t.nextChangeAt(T0), T0 + 20_000);
  });

  test("forgetting a Gateway forgets when it went down", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 1_000 });
    t.noteConnection("a", offline(NOW), T0);
    t.forgetGateway("a");
    assert.equal(t.nextChangeAt(T0), null);
  });

  test("nextChangeAt is the earliest pending one", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 1_000 });
    t.noteConnection("a", offline(NOW), T0 + 500);
    t.noteConnection("b", offline(NOW), T0);
    t.noteConnection("c", offline(NOW), T0 + 300);
    assert.equal(t.nextChangeAt(T0), T0 + 1_000);
    assert.equal(t.nextChangeAt(T0 + 1_000), T0 + 1_300);
  });

  test("markSeen says whether anything changed, skips entries without a card, and clears flags", () => {
    const t = new TrayTracker();
    const e = shown("k", { state: "paused" });
    assert.equal(t.markSeen([{ ...e, card: null }]), false);
    assert.equal(t.markSeen([e]), true);
    assert.equal(t.markSeen([e]), false, "the same revision again");
    t.flag(e, "refused");
    assert.equal(t.markSeen([e]), true, "clearing a flag is a change");
  });

  test("unflag lowers a flag without seeing the card", () => {
    const t = new TrayTracker();
    const e = shown("k", {});
    t.flag(e, "stall");
    assert.equal(t.model(snap(gateway("a", [e])), NOW, { showTitle: true }).icon, "attention");
    t.unflag(e);
    assert.equal(t.model(snap(gateway("a", [e])), NOW, { showTitle: true }).icon, "working");
  });
});
