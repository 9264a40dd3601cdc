// The card store's reactions that the mutation run found unpinned: connection changes,
// session-list events (keyless updates, create, delete, reset), read errors (not found,
// unknown agent, not connected), write replies and clears, and the refresh state with its
// time-out. Against the FAKE transport of fake-transport.ts (the real Gateway cannot produce
// these faults on demand).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { CardStore, type CardStoreOptions } from "../../main/core/cards/card-store.ts";
import type { CardEntry, ConnectionState, DeskChange, RefreshState } from "../../common/model.ts";
import { until } from "../harness/until.ts";
import { fakeTransport, gatewayError, OFFLINE, settle, UNFINISHED, wireCard, type FakeTransport } from "./fake-transport.ts";

const T = { timeout: 5_000 };
const A = "agent:main:dashboard:aaaa";
const B = "agent:main:dashboard:bbbb";
const CONNECTED: ConnectionState = { state: "connected", since: 1, serverVersion: null, scopes: [], limited: false, advice: "" };

type Harness = { t: FakeTransport; store: CardStore; changes: DeskChange[]; cards(key?: string): CardEntry[] };

function harness(rows: Array<Record<string, unknown>> = [{ key: A, label: "Session A" }], store: Partial<CardStoreOptions> = {}): Harness {
  const t = fakeTransport();
  const changes: DeskChange[] = [];
  t.auto.set("sessions.subscribe", () => ({ subscribed: true, list: { sessions: rows } }));
  t.auto.set("sessions.list", () => ({ sessions: rows }));
  const s = new CardStore({ gatewayId: "gw", transport: t, emit: (c) => changes.push(c), now: () => 7_000, readRetryMs: 5, ...store });
  return {
    t,
    store: s,
    changes,
    cards: (key) => changes.flatMap((c) => (c.type === "card" && (!key || c.entry.sessionKey === key) ? [c.entry] : [])),
  };
}

function gets(h: Harness, key = A): number {
  return h.t.of("progressCard.get").filter((c) => c.params.sessionKey === key).length;
}

/** Connects and answers every read with `card(key)` from then on. */
async function connected(h: Harness, card: (key: string) => unknown = (k) => wireCard(k, 1, UNFINISHED)): Promise<void> {
  h.t.auto.set("progressCard.get", (p) => ({ card: card(p.sessionKey as string) }));
  await h.store.onReady();
  await settle();
}

describe("connection changes", () => {
  test("a 'connected' state changes nothing: reads go on", T, async () => {
    const h = harness();
    await connected(h);
    const before = h.changes.length;
    h.store.onConnectionState(CONNECTED);
    assert.equal(h.changes.length, before);
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    assert.equal(gets(h), 2, "still connected: the change is read");
  });

  test("going offline marks each shown card offline once; slots without a card stay silent", T, async () => {
    const h = harness([{ key: A }, { key: B }]);
    await connected(h, (k) => (k === A ? wireCard(A, 1, UNFINISHED) : null));
    const before = h.changes.length;
    h.store.onConnectionState(OFFLINE);
    h.store.onConnectionState(OFFLINE);
    const after = h.changes.slice(before).flatMap((c) => (c.type === "card" ? [c.entry] : []));
    assert.deepEqual(
      after.map((e) => [e.sessionKey, e.freshness]),
      [[A, "offline"]],
    );
    assert.equal(h.store.entry(A)?.freshness, "offline");
  });

  test("a read queued when the connection dropped is read after the reconnect", T, async () => {
    const h = harness([{ key: A }, { key: B }], { maxConcurrentReads: 1 });
    await h.store.onReady();
    await settle();
    assert.equal(gets(h, A), 1);
    assert.equal(gets(h, B), 0, "B waits for A's read");
    h.store.onConnectionState(OFFLINE);
    h.t.of("progressCard.get", { pending: true })[0]!.resolve({ card: wireCard(A, 1, UNFINISHED) });
    await settle();
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, UNFINISHED) }));
    await h.store.onReady();
    await settle();
    assert.ok(gets(h, B) >= 1, "B is read after the reconnect");
    assert.equal(h.store.entry(B)?.card?.revision, 1);
  });

  test("a read that lands after the connection dropped does not show its card as live while offline", T, async () => {
    const h = harness();
    await connected(h);
    assert.equal(h.store.entry(A)?.freshness, "live");
    h.t.auto.delete("progressCard.get");
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    h.store.onConnectionState(OFFLINE);
    assert.equal(h.store.entry(A)?.freshness, "offline");
    h.t.of("progressCard.get", { pending: true })[0]!.resolve({ card: wireCard(A, 2, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.freshness, "offline", "still offline: nothing confirms the card now");
    assert.equal(h.store.entry(A)?.card?.revision, 1, "the reconnect reads it again");
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 2, UNFINISHED) }));
    await h.store.onReady();
    await settle();
    assert.equal(h.store.entry(A)?.freshness, "live");
    assert.equal(h.store.entry(A)?.card?.revision, 2);
  });
});

