// C2–C5, G3, G4, P4: the card store against a FAKE transport (see fake-transport.ts: the
// real Gateway cannot produce out-of-order replies, slow reads or malformed cards on demand).
import { createLogger } from "../../main/core/logger.ts";
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { CardStore, type CardStoreOptions } from "../../main/core/cards/card-store.ts";
import { AGENT_SCOPE_CAPABILITY, MAX_SESSION_KEY_LENGTH } from "../../main/core/cards/card-slots.ts";
import { slotKeyWithinGateway } from "../../common/keys.ts";
import type { DeskChange, CardEntry } from "../../common/model.ts";
import { DONE, fakeTransport, gatewayError, OFFLINE, settle, UNFINISHED, wireCard, type FakeTransport } from "./fake-transport.ts";
import { ManualTimers } from "./manual-timers.ts";

/** A hang (an awaited reply that never comes) fails fast instead of stalling the run. */
const T = { timeout: 5_000 };

const A = "agent:main:dashboard:aaaa";
const B = "agent:main:dashboard:bbbb";

type Harness = {
  t: FakeTransport;
  store: CardStore;
  changes: DeskChange[];
  cardChanges(key?: string): CardEntry[];
  clock: { now: number };
  timers: ManualTimers;
};

function harness(
  opts: { rows?: Array<Record<string, unknown>>; capabilities?: string[]; store?: Partial<CardStoreOptions> } = {},
): Harness {
  const t = fakeTransport(opts.capabilities ? { capabilities: opts.capabilities } : {});
  const changes: DeskChange[] = [];
  const clock = { now: 5_000_000 };
  const timers = new ManualTimers();
  t.auto.set("sessions.subscribe", () => ({ subscribed: true, list: { sessions: opts.rows ?? [{ key: A, label: "Session A" }] } }));
  t.auto.set("sessions.list", () => ({ sessions: opts.rows ?? [{ key: A, label: "Session A" }] }));
  const store = new CardStore({
    gatewayId: "gw",
    transport: t,
    emit: (c) => changes.push(c),
    now: () => clock.now,
    readRetryMs: 5,
    schedule: timers.schedule,
    ...opts.store,
  });
  return {
    t,
    store,
    changes,
    clock,
    timers,
    cardChanges: (key) => changes.flatMap((c) => (c.type === "card" && (!key || c.entry.sessionKey === key) ? [c.entry] : [])),
  };
}

/** onReady, then answer the initial read of A with `card`. */
async function ready(h: Harness, card: unknown = wireCard(A, 1, UNFINISHED)): Promise<void> {
  await h.store.onReady();
  const first = h.t.of("progressCard.get", { pending: true }).find((c) => c.params.sessionKey === A);
  assert.ok(first, "onReady reads A");
  first.resolve({ card });
  await settle();
}

/** A progressCard.changed event for `key` at `revision`, once the store has acted on it. */
async function changed(h: Harness, revision: number | null, key = A): Promise<void> {
  h.store.onEvent("progressCard.changed", { sessionKey: key, revision });
  await settle();
}

function gets(h: Harness, key = A): number {
  return h.t.of("progressCard.get").filter((c) => c.params.sessionKey === key).length;
}

function pendingGet(h: Harness, key = A) {
  const open = h.t.of("progressCard.get", { pending: true }).filter((c) => c.params.sessionKey === key);
  assert.equal(open.length, 1, `exactly one read of ${key} in flight`);
  return open[0]!;
}

