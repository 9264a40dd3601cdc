// P1: the tray glance as data — icon state, badge, title and menu rows.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MENU_LABEL_BUDGET, MENU_MAX_CARDS, TITLE_BUDGET, TrayTracker } from "../../main/core/tray-model.ts";
import type {
  CardEntry,
  ConnectionState,
  DeskSnapshot,
  GatewaySnapshot,
  NeedEntry,
  SessionActivity,
  SessionInfo,
} from "../../common/model.ts";
import { card, connected, entry, need, offline, steps, T0 } from "../renderer/fixtures.ts";

const NOW = T0 + 60_000;

function gateway(
  id: string,
  cards: CardEntry[],
  connection: ConnectionState = connected(T0),
  extra: Partial<GatewaySnapshot> = {},
): GatewaySnapshot {
  return {
    id,
    label: id === "home" ? "Home" : id[0]!.toUpperCase() + id.slice(1),
    color: null,
    url: `ws://${id}.test:18789`,
    connection,
    sessions: [],
    cards,
    boards: { widgets: [], updateRequired: false } as never,
    activity: [],
    needs: { answering: "off", advice: null, entries: [] },
    cardsKnown: true,
    ...extra,
  };
}

function snap(...gateways: GatewaySnapshot[]): DeskSnapshot {
  return { gateways };
}

/** An entry of the default Gateway with its own key, state and update time. */
function cardOf(key: string, statuses: ("pending" | "in_progress" | "completed")[], extra: Partial<CardEntry> = {}, at = T0): CardEntry {
  const base = entry({
    sessionKey: key,
    card: card({ sessionKey: key, steps: steps(...statuses), updatedAt: at }),
    title: `Task ${key.slice(-1)}`,
    ...extra,
  });
  return base;
}

const paused = (e: CardEntry): CardEntry => ({ ...e, derived: { ...e.derived!, state: "paused" } });

function model(t: TrayTracker, s: DeskSnapshot, now = NOW, showTitle = true) {
  for (const g of s.gateways) t.noteConnection(g.id, g.connection, T0);
  return t.model(s, now, { showTitle });
}

describe("tray icon state (P1)", () => {
  test("idle with no cards; working while a card is active; ready for unseen finished work", () => {
    const t = new TrayTracker();
    assert.equal(model(t, snap(gateway("home", []))).icon, "idle");
    assert.equal(model(t, snap(gateway("home", [cardOf("s:a", ["completed", "in_progress"])]))).icon, "working");
    const done = cardOf("s:b", ["completed", "completed"]);
    const m = model(t, snap(gateway("home", [cardOf("s:a", ["completed", "in_progress"]), done])));
    assert.equal(m.icon, "ready", "finished and not yet seen wins over working");
    assert.equal(m.badge, 0, "finished work is not an action: no badge");
    t.markSeen([done]);
    assert.equal(model(t, snap(gateway("home", [cardOf("s:a", ["completed", "in_progress"]), done]))).icon, "working");
  });

  test("attention for paused, failed or unreadable cards, with a badge; seeing the revision clears it, a new revision asks again", () => {
    const t = new TrayTracker();
    const p = paused(cardOf("s:a", ["completed", "in_progress"]));
    const failed: CardEntry = {
      ...cardOf("s:b", ["in_progress"]),
      derived: { completed: 0, total: 1, current: "Step 1", state: "paused", outcome: "failed" },
    };
    const broken: CardEntry = { ...cardOf("s:c", ["pending"]), error: { code: "MALFORMED_CARD", message: "bad" } };
    let m = model(t, snap(gateway("home", [p, failed, broken])));
    assert.equal(m.icon, "attention");
    assert.equal(m.badge, 3);
    assert.deepEqual(m.cards.map((r) => r.state).sort(), ["error", "failed", "paused"]);
    t.markSeen([p, failed, broken]);
    m = model(t, snap(gateway("home", [p, failed, broken])));
    assert.equal(m.icon, "idle");
    assert.equal(m.badge, 0);
    const p2 = { ...p, card: { ...p.card!, revision: 2 } };
    assert.equal(model(t, snap(gateway("home", [p2, failed, broken]))).icon, "attention");
  });

  test("a flag (refused notification, stall) asks for attention until the card is seen", () => {
    const t = new TrayTracker();
    const a = cardOf("s:a", ["completed", "in_progress"]);
    t.flag(a, "notification refused");
    assert.equal(model(t, snap(gateway("home", [a]))).icon, "attention");
    assert.equal(t.markSeen([a]), true);
    assert.equal(model(t, snap(gateway("home", [a]))).icon, "working");
  });

  test("a note-only card is working while its session has a live run, idle otherwise", () => {
    const t = new TrayTracker();
    const n = entry({ sessionKey: "s:n", card: card({ sessionKey: "s:n", steps: [], markdown: "Reading logs" }) });
    assert.equal(model(t, snap(gateway("home", [n]))).icon, "idle");
    const live = { key: "s:n", hasActiveRun: true } as SessionInfo;
    assert.equal(model(t, snap(gateway("home", [n], connected(T0), { sessions: [live] }))).icon, "working");
  });
});