describe("session-list events", () => {
  test("a keyless update (or a keyless change without a reason) lists again; other keyless reasons do not", T, async () => {
    const h = harness();
    await connected(h);
    const lists = () => h.t.of("sessions.list").length;
    h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    assert.equal(lists(), 1);
    h.store.onEvent("sessions.changed", {});
    await settle();
    assert.equal(lists(), 2);
    h.store.onEvent("sessions.changed", { sessionKey: 5, reason: 3 });
    await settle();
    assert.equal(lists(), 3, "a non-text key and reason count as none");
    h.store.onEvent("sessions.changed", { reason: "compact" });
    await settle();
    assert.equal(lists(), 3);
    h.store.onConnectionState(OFFLINE);
    h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    assert.equal(lists(), 3, "not while offline");
  });

  test("a created session is read at once (create or created); other reasons for an unknown key are not", T, async () => {
    const h = harness();
    await connected(h);
    for (const [key, reason] of [
      [B, "create"],
      ["agent:main:c", "created"],
    ] as const) {
      h.store.onEvent("sessions.changed", { sessionKey: key, reason });
      await settle();
      assert.equal(gets(h, key), 1, `${reason}: read`);
    }
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:d", reason: "update" });
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:e", reason: "reset" });
    await settle();
    assert.equal(gets(h, "agent:main:d"), 0);
    assert.equal(gets(h, "agent:main:e"), 0);
    h.store.onConnectionState(OFFLINE);
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:f", reason: "create" });
    await settle();
    assert.equal(gets(h, "agent:main:f"), 0, "not while offline");
  });

  test("delete removes the session unless it names another transcript id", T, async () => {
    const h = harness([{ key: A, sessionId: "s1" }, { key: B }, { key: "agent:main:c", sessionId: "s3" }]);
    await connected(h);
    const keys = () =>
      h.store
        .sessionList()
        .map((s) => s.key)
        .sort();
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "delete", sessionId: "s-newer" });
    assert.deepEqual(keys(), [A, B, "agent:main:c"].sort(), "another transcript: kept");
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "delete", sessionId: "s1" });
    assert.deepEqual(keys(), [B, "agent:main:c"].sort());
    h.store.onEvent("sessions.changed", { sessionKey: B, reason: "delete", sessionId: "s2", session: { key: B, label: "still here?" } });
    assert.deepEqual(keys(), ["agent:main:c"], "a row without a transcript id is deleted, and a row sent along is not re-added");
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:c", reason: "delete", sessionId: 7 });
    assert.deepEqual(keys(), [], "a non-text transcript id names none");
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:unknown", reason: "delete", sessionId: "x" });
  });

  test("reset and delete re-read a known card; events for unknown keys never throw", T, async () => {
    const h = harness();
    await connected(h);
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "reset" });
    await settle();
    assert.equal(gets(h), 2);
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:nobody", reason: "reset" });
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:nobody", reason: "update" });
    await settle();
  });

  test("a stale card (read failed) is read again on any change for its session; a live one is not", T, async () => {
    const h = harness([{ key: A }], { readRetryMs: 60_000 }); // no retry timer fires during the test
    await connected(h);
    h.t.auto.set("progressCard.get", () => {
      throw gatewayError("UNAVAILABLE");
    });
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    assert.equal(h.store.entry(A)?.freshness, "stale");
    const before = gets(h);
    h.t.auto.set("progressCard.get", () => ({ card: wireCard(A, 2, UNFINISHED) }));
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update" });
    await settle();
    assert.equal(gets(h), before + 1);
    assert.equal(h.store.entry(A)?.freshness, "live");
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update" });
    await settle();
    assert.equal(gets(h), before + 1, "live again: no read");
    h.store.dispose();
  });
});