describe("CardStore: reading", () => {
  test("onReady subscribes (sessions.subscribe) and reads every session of the roster", T, async () => {
    const h = harness({
      rows: [
        { key: A, label: "Session A" },
        { key: B, displayName: "Session B" },
      ],
    });
    await h.store.onReady();
    const sub = h.t.of("sessions.subscribe");
    assert.equal(sub.length, 1);
    assert.equal(sub[0]!.params.limit, 100);
    assert.equal(sub[0]!.params.excludeSubagents, true);
    assert.deepEqual(
      h.t.of("progressCard.get").map((c) => c.params),
      [{ sessionKey: A }, { sessionKey: B }],
    );
    assert.deepEqual(
      h.store.sessionList().map((s) => s.title),
      ["Session A", "Session B"],
    );
    assert.ok(h.changes.some((c) => c.type === "sessions"));
  });

  test("a progressCard.changed triggers exactly one progressCard.get, and the card is shown", T, async () => {
    const h = harness();
    await ready(h);
    assert.equal(gets(h), 1);
    assert.equal(h.store.entry(A)?.card?.revision, 1);
    await changed(h, 2);
    assert.equal(gets(h), 2);
    h.clock.now = 5_000_123;
    pendingGet(h).resolve({ card: wireCard(A, 2, UNFINISHED) });
    await settle();
    assert.equal(gets(h), 2, "no further read");
    const e = h.store.entry(A)!;
    assert.equal(e.card?.revision, 2);
    assert.equal(e.title, "Session A");
    assert.equal(e.freshness, "live");
    assert.equal(e.confirmedAt, 5_000_123);
    assert.equal(e.error, null);
    assert.deepEqual(
      { completed: e.derived?.completed, total: e.derived?.total, current: e.derived?.current },
      { completed: 1, total: 3, current: "Run tests" },
    );
    assert.equal(h.cardChanges(A).at(-1)?.card?.revision, 2);
  });

  test("10 change events during a read in flight cause exactly ONE more read, never two at once", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, 2);
    const inFlight = pendingGet(h);
    for (let r = 3; r <= 12; r++) h.store.onEvent("progressCard.changed", { sessionKey: A, revision: r });
    await settle();
    assert.equal(gets(h), 2, "no read while one is in flight");
    inFlight.resolve({ card: wireCard(A, 2, UNFINISHED) });
    await settle();
    assert.equal(gets(h), 3, "exactly one more read");
    pendingGet(h).resolve({ card: wireCard(A, 12, UNFINISHED) });
    await settle();
    assert.equal(gets(h), 3, "and no more after it");
    assert.equal(h.store.entry(A)?.card?.revision, 12);
    assert.equal(h.store.stats.maxInFlightPerSession, 1);
    assert.equal(h.t.maxPendingPerSession("progressCard.get"), 1);
  });

  test("a change for the revision already held is skipped", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 3, UNFINISHED));
    await changed(h, 3);
    assert.equal(gets(h), 1);
  });

  test("a change for a lower revision than held is read (a reset restarts revisions), and the read is the truth", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 3, UNFINISHED));
    await changed(h, 1);
    assert.equal(gets(h), 2);
    pendingGet(h).resolve({ card: wireCard(A, 1, DONE) });
    await settle();
    assert.equal(h.store.entry(A)?.card?.revision, 1);
  });

  test("revision null always re-reads; a null card clears", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 3, UNFINISHED));
    await changed(h, null);
    assert.equal(gets(h), 2);
    pendingGet(h).resolve({ card: null });
    await settle();
    assert.equal(h.store.entry(A)?.card, null);
    assert.equal(h.store.entry(A)?.derived, null);
    assert.deepEqual(h.store.entries(), [], "a cleared card is not listed");
    // a second null hint still reads, even with nothing held
    await changed(h, null);
    assert.equal(gets(h), 3);
    pendingGet(h).resolve({ card: null });
    await settle();
  });

  test("events without a session key are ignored", T, async () => {
    const h = harness();
    await ready(h);
    for (const p of [null, {}, { sessionKey: "" }, { sessionKey: 5 }]) h.store.onEvent("progressCard.changed", p);
    h.store.onEvent("something.else", { sessionKey: A });
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 1);
  });

  test("a change event for an unknown session creates and reads it", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, 1, B);
    pendingGet(h, B).resolve({ card: wireCard(B, 1, DONE) });
    await settle();
    assert.equal(h.store.entry(B)?.derived?.state, "complete");
    assert.deepEqual(
      h.store
        .entries()
        .map((e) => e.sessionKey)
        .sort(),
      [A, B],
    );
  });
});

describe("CardStore: out-of-order replies (C4)", () => {
  test("a write reply of revision 5, then a read (started earlier) returning 4 → stays 5, and it reads again", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 3, UNFINISHED));
    await changed(h, 4);
    const slow = pendingGet(h);
    const applied = h.store.applyWriteReply(A, null, wireCard(A, 5, UNFINISHED));
    assert.equal(applied?.revision, 5);
    assert.equal(h.store.entry(A)?.card?.revision, 5);
    slow.resolve({ card: wireCard(A, 4, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.card?.revision, 5, "never back to 4");
    // the store confirms with one more read
    assert.equal(gets(h), 3);
    pendingGet(h).resolve({ card: wireCard(A, 5, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.card?.revision, 5);
    assert.equal(gets(h), 3);
  });

  test("a write reply older than the card held never replaces it", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 7, UNFINISHED));
    const before = h.changes.length;
    h.store.applyWriteReply(A, null, wireCard(A, 6, DONE));
    h.store.applyWriteReply(A, null, wireCard(A, 7, DONE));
    assert.equal(h.store.entry(A)?.card?.revision, 7);
    assert.equal(h.store.entry(A)?.derived?.state, "paused", "still the unfinished revision 7");
    assert.equal(h.changes.length, before, "nothing emitted");
  });

  test("a null write reply does not clear by itself: it asks for a read", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    assert.equal(h.store.applyWriteReply(A, null, null), null);
    assert.equal(h.store.entry(A)?.card?.revision, 2);
    await settle();
    assert.equal(gets(h), 2);
    pendingGet(h).resolve({ card: null });
    await settle();
    assert.equal(h.store.entry(A)?.card, null);
  });

  test("our confirmed clear, then a read (started earlier) returning the cleared card → stays cleared, and it reads again", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 1, DONE));
    await changed(h, 2);
    const slow = pendingGet(h);
    h.store.applyCleared(A, null, 1);
    assert.equal(h.store.entry(A)?.card, null);
    const shown = h.cardChanges(A).length;
    slow.resolve({ card: wireCard(A, 1, DONE) });
    await settle();
    assert.equal(h.store.entry(A)?.card, null, "the cleared card never comes back, not even for a moment");
    assert.equal(h.cardChanges(A).length, shown, "nothing emitted for the stale read");
    pendingGet(h).resolve({ card: null });
    await settle();
    assert.equal(h.store.entry(A)?.card, null);
    assert.equal(gets(h), 3);
  });
});