describe("disconnects (P1, G2)", () => {
  test("a passing disconnect shows only after it lasts; auth and pairing failures show at once", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 20_000 });
    const a = cardOf("s:a", ["completed", "in_progress"]);
    const down = snap(gateway("home", [a], offline(T0 + 5000)));
    t.noteConnection("home", down.gateways[0]!.connection, T0);
    assert.equal(t.model(down, T0 + 19_999, { showTitle: true }).icon, "working", "still the cards' state");
    assert.equal(t.nextChangeAt(T0 + 1000), T0 + 20_000, "the shell redraws when it becomes visible");
    const later = t.model(down, T0 + 20_000, { showTitle: true });
    assert.equal(later.icon, "disconnected");
    assert.equal(later.badge, 0, "a disconnect asks for nothing");
    assert.equal(later.title, "", "no title for stale work");
    assert.match(later.tooltip, /not connected \(Home\)/);
    assert.equal(t.nextChangeAt(T0 + 20_000), null);

    const auth = snap(
      gateway("home", [a], { state: "auth_failed", code: "AUTH_TOKEN_MISMATCH", setting: "token", advice: "Check the token." }),
    );
    const t2 = new TrayTracker();
    t2.noteConnection("home", auth.gateways[0]!.connection, T0);
    const m = t2.model(auth, T0, { showTitle: true });
    assert.equal(m.icon, "disconnected");
    assert.equal(m.badge, 1, "the token asks for action");
    assert.deepEqual(m.connections, [
      { gatewayId: "home", state: "auth_failed", label: "Home: Sign-in failed — check the token", needsAction: true },
    ]);
  });

  test("reconnecting resets the debounce", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 20_000 });
    t.noteConnection("home", offline(T0), T0);
    t.noteConnection("home", connected(T0 + 10_000), T0 + 10_000);
    t.noteConnection("home", offline(T0), T0 + 15_000);
    assert.equal(t.model(snap(gateway("home", [], offline(T0 + 40_000))), T0 + 30_000, { showTitle: true }).icon, "idle");
    assert.equal(t.model(snap(gateway("home", [], offline(T0 + 40_000))), T0 + 35_000, { showTitle: true }).icon, "disconnected");
  });

  test("with several Gateways one down is told in the menu, not the icon; one needing pairing is attention", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 0 });
    const a = cardOf("s:a", ["completed", "in_progress"]);
    const m = model(t, snap(gateway("home", [a]), gateway("work", [], offline(NOW + 12_400))));
    assert.equal(m.icon, "working");
    assert.deepEqual(
      m.connections.map((c) => c.label),
      ["Home: Connected", "Work: Offline — retrying in 13 s"],
    );
    const pairing: ConnectionState = {
      state: "pairing_required",
      requestId: "r1",
      deviceId: "d",
      command: "openclaw devices approve r1",
      reason: "new",
      advice: "Approve.",
    };
    const m2 = model(new TrayTracker(), snap(gateway("home", [a]), gateway("work", [], pairing)));
    assert.equal(m2.icon, "attention");
    assert.equal(m2.badge, 1);
  });
});