describe("read errors", () => {
  test("a session that is not found hides its card once, however often it is read", T, async () => {
    const h = harness();
    await connected(h);
    h.t.auto.set("progressCard.get", () => {
      throw new Error("session agent:main:dashboard:aaaa was not found");
    });
    const before = h.cards(A).length;
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 3 });
    await settle();
    assert.equal(gets(h), 3);
    const after = h.cards(A).slice(before);
    assert.equal(after.length, 1);
    assert.equal(after[0]!.hidden, true);
  });

  test("an unknown agent id drops the card (said once) and forgets the slot", T, async () => {
    const h = harness([]);
    await connected(h);
    h.store.track("global", "ops");
    await settle();
    assert.equal(h.store.entry("global", "ops")?.card?.revision, 1);
    h.t.auto.set("progressCard.get", () => {
      throw gatewayError("INVALID_REQUEST", "UNKNOWN_AGENT_ID");
    });
    const before = h.changes.length;
    h.store.onEvent("progressCard.changed", { sessionKey: "agent:ops:global" });
    await settle();
    const after = h.changes.slice(before).flatMap((c) => (c.type === "card" ? [c.entry] : []));
    assert.equal(after.length, 1);
    assert.equal(after[0]!.card, null);
    assert.equal(h.store.entry("global", "ops"), null);
    h.store.track("global", "gone");
    await settle();
    const quiet = h.changes.length;
    h.store.onEvent("progressCard.changed", { sessionKey: "agent:gone:global" });
    await settle();
    assert.equal(h.changes.length, quiet, "no card, nothing to say");
  });

  test("NOT_CONNECTED leaves the card as it was, with no error", T, async () => {
    const h = harness();
    await connected(h);
    h.t.auto.set("progressCard.get", () => {
      throw gatewayError("NOT_CONNECTED");
    });
    const before = h.changes.length;
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    assert.equal(h.changes.length, before);
    assert.equal(h.store.entry(A)?.error, null);
    assert.equal(h.store.entry(A)?.freshness, "live");
  });

  test("an error without a card leaves freshness live; the retry reads again", T, async () => {
    const h = harness([{ key: B }]);
    h.t.auto.set("progressCard.get", () => {
      throw gatewayError("UNAVAILABLE");
    });
    await h.store.onReady();
    await settle();
    assert.equal(h.store.entry(B)?.error?.code, "UNAVAILABLE");
    assert.equal(h.store.entry(B)?.freshness, "live");
    h.t.auto.set("progressCard.get", () => ({ card: wireCard(B, 1, UNFINISHED) }));
    await until("the retry read", () => h.store.entry(B)?.card?.revision === 1, 2_000, 5);
    assert.equal(h.store.entry(B)?.error, null);
    assert.equal(h.store.stats.reads, gets(h, B), "readCount counts every read");
    h.store.dispose();
  });
});