describe("CardStore: failures (P4, C5)", () => {
  test("SESSION_PARTICIPATION_REQUIRED hides the card; a later successful read shows it again", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    await changed(h, 3);
    pendingGet(h).reject(gatewayError("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED"));
    await settle();
    let e = h.store.entry(A)!;
    assert.equal(e.hidden, true);
    assert.equal(e.error, null, "hidden, not an error");
    assert.equal(h.cardChanges(A).at(-1)?.hidden, true);
    assert.deepEqual(h.timers.pending(), [], "no retry loop while hidden");
    assert.equal(gets(h), 2);
    // access returns: a sessions.changed for the key retries
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update" });
    await settle();
    assert.equal(gets(h), 3);
    pendingGet(h).resolve({ card: wireCard(A, 3, UNFINISHED) });
    await settle();
    e = h.store.entry(A)!;
    assert.equal(e.hidden, false);
    assert.equal(e.card?.revision, 3);
  });

  test("a session denied from its first read is still listed, as hidden, for a page opened later (P3)", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    await changed(h, 1, B);
    pendingGet(h, B).reject(gatewayError("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED"));
    await settle();
    const listed = h.store.entries().find((e) => e.sessionKey === B);
    assert.ok(listed, "the denied session is in the snapshot, not only in the live change");
    assert.equal(listed.hidden, true);
    assert.equal(listed.card, null);
  });

  test("a hidden card is re-read on a change event even for the revision it holds", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    await changed(h, null);
    pendingGet(h).reject(gatewayError("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED"));
    await settle();
    await changed(h, 2);
    assert.equal(gets(h), 3);
    pendingGet(h).resolve({ card: wireCard(A, 2, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.hidden, false);
  });

  test("'Session … was not found' (hidden/incognito) also hides", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    await changed(h, 3);
    pendingGet(h).reject(gatewayError("INVALID_REQUEST", undefined, `Session "${A}" was not found.`));
    await settle();
    assert.equal(h.store.entry(A)?.hidden, true);
  });

  test("another read error → stale, last card kept, error set, and a retry", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    const confirmedAt = h.store.entry(A)!.confirmedAt;
    await changed(h, 3);
    h.clock.now += 1000;
    pendingGet(h).reject(gatewayError("UNAVAILABLE", undefined, "gateway busy"));
    await settle();
    let e = h.store.entry(A)!;
    assert.equal(e.freshness, "stale");
    assert.equal(e.card?.revision, 2, "the last card stays");
    assert.deepEqual(e.error, { code: "UNAVAILABLE", message: "gateway busy" });
    assert.equal(e.confirmedAt, confirmedAt, "not re-confirmed");
    assert.equal(e.hidden, false);
    // readRetryMs is 5: the retry comes on its own
    assert.deepEqual(h.timers.pending(), [5], "a retry is scheduled");
    h.timers.fireNext();
    await settle();
    assert.equal(gets(h), 3, "retried once");
    pendingGet(h).resolve({ card: wireCard(A, 3, UNFINISHED) });
    await settle();
    e = h.store.entry(A)!;
    assert.equal(e.freshness, "live");
    assert.equal(e.error, null);
    assert.equal(e.card?.revision, 3);
    assert.deepEqual(h.timers.pending(), [], "no retry after success");
    assert.equal(gets(h), 3);
  });

  test("retries back off (doubling from readRetryMs), and dispose stops them", T, async () => {
    const h = harness({ store: { readRetryMs: 20 } });
    await ready(h, wireCard(A, 2, UNFINISHED));
    h.t.auto.set("progressCard.get", () => {
      throw gatewayError("UNAVAILABLE");
    });
    await changed(h, 3);
    const delays: number[] = [];
    for (let retry = 0; retry < 2; retry += 1) {
      assert.equal(h.timers.pending().length, 1, "one retry at a time");
      delays.push(h.timers.fireNext());
      await settle();
    }
    assert.equal(gets(h), 4, "the first read after the change and two retries");
    assert.deepEqual(delays, [20, 40], "the delay doubles from readRetryMs");
    assert.deepEqual(h.timers.pending(), [80], "the third retry is due 80 ms after the second");
    h.store.dispose();
    assert.deepEqual(h.timers.pending(), [], "dispose stops the retries");
  });

  test("a malformed card reply → error MALFORMED_CARD, no throw, last card kept", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 2, UNFINISHED));
    await changed(h, 3);
    pendingGet(h).resolve({
      card: wireCard(A, 3, [
        { step: "a", status: "in_progress" },
        { step: "b", status: "in_progress" },
      ]),
    });
    await settle();
    const e = h.store.entry(A)!;
    assert.equal(e.error?.code, "MALFORMED_CARD");
    assert.match(e.error!.message, /in_progress/);
    assert.equal(e.card?.revision, 2);
    assert.ok(h.store.entries().some((x) => x.sessionKey === A));
  });

  test("a malformed first card still lists the session with its error (never blank)", T, async () => {
    const h = harness();
    await ready(h, { sessionKey: A, revision: 0, updatedAt: 1, markdown: "x" });
    const e = h.store.entry(A)!;
    assert.equal(e.card, null);
    assert.equal(e.error?.code, "MALFORMED_CARD");
    assert.deepEqual(
      h.store.entries().map((x) => x.sessionKey),
      [A],
    );
  });

  test("an oversized note is a clear error state", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 1, null, { markdown: "€".repeat(3000) }));
    assert.equal(h.store.entry(A)?.error?.code, "MALFORMED_CARD");
    assert.match(h.store.entry(A)!.error!.message, /9000 bytes/);
  });
});