describe("title and menu (P1)", () => {
  test("the title is the focused card in a few words: the newest active card first", () => {
    const t = new TrayTracker();
    const older = cardOf("s:a", ["completed", "in_progress", "pending", "pending", "pending"], { title: "Repair session owner" }, T0);
    const done = cardOf("s:b", ["completed"], {}, T0 + 10);
    assert.equal(model(t, snap(gateway("home", [older, done]))).title, "1/5 Repair session owner");
    assert.equal(model(t, snap(gateway("home", [older, done])), NOW, false).title, "", "off in Settings");
  });

  test("long titles are cut to the budget at a word boundary", () => {
    const t = new TrayTracker();
    const long = cardOf("s:a", ["in_progress"], { title: "Migrate every legacy billing report to the new warehouse schema" });
    const title = model(t, snap(gateway("home", [long]))).title;
    assert.ok([...title].length <= TITLE_BUDGET, title);
    assert.equal(title, "0/1 Migrate every legacy…");
  });

  test("menu rows: newest first, current step and count, state words, Gateway label only with several", () => {
    const t = new TrayTracker();
    const a = cardOf("s:a", ["completed", "in_progress", "pending"], { title: "Fix login" }, T0 + 2);
    const b = cardOf("s:b", ["completed", "completed"], { title: "Release" }, T0 + 3);
    const c = paused(cardOf("s:c", ["completed", "in_progress"], { title: "Docs" }, T0 + 1));
    const n = entry({
      sessionKey: "s:n",
      title: "Notes",
      card: card({ sessionKey: "s:n", steps: [], markdown: "## Reading the **logs** now", updatedAt: T0 }),
    });
    let m = model(t, snap(gateway("home", [a, b, c, n])));
    assert.deepEqual(
      m.cards.map((r) => r.label),
      ["Release — done (2/2)", "Fix login — Step 2 (1/3)", "Docs — paused at Step 2 (1/2)", "Notes — Reading the logs now"],
    );
    assert.deepEqual(m.cards[0]!.ref, { gatewayId: "home", sessionKey: "s:b", agentId: null });
    m = model(new TrayTracker(), snap(gateway("home", [a]), gateway("work", [{ ...b, gatewayId: "work" }])));
    assert.deepEqual(
      m.cards.map((r) => r.label),
      ["Work · Release — done (2/2)", "Home · Fix login — Step 2 (1/3)"],
    );
  });

  test("hidden and cleared cards are not listed; the menu keeps at most ten rows and says how many more", () => {
    const t = new TrayTracker();
    const many = Array.from({ length: 13 }, (_, i) => cardOf(`s:${i}`, ["in_progress"], {}, T0 + i));
    const hidden = { ...cardOf("s:hidden", ["in_progress"]), hidden: true };
    const cleared = entry({ sessionKey: "s:x", card: null, derived: null });
    const m = model(t, snap(gateway("home", [...many, hidden, cleared])));
    assert.equal(m.cards.length, MENU_MAX_CARDS);
    assert.equal(m.moreCards, 3);
    assert.ok(!m.cards.some((r) => r.ref.sessionKey === "s:hidden" || r.ref.sessionKey === "s:x"));
  });

  test("menu labels keep a long path's end visible within the budget", () => {
    const t = new TrayTracker();
    const e = cardOf("s:a", ["in_progress"], { title: "Refactor" });
    e.derived = { ...e.derived!, current: "Edit src/server/handlers/authentication/session-owner-check.ts" };
    const label = model(t, snap(gateway("home", [e]))).cards[0]!.label;
    assert.ok([...label].length <= MENU_LABEL_BUDGET, label);
    assert.match(label, /…/);
    assert.match(label, /check\.ts/, "the end of the path stays visible");
  });
});

describe("live activity in the tray (issue 5)", () => {
  const activity = (sessionKey: string, extra: Partial<SessionActivity> = {}): SessionActivity => ({
    gatewayId: "home",
    sessionKey,
    live: true,
    runId: "run-1",
    current: { glyph: "shell", label: "Shell · run npm command", tool: "exec", at: T0, status: "running" },
    lines: [],
    stall: null,
    updatedAt: T0,
    ...extra,
  });

  test("a live run without a card keeps the menu bar busy: working, with the current tool as the title", () => {
    const t = new TrayTracker();
    const m = model(t, snap(gateway("home", [], connected(T0), { activity: [activity("s:x")] })));
    assert.equal(m.icon, "working");
    assert.equal(m.title, "Shell · run npm command");
    assert.equal(model(t, snap(gateway("home", [], connected(T0), { activity: [activity("s:x", { current: null })] }))).title, "Working");
    assert.equal(
      model(t, snap(gateway("home", [], connected(T0), { activity: [activity("s:x", { live: false })] }))).icon,
      "idle",
      "an ended run is not work",
    );
  });

  test("a working card's title wins over a cardless run; a stalled run asks for a look", () => {
    const t = new TrayTracker();
    const a = cardOf("s:a", ["completed", "in_progress"], { title: "Fix login" });
    assert.equal(model(t, snap(gateway("home", [a], connected(T0), { activity: [activity("s:x")] }))).title, "1/2 Fix login");
    const stall = {
      kind: "polling",
      count: 6,
      label: "Shell · print text",
      tool: "exec",
      since: T0,
      text: "Polling the same command 6×",
    } as SessionActivity["stall"];
    const m = model(t, snap(gateway("home", [a], connected(T0), { activity: [activity("s:a", { stall })] })));
    assert.equal(m.icon, "attention");
    assert.equal(m.badge, 1);
    assert.match(m.tooltip, /1 item needs a look/);
  });
});