describe("write replies and clears", () => {
  test("a malformed write reply is not applied; the card is read instead", T, async () => {
    const h = harness();
    await connected(h);
    assert.equal(h.store.applyWriteReply(A, null, { sessionKey: A, revision: "x" }), null);
    await settle();
    assert.equal(gets(h), 2);
  });

  test("an applied write reply is live and said", T, async () => {
    const h = harness();
    await connected(h);
    h.store.onConnectionState(OFFLINE);
    const before = h.cards(A).length;
    h.store.applyWriteReply(A, null, wireCard(A, 2, UNFINISHED));
    const said = h.cards(A).slice(before);
    assert.equal(said.length, 1);
    assert.equal(said[0]!.card?.revision, 2);
    assert.equal(said[0]!.freshness, "live");
  });

  test("a clear of another revision keeps the shown card", T, async () => {
    const h = harness();
    await connected(h, () => wireCard(A, 2, UNFINISHED));
    h.store.onConnectionState(OFFLINE);
    h.store.applyCleared(A, null, 1);
    assert.equal(h.store.entry(A)?.card?.revision, 2);
    h.store.applyCleared(A, null, 2);
    assert.equal(h.store.entry(A)?.card, null);
  });
});

describe("refresh state", () => {
  const pending = (key: string, baseline: number): RefreshState => ({ status: "pending", key, baseline, startedAt: 7_000 });

  test("setting it is said; a pending refresh the card already passed is no refresh", T, async () => {
    const h = harness();
    await connected(h, () => wireCard(A, 3, UNFINISHED));
    const before = h.cards(A).length;
    h.store.setRefresh(A, null, pending("k1", 3));
    assert.equal(h.cards(A).length, before + 1);
    assert.equal(h.cards(A).at(-1)!.refresh?.status, "pending");
    h.store.setRefresh(A, null, pending("k2", 2));
    assert.equal(h.store.entry(A)?.refresh, null, "revision 3 already answers a refresh from revision 2");
    h.store.setRefresh(A, null, null);
    assert.equal(h.store.entry(A)?.refresh, null);
    assert.equal(h.cards(A).length, before + 3);
  });

  test("a pending refresh times out after its time-out; one without a time-out stays pending", T, async () => {
    const h = harness([{ key: A }, { key: B }]);
    await connected(h);
    h.store.setRefresh(B, null, pending("kb", 1));
    h.store.setRefresh(A, null, pending("ka", 1), 20);
    const timedOut = await until(
      "A's refresh to time out",
      () => (h.store.entry(A)?.refresh?.status === "timed_out" ? h.store.entry(A)!.refresh : null),
      2_000,
      5,
    );
    assert.deepEqual(timedOut, { status: "timed_out", key: "ka", baseline: 1, at: 7_000 });
    assert.equal(h.cards(A).at(-1)!.refresh?.status, "timed_out", "the time-out is said");
    assert.equal(h.store.entry(B)?.refresh?.status, "pending");
  });

  test("on the default schedule, dispose cancels a pending time-out", T, async () => {
    const h = harness();
    await connected(h);
    h.store.setRefresh(A, null, pending("k", 1), 10);
    h.store.dispose();
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(h.store.entry(A)?.refresh?.status, "pending");
  });

  test("a newer card confirms a pending refresh and stops its time-out", T, async () => {
    const h = harness();
    await connected(h);
    h.store.setRefresh(A, null, pending("k", 1), 30);
    h.t.auto.set("progressCard.get", () => ({ card: wireCard(A, 2, UNFINISHED) }));
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    await settle();
    assert.equal(h.store.entry(A)?.refresh, null);
    h.store.setRefresh(B, null, pending("probe", 0), 60);
    await until("a later time-out", () => h.store.entry(B)?.refresh?.status === "timed_out", 2_000, 5);
    assert.equal(h.store.entry(A)?.refresh, null, "the confirmed refresh never times out");
  });
});