describe("CardStore: connection state (G3)", () => {
  test("offline → every card 'offline', confirmedAt kept; no reads while offline", T, async () => {
    const h = harness({ rows: [{ key: A }, { key: B }] });
    await h.store.onReady();
    h.clock.now = 42;
    for (const c of h.t.of("progressCard.get", { pending: true }))
      c.resolve({ card: wireCard(c.params.sessionKey as string, 1, UNFINISHED) });
    await settle();
    const before = h.changes.length;
    h.store.onConnectionState(OFFLINE);
    for (const key of [A, B]) {
      const e = h.store.entry(key)!;
      assert.equal(e.freshness, "offline", key);
      assert.equal(e.confirmedAt, 42, key);
      assert.equal(e.card?.revision, 1, key);
    }
    assert.equal(h.changes.length - before, 2, "one card change per card");
    await changed(h, 5);
    assert.equal(h.t.of("progressCard.get").length, 2, "no read while offline");
    // a second offline state emits nothing new
    h.store.onConnectionState({ state: "connecting", attempt: 2, advice: "" });
    assert.equal(h.changes.length - before, 2);
  });

  test("after a reconnect (onReady) it subscribes again and re-reads every card, back to live", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 1, UNFINISHED));
    h.store.track(B);
    await settle();
    pendingGet(h, B).resolve({ card: wireCard(B, 4, DONE) });
    await settle();
    h.store.onConnectionState(OFFLINE);
    await h.store.onReady();
    assert.equal(h.t.of("sessions.subscribe").length, 2);
    pendingGet(h, A).resolve({ card: wireCard(A, 2, UNFINISHED) });
    pendingGet(h, B).resolve({ card: wireCard(B, 4, DONE) });
    await settle();
    assert.equal(h.store.entry(A)?.freshness, "live");
    assert.equal(h.store.entry(A)?.card?.revision, 2);
    assert.equal(h.store.entry(B)?.freshness, "live");
  });

  test("a gap re-lists (sessions.list) and re-reads every card", T, async () => {
    const h = harness();
    await ready(h);
    await h.store.onGap();
    assert.equal(h.t.of("sessions.list").length, 1);
    assert.equal(gets(h), 2);
    pendingGet(h).resolve({ card: wireCard(A, 1, UNFINISHED) });
    await settle();
  });

  test("a read error that lands after the disconnect changes nothing (the reconnect re-reads)", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 1, UNFINISHED));
    await changed(h, 2);
    const call = pendingGet(h);
    h.store.onConnectionState(OFFLINE);
    call.reject(gatewayError("CLIENT_TIMEOUT"));
    await settle();
    const e = h.store.entry(A)!;
    assert.equal(e.freshness, "offline");
    assert.equal(e.error, null);
    assert.deepEqual(h.timers.pending(), [], "no retry timer while offline");
    assert.equal(gets(h), 2);
  });
});