describe("the keychain is unavailable (issue 8, finding 3)", () => {
  const text = "The keychain is unavailable: saved Gateway secrets can't be read. Nothing was deleted.";

  test("attention, a badge and the tooltip say so, even when every Gateway is down for lack of a token", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 0 });
    const authFailed: ConnectionState = { state: "auth_failed", code: "AUTH_TOKEN_MISSING", setting: "token", advice: "" };
    const m = model(t, { ...snap(gateway("home", [], authFailed)), credentials: "unavailable" });
    assert.equal(m.icon, "attention");
    assert.equal(m.badge, 2, "the keychain and the refused sign-in");
    assert.equal(m.tooltip, `Progress Desk — ${text}`);
    const quiet = model(t, { ...snap(gateway("home", [])), credentials: "unavailable" });
    assert.equal(quiet.icon, "attention", "asks even with nothing else going on");
    assert.equal(quiet.badge, 1);
  });

  test("a working keychain or a plain file adds nothing", () => {
    const t = new TrayTracker();
    for (const credentials of ["os-keychain", "file", undefined] as const) {
      const m = model(t, { ...snap(gateway("home", [])), ...(credentials ? { credentials } : {}) });
      assert.equal(m.icon, "idle");
      assert.equal(m.badge, 0);
      assert.doesNotMatch(m.tooltip, /keychain/);
    }
  });
});

describe("needs you (an approval or a question waits on the person)", () => {
  const needs = (entries: NeedEntry[]): Partial<GatewaySnapshot> => ({ needs: { answering: "off", advice: null, entries } });

  test("ahead of every other state, across Gateways: the needs glyph, the count in title, tooltip and badge, a row per entry", () => {
    const t = new TrayTracker({ disconnectDebounceMs: 0 });
    const home = gateway(
      "home",
      [paused(cardOf("s:1", ["completed", "pending"]))],
      connected(T0),
      needs([need({ id: "a1", arrivedAt: T0 + 5 })]),
    );
    const work = gateway(
      "work",
      [],
      offline(NOW + 5000),
      needs([need({ gatewayId: "work", id: "a2", arrivedAt: T0, command: "make\u001b[2J deploy" })]),
    );
    const m = model(t, { ...snap(home, work), credentials: "unavailable" });
    assert.equal(m.icon, "needs");
    assert.equal(m.title, "2 need you");
    assert.match(m.tooltip, /^Progress Desk — 2 need you/);
    assert.equal(m.needCount, 2);
    assert.equal(m.badge, 2 + 1 + 1, "the two entries, the keychain, the paused card");
    assert.deepEqual(
      m.needs.map((r) => [r.ref, r.label]),
      [
        [{ gatewayId: "work", id: "a2" }, "Work · Command approval: make␛[2J deploy"],
        [{ gatewayId: "home", id: "a1" }, "Home · Command approval: uname -s"],
      ],
      "oldest first, labelled by Gateway, control characters shown as signs",
    );
    const allDown = model(t, snap(gateway("home", [], offline(NOW + 5000), needs([need()]))));
    assert.equal(allDown.icon, "needs", "even with every Gateway down (the approval still waits there)");
  });

  test("one entry reads '1 needs you'; with the title off, the count stays in the tooltip and badge", () => {
    const t = new TrayTracker();
    const m = model(t, snap(gateway("home", [], connected(T0), needs([need()]))), NOW, false);
    assert.equal(m.title, "");
    assert.equal(m.tooltip, "Progress Desk — 1 needs you");
    assert.equal(m.badge, 1);
  });
});