describe("CardStore: run state from sessions.changed (R6)", () => {
  const running = { key: A, label: "A", status: "running", hasActiveRun: true, activeRunIds: ["r1"], startedAt: 1_000_000 };

  test("a run ending re-derives active → paused and emits a card change", T, async () => {
    const h = harness({ rows: [running] });
    await ready(h, wireCard(A, 1, UNFINISHED));
    assert.equal(h.store.entry(A)?.derived?.state, "active");
    const before = h.cardChanges(A).length;
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update", hasActiveRun: false, activeRunIds: [] });
    await settle();
    assert.equal(h.store.entry(A)?.derived?.state, "paused");
    const emitted = h.cardChanges(A).slice(before);
    assert.equal(emitted.length, 1);
    assert.equal(emitted[0]!.derived?.state, "paused");
    assert.equal(gets(h), 1, "run changes need no card read");
  });

  test("a finished run covering the card gives its outcome", T, async () => {
    const h = harness({ rows: [running] });
    await ready(h, wireCard(A, 1, UNFINISHED));
    h.store.onEvent("sessions.changed", {
      sessionKey: A,
      phase: "end",
      runId: "r1",
      status: "failed",
      hasActiveRun: false,
      activeRunIds: [],
      endedAt: 2_000_000,
    });
    await settle();
    assert.equal(h.store.entry(A)?.derived?.outcome, "failed");
    assert.equal(h.store.entry(A)?.derived?.state, "paused");
  });

  test("a full row in sessions.changed updates the title", T, async () => {
    const h = harness({ rows: [running] });
    await ready(h, wireCard(A, 1, UNFINISHED));
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update", session: { ...running, label: "Renamed" } });
    await settle();
    assert.equal(h.store.entry(A)?.title, "Renamed");
    assert.equal(h.cardChanges(A).at(-1)?.title, "Renamed");
  });

  test("an unchanged sessions.changed emits no card change", T, async () => {
    const h = harness({ rows: [running] });
    await ready(h, wireCard(A, 1, UNFINISHED));
    const before = h.cardChanges(A).length;
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update" });
    await settle();
    assert.equal(h.cardChanges(A).length, before);
  });

  test("reset re-reads the card; a keyless update lists again and reads only sessions new to it", T, async () => {
    const rows: Array<Record<string, unknown>> = [running];
    const h = harness({ rows });
    await ready(h, wireCard(A, 3, UNFINISHED));
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "reset" });
    await settle();
    assert.equal(gets(h), 2);
    pendingGet(h).resolve({ card: null });
    await settle();
    assert.equal(h.store.entry(A)?.card, null);
    rows.unshift({ key: B, label: "New B" });
    h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    assert.equal(h.t.of("sessions.list").length, 1);
    assert.equal(gets(h), 2, "A was read and nothing changed for it: no read");
    pendingGet(h, B).resolve({ card: wireCard(B, 1, DONE) });
    await settle();
    assert.equal(h.store.entry(B)?.title, "New B");
  });

  test("delete with another sessionId keeps the newer session that reuses the key", T, async () => {
    const h = harness({ rows: [{ ...running, sessionId: "new" }] });
    await ready(h, wireCard(A, 1, UNFINISHED));
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "delete", sessionId: "old" });
    await settle();
    assert.equal(h.store.sessionList().length, 1);
    pendingGet(h).resolve({ card: wireCard(A, 1, UNFINISHED) });
    await settle();
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "delete", sessionId: "new" });
    await settle();
    assert.equal(h.store.sessionList().length, 0);
    pendingGet(h).resolve({ card: null });
    await settle();
  });
});

describe("CardStore: agent scope (G4)", () => {
  test("a bare key with agentId and the capability: agentId is sent, and kept for later reads", T, async () => {
    const h = harness({ rows: [] });
    await h.store.onReady();
    const entry = h.store.track("global", "research");
    assert.equal(entry.agentId, "research");
    await settle();
    const first = h.t.of("progressCard.get", { pending: true });
    assert.deepEqual(
      first.map((c) => c.params),
      [{ sessionKey: "global", agentId: "research" }],
    );
    first[0]!.resolve({ card: wireCard("agent:research:global", 1, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry("global", "research")?.card?.revision, 1);
    // the event names the agent-qualified key; the read keeps the pair used before
    await changed(h, 2, "agent:research:global");
    const second = h.t.of("progressCard.get", { pending: true });
    assert.deepEqual(
      second.map((c) => c.params),
      [{ sessionKey: "global", agentId: "research" }],
    );
    second[0]!.resolve({ card: wireCard("agent:research:global", 2, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry("global", "research")?.card?.revision, 2);
    assert.equal(h.store.entry("agent:research:global"), null, "no second slot for the qualified key");
  });

  test("only a key that starts with agent:<id>: names a bare key's slot; one that merely contains it is its own session", T, async () => {
    const h = harness({ rows: [] });
    await h.store.onReady();
    h.store.track("global", "research");
    await settle();
    h.t.of("progressCard.get", { pending: true })[0]!.resolve({ card: null });
    await settle();
    await changed(h, 1, "cron:agent:research:global");
    assert.deepEqual(
      h.t.of("progressCard.get", { pending: true }).map((c) => c.params),
      [{ sessionKey: "cron:agent:research:global" }],
    );
  });

  test("a bare key with agentId WITHOUT the capability: updateRequired, and no read is sent", T, async () => {
    const h = harness({ rows: [], capabilities: [] });
    await h.store.onReady();
    h.store.track("global", "research");
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 0);
    const e = h.store.entry("global", "research")!;
    assert.equal(e.updateRequired, true);
    assert.ok(h.cardChanges("global").some((x) => x.updateRequired));
    assert.equal(h.store.readTarget({ sessionKey: "global", agentId: "research" }), null);
  });

  test("agentId is never sent for agent-qualified keys", T, async () => {
    const h = harness({ rows: [], capabilities: [] });
    await h.store.onReady();
    const e = h.store.track("agent:research:main", "research");
    assert.equal(e.agentId, null);
    await settle();
    assert.deepEqual(
      h.t.of("progressCard.get").map((c) => c.params),
      [{ sessionKey: "agent:research:main" }],
    );
    assert.deepEqual(h.store.readTarget({ sessionKey: "agent:x:y", agentId: "x" }), { sessionKey: "agent:x:y" });
    assert.deepEqual(h.store.readTarget({ sessionKey: "global", agentId: null }), { sessionKey: "global" });
    h.t.capabilities.add(AGENT_SCOPE_CAPABILITY);
    assert.deepEqual(h.store.readTarget({ sessionKey: "global", agentId: "x" }), { sessionKey: "global", agentId: "x" });
  });

  test("slotKeyWithinGateway keeps bare keys of different agents apart", () => {
    assert.notEqual(slotKeyWithinGateway("global", "a"), slotKeyWithinGateway("global", "b"));
    assert.equal(slotKeyWithinGateway("agent:a:x", "a"), "agent:a:x");
    assert.equal(slotKeyWithinGateway("global", null), "global");
  });

  test("an UNKNOWN_AGENT_ID drops the target", T, async () => {
    const h = harness({ rows: [] });
    await h.store.onReady();
    h.store.track("global", "gone");
    await settle();
    h.t.of("progressCard.get", { pending: true })[0]!.reject(gatewayError("INVALID_REQUEST", "UNKNOWN_AGENT_ID"));
    await settle();
    assert.equal(h.store.entry("global", "gone"), null);
  });
});

describe("CardStore: concurrency", () => {
  test("maxConcurrentReads is respected across sessions, and every session is read", T, async () => {
    const keys = ["a", "b", "c", "d", "e", "f", "g"].map((k) => `agent:main:dashboard:${k}`);
    const h = harness({ rows: keys.map((key) => ({ key })), store: { maxConcurrentReads: 2 } });
    await h.store.onReady();
    let maxOpen = 0;
    for (let round = 0; round < 20; round++) {
      await settle();
      const open = h.t.of("progressCard.get", { pending: true });
      maxOpen = Math.max(maxOpen, open.length);
      if (open.length === 0) break;
      open[0]!.resolve({ card: wireCard(open[0]!.params.sessionKey as string, 1, DONE) });
    }
    assert.equal(maxOpen, 2);
    assert.deepEqual(
      h.t
        .of("progressCard.get")
        .map((c) => c.params.sessionKey)
        .sort(),
      [...keys].sort(),
      "each session read exactly once",
    );
    assert.equal(h.store.entries().length, keys.length);
    assert.equal(h.store.stats.maxInFlightPerSession, 1);
  });

  test("a change for a queued session does not add a second read", T, async () => {
    const h = harness({ rows: [{ key: A }, { key: B }], store: { maxConcurrentReads: 1 } });
    await h.store.onReady();
    // A is reading, B is queued
    assert.equal(h.t.of("progressCard.get").length, 1);
    for (let i = 0; i < 5; i++) h.store.onEvent("progressCard.changed", { sessionKey: B, revision: 1 + i });
    pendingGet(h, A).resolve({ card: null });
    await settle();
    pendingGet(h, B).resolve({ card: wireCard(B, 5, DONE) });
    await settle();
    assert.equal(gets(h, B), 1);
    assert.equal(h.t.of("progressCard.get", { pending: true }).length, 0);
  });
});

describe("CardStore: what a flooding Gateway cannot make us hold or send (issue 8)", () => {
  test("change events for ever-new sessions stop adding sessions at the cap; a session already followed still updates", T, async () => {
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn", sink: (r) => void warnings.push(r.message) });
    const h = harness({ store: { maxSessions: 10, logger } });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady(); // the roster's A is the first session
    for (let i = 0; i < 1000; i++) h.store.onEvent("progressCard.changed", { sessionKey: `agent:main:new:${i}`, revision: 1 });
    for (let i = 0; i < 1000; i++) {
      const key = `agent:main:other:${i}`;
      h.store.onEvent("sessions.changed", { sessionKey: key, reason: "create", session: { key, label: `Other ${i}` } });
    }
    await settle();
    assert.equal(h.store.entries().length, 10, "the cap, not one session per key named");
    assert.ok(h.store.sessionList().length <= 10, `${h.store.sessionList().length} session rows kept`);
    assert.equal(h.t.of("progressCard.get").length, 10);
    assert.equal(h.store.stats.droppedHints, 1991);
    assert.equal(warnings.filter((w) => /named more than 10 sessions/.test(w)).length, 1, "warned once");
    // A session already followed still updates.
    await changed(h, 2);
    assert.equal(gets(h, A), 2);
  });

  test("a session key longer than any real one is not a session", T, async () => {
    const h = harness();
    await ready(h);
    const long = `agent:main:${"k".repeat(MAX_SESSION_KEY_LENGTH)}`;
    h.store.onEvent("progressCard.changed", { sessionKey: long, revision: 1 });
    h.store.onEvent("sessions.changed", { sessionKey: long, reason: "create" });
    h.store.onEvent("sessions.changed", { sessionKey: long, reason: "update" });
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 1, "only the first read of A");
    assert.equal(h.t.of("sessions.list").length, 0, "a long key is not a keyless 'list again'");
    assert.equal(h.store.entry(long), null);
  });
});

describe("CardStore: the rest of its promises", () => {
  const pendingRefresh = (key: string, baseline: number) => ({ status: "pending" as const, key, baseline, startedAt: 1 });

  test("before the first connect a tracked card is offline and not read; after it, live and read", T, async () => {
    const h = harness({ rows: [] });
    const before = h.store.track(B);
    assert.equal(before.freshness, "offline");
    assert.equal(before.hidden, false);
    await settle();
    assert.equal(gets(h, B), 0);
    await h.store.onReady();
    const after = h.store.track("agent:main:dashboard:cccc");
    assert.equal(after.freshness, "live");
    assert.equal(after.hidden, false);
    await settle();
    assert.equal(gets(h, "agent:main:dashboard:cccc"), 1);
  });

  test("a card not yet read again after a reconnect is not said offline a second time when the connection drops again", T, async () => {
    const h = harness();
    await ready(h);
    h.store.onConnectionState(OFFLINE);
    const said = h.cardChanges(A).length;
    assert.equal(h.cardChanges(A).at(-1)?.freshness, "offline");
    await h.store.onReady(); // A's read stays in flight
    h.store.onConnectionState(OFFLINE);
    assert.equal(h.cardChanges(A).length, said);
  });

  test("a read error without a code is shown as ERROR", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, 2);
    pendingGet(h).reject(new Error("boom"));
    await settle();
    assert.deepEqual(h.store.entry(A)?.error, { code: "ERROR", message: "boom" });
  });

  test("SESSION_MUTATION_AUTHORIZATION_CHANGED is retried soon; other errors after readRetryMs", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, 2);
    pendingGet(h).reject(gatewayError("INVALID_REQUEST", "SESSION_MUTATION_AUTHORIZATION_CHANGED"));
    await settle();
    assert.deepEqual(h.timers.pending(), [100]);
    h.timers.fireNext();
    await settle();
    pendingGet(h).reject(gatewayError("UNAVAILABLE"));
    await settle();
    assert.deepEqual(h.timers.pending(), [10], "readRetryMs (5), doubled for the second failure in a row");
  });

  test("only session events reach the roster: another event naming no session does not list again", T, async () => {
    const h = harness();
    await ready(h);
    h.store.onEvent("agent", { reason: "update" });
    h.store.onEvent("tick", {});
    await settle();
    assert.equal(h.t.of("sessions.list").length, 0);
  });

  test("a change hint for a key of exactly the longest allowed length is read", T, async () => {
    const h = harness();
    await ready(h);
    const key = `agent:main:${"k".repeat(MAX_SESSION_KEY_LENGTH - "agent:main:".length)}`;
    await changed(h, 1, key);
    assert.equal(gets(h, key), 1);
  });

  test("'update required' is said once, however many hints come for the card", T, async () => {
    const h = harness({ rows: [], capabilities: [] });
    await h.store.onReady();
    h.store.track("global", "research");
    await settle();
    await changed(h, 1, "agent:research:global");
    await changed(h, 2, "agent:research:global");
    assert.equal(h.cardChanges("global").filter((e) => e.updateRequired).length, 1);
  });

  test("a read answered with no reply at all is no card, not an error", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, null);
    pendingGet(h).resolve(null);
    await settle();
    assert.equal(h.store.entry(A)?.card, null);
    assert.equal(h.store.entry(A)?.error, null);
  });

  test("a malformed card after a denied read shows the error, live and no longer hidden, and says so", T, async () => {
    const h = harness();
    await ready(h);
    await changed(h, 2);
    pendingGet(h).reject(gatewayError("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED"));
    await settle();
    assert.equal(h.store.entry(A)?.hidden, true);
    await changed(h, 3);
    pendingGet(h).resolve({ card: { nonsense: true } });
    await settle();
    const last = h.cardChanges(A).at(-1)!;
    assert.equal(last.error?.code, "MALFORMED_CARD");
    assert.equal(last.hidden, false);
    assert.equal(last.freshness, "live");
  });

  test(
    "a read that started before a write reply applies when it shows the same revision or a newer one, with no read again",
    T,
    async () => {
      for (const readRevision of [5, 6]) {
        const h = harness();
        await ready(h);
        await changed(h, 2);
        h.store.applyWriteReply(A, null, wireCard(A, 5, UNFINISHED));
        h.clock.now += 1_000;
        pendingGet(h).resolve({ card: wireCard(A, readRevision, UNFINISHED) });
        await settle();
        assert.equal(h.store.entry(A)?.card?.revision, readRevision);
        assert.equal(h.store.entry(A)?.confirmedAt, h.clock.now, `read of ${readRevision} applied`);
        assert.equal(gets(h), 2, `read of ${readRevision}: no read again`);
      }
    },
  );

  test("a read that started before our clear and finds no card confirms the clear at once", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 1, DONE));
    await changed(h, null);
    h.store.applyCleared(A, null, 1);
    assert.equal(h.cardChanges(A).at(-1)?.card, null, "the clear is said at once");
    h.clock.now += 1_000;
    pendingGet(h).resolve({ card: null });
    await settle();
    assert.equal(h.store.entry(A)?.confirmedAt, h.clock.now);
  });

  test("a refresh is confirmed only by a card above its baseline, and a failed one stays failed", T, async () => {
    const h = harness();
    await ready(h, wireCard(A, 3, UNFINISHED));
    h.store.setRefresh(A, null, pendingRefresh("k", 3));
    await changed(h, null);
    pendingGet(h).resolve({ card: wireCard(A, 3, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.refresh?.status, "pending", "the baseline revision itself confirms nothing");
    const failed = { status: "failed" as const, key: "k", error: "no", code: null, terminal: false, at: 1 };
    h.store.setRefresh(A, null, failed);
    await changed(h, 4);
    pendingGet(h).resolve({ card: wireCard(A, 4, UNFINISHED) });
    await settle();
    assert.deepEqual(h.store.entry(A)?.refresh, failed);
  });

  test("no refresh time-out outlives its refresh: confirmed, replaced, cleared, not pending, or disposed", T, async () => {
    const h = harness({ rows: [{ key: A }, { key: B }] });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    await settle();
    h.store.setRefresh(A, null, pendingRefresh("k", 1), 701);
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 2, DONE) }));
    await changed(h, 2);
    assert.deepEqual(h.timers.pending(), [], "a newer card confirmed it");
    h.store.setRefresh(A, null, pendingRefresh("k1", 2), 702);
    h.store.setRefresh(A, null, pendingRefresh("k2", 2), 703);
    assert.deepEqual(h.timers.pending(), [703], "replaced");
    h.store.applyCleared(A, null, 2);
    assert.deepEqual(h.timers.pending(), [], "our clear");
    h.store.setRefresh(A, null, { status: "timed_out", key: "k", baseline: 1, at: 1 }, 704);
    assert.deepEqual(h.timers.pending(), [], "a refresh that is not pending has no time-out");
    h.store.setRefresh(B, null, pendingRefresh("kb", 1), 705);
    h.store.dispose();
    assert.deepEqual(h.timers.pending(), [], "disposed");
  });

  test("a session change that moves neither the title nor the derived state says nothing", T, async () => {
    const h = harness();
    await ready(h);
    const said = h.cardChanges(A).length;
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "update", session: { key: A, label: "Session A", updatedAt: 123 } });
    await settle();
    assert.equal(h.store.sessionList()[0]?.updatedAt, 123, "the row did change");
    assert.equal(h.cardChanges(A).length, said);
  });

  test("after dispose no hint is read", T, async () => {
    const h = harness();
    await ready(h);
    h.store.dispose();
    await changed(h, 2);
    await changed(h, 1, B);
    assert.equal(h.t.of("progressCard.get").length, 1);
  });
});
