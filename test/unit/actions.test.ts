// A1 dismiss and A2 refresh against a FAKE transport (see fake-transport.ts: the real
// Gateway cannot be made to answer a clear with a newer card, or to time out, on demand).
import { test, describe, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { CardStore } from "../../main/core/cards/card-store.ts";
import { DEFAULT_REFRESH_TIMEOUT_MS, dismissCard, refreshCard } from "../../main/core/actions.ts";
import { CONFIRM_CLEAR_QUESTION } from "../../common/model.ts";
import type { CardEntry, DeskChange } from "../../common/model.ts";
import { DONE, fakeTransport, gatewayError, settle, UNFINISHED, wireCard, type FakeTransport } from "./fake-transport.ts";
import { ManualTimers } from "./manual-timers.ts";

/** A hang (an awaited reply that never comes) fails fast instead of stalling the run. */
const T = { timeout: 5_000 };

const A = "agent:main:dashboard:aaaa";

type H = { t: FakeTransport; store: CardStore; changes: DeskChange[]; timers: ManualTimers; entry(): CardEntry };

/** A connected store holding `card` for A; the store is disposed after the test (no timers left). */
async function withCard(
  tc: TestContext,
  card: unknown,
  opts: { methods?: string[]; capabilities?: string[]; key?: string; agentId?: string } = {},
): Promise<H> {
  const key = opts.key ?? A;
  const t = fakeTransport({
    ...(opts.methods ? { methods: opts.methods } : {}),
    ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
  });
  t.auto.set("sessions.subscribe", () => ({ subscribed: true, list: { sessions: [] } }));
  // A write the test did not expect fails at once (rather than hanging the action forever).
  for (const m of ["progressCard.put", "progressCard.refresh"]) {
    t.auto.set(m, () => {
      throw gatewayError("UNEXPECTED_REQUEST", undefined, `fake: unexpected ${m}`);
    });
  }
  const changes: DeskChange[] = [];
  const timers = new ManualTimers();
  const store = new CardStore({ gatewayId: "gw", transport: t, emit: (c) => changes.push(c), readRetryMs: 5, schedule: timers.schedule });
  tc.after(() => store.dispose());
  await store.onReady();
  store.track(key, opts.agentId ?? null);
  await settle();
  const first = t.of("progressCard.get", { pending: true });
  if (first.length) first[0]!.resolve({ card });
  await settle();
  t.calls.length = 0; // count only what the action sends
  return { t, store, changes, timers, entry: () => store.entry(key, opts.agentId ?? null)! };
}

function methods(t: FakeTransport): string[] {
  return t.calls.map((c) => c.method);
}

describe("dismissCard (A1)", () => {
  test("a complete card is cleared with the conditional clear (expectedRevision), no content", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, DONE));
    assert.equal(h.entry().derived?.state, "complete");
    h.t.auto.set("progressCard.put", () => ({ card: null }));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.deepEqual(result, { outcome: "cleared" });
    const put = h.t.of("progressCard.put");
    assert.equal(put.length, 1);
    assert.deepEqual(put[0]!.params, { sessionKey: A, expectedRevision: 4 });
    assert.equal(h.entry().card, null, "hidden at once");
    // and the clear is confirmed by a read
    await settle();
    assert.deepEqual(methods(h.t), ["progressCard.put", "progressCard.get"]);
  });

  test("the clear answers with a newer card → 'newer', and that card is shown", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, DONE));
    h.t.auto.set("progressCard.put", () => ({ card: wireCard(A, 5, UNFINISHED) }));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.equal(result.outcome, "newer");
    assert.equal(result.outcome === "newer" && result.card.revision, 5);
    assert.equal(h.entry().card?.revision, 5);
    assert.equal(h.entry().derived?.state, "paused");
  });

  test("the Gateway keeps the same revision (not all completed there) → 'kept'", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, DONE));
    h.t.auto.set("progressCard.put", () => ({ card: wireCard(A, 4, DONE) }));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.equal(result.outcome, "kept");
    assert.equal(h.entry().card?.revision, 4);
  });

  test("an unfinished card without confirmation → 'confirm' with the exact question, and NO request", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, UNFINISHED));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.deepEqual(result, { outcome: "confirm", question: "Clear this saved progress for everyone?" });
    assert.equal(CONFIRM_CLEAR_QUESTION, "Clear this saved progress for everyone?");
    assert.equal(h.t.calls.length, 0);
    assert.equal(h.entry().card?.revision, 4);
  });

  test("a note-only card also asks first", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 2, null));
    assert.equal(h.entry().derived?.state, "note");
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 2 });
    assert.equal(result.outcome, "confirm");
    assert.equal(h.t.calls.length, 0);
  });

  test("confirmed: re-read, then an unconditional clear (no expectedRevision, no content)", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, UNFINISHED));
    let saved: unknown = wireCard(A, 4, UNFINISHED); // the fake Gateway's saved card
    h.t.auto.set("progressCard.get", () => ({ card: saved }));
    h.t.auto.set("progressCard.put", () => {
      saved = null;
      return { card: null };
    });
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4, confirmed: true });
    assert.deepEqual(result, { outcome: "cleared" });
    await settle();
    assert.deepEqual(methods(h.t).slice(0, 2), ["progressCard.get", "progressCard.put"]);
    assert.deepEqual(h.t.of("progressCard.get")[0]!.params, { sessionKey: A });
    assert.deepEqual(h.t.of("progressCard.put")[0]!.params, { sessionKey: A });
    assert.equal(h.entry().card, null);
  });

  test("confirmed, but the re-read shows a newer revision → 'newer' and NO clear", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, UNFINISHED));
    h.t.auto.set("progressCard.get", () => ({ card: wireCard(A, 6, UNFINISHED) }));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4, confirmed: true });
    assert.equal(result.outcome, "newer");
    assert.equal(result.outcome === "newer" && result.card.revision, 6);
    assert.equal(h.t.of("progressCard.put").length, 0);
    assert.equal(h.entry().card?.revision, 6, "the newer card is shown");
  });

  test("confirmed, but the card is already gone → 'gone', no clear", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, UNFINISHED));
    h.t.auto.set("progressCard.get", () => ({ card: null }));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4, confirmed: true });
    assert.deepEqual(result, { outcome: "gone" });
    assert.equal(h.t.of("progressCard.put").length, 0);
    assert.equal(h.entry().card, null);
  });

  test("the store already holds a newer revision than the one seen → 'newer', no request", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 5, DONE));
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.equal(result.outcome, "newer");
    assert.equal(h.t.calls.length, 0);
  });

  test("a Gateway error is an 'error' outcome with the detail code, never a throw", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 4, DONE));
    h.t.auto.set("progressCard.put", () => {
      throw gatewayError("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED", "not a participant");
    });
    const result = await dismissCard(h.store, h.t, h.entry(), { revision: 4 });
    assert.deepEqual(result, { outcome: "error", code: "SESSION_PARTICIPATION_REQUIRED", message: "not a participant" });
    assert.equal(h.entry().card?.revision, 4);
  });

  test("G4: a bare key keeps its agentId for the clear; without the capability it is an error", T, async (tc) => {
    const h = await withCard(tc, wireCard("agent:research:global", 2, DONE), { key: "global", agentId: "research" });
    h.t.auto.set("progressCard.put", () => ({ card: null }));
    assert.equal((await dismissCard(h.store, h.t, h.entry(), { revision: 2 })).outcome, "cleared");
    assert.deepEqual(h.t.of("progressCard.put")[0]!.params, { sessionKey: "global", agentId: "research", expectedRevision: 2 });

    const h2 = await withCard(tc, wireCard("agent:research:global", 2, DONE), { key: "global", agentId: "research" });
    h2.t.capabilities.clear();
    const result = await dismissCard(h2.store, h2.t, h2.entry(), { revision: 2 });
    assert.equal(result.outcome, "error");
    assert.equal(result.outcome === "error" && result.code, "UPDATE_REQUIRED");
    assert.equal(h2.t.calls.length, 0);
  });

  test("no card → 'gone'", T, async (tc) => {
    const h = await withCard(tc, null);
    assert.deepEqual(await dismissCard(h.store, h.t, h.entry(), { revision: 1 }), { outcome: "gone" });
    assert.equal(h.t.calls.length, 0);
  });
});

describe("refreshCard (A2)", () => {
  test("sends an idempotency key (and nothing else); pending with the ack's baseline; card kept", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    const state = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    const sent = h.t.of("progressCard.refresh");
    assert.equal(sent.length, 1);
    const key = sent[0]!.params.idempotencyKey;
    assert.equal(typeof key, "string");
    assert.ok((key as string).length >= 16);
    assert.deepEqual(Object.keys(sent[0]!.params).sort(), ["idempotencyKey", "sessionKey"]);
    assert.ok(state && state.status === "pending");
    assert.equal(state.key, key);
    assert.equal(state.baseline, 3);
    const e = h.entry();
    assert.equal(e.refresh?.status, "pending");
    assert.equal(e.card?.revision, 3, "the previous card stays while pending");
    assert.equal(h.t.calls.filter((c) => c.method !== "progressCard.refresh").length, 0, "no chat message, no other request");
  });

  test("the ack's revision is the baseline, not the card shown", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 4 }));
    const state = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    assert.ok(state && state.status === "pending");
    assert.equal(state.baseline, 4);
  });

  test("a newer saved card (revision above the baseline) confirms the refresh", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    // a change to the baseline revision itself confirms nothing
    h.store.applyWriteReply(A, null, wireCard(A, 3, UNFINISHED));
    assert.equal(h.entry().refresh?.status, "pending");
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 4 });
    await settle();
    h.t.of("progressCard.get", { pending: true })[0]!.resolve({ card: wireCard(A, 4, UNFINISHED) });
    await settle();
    assert.equal(h.entry().refresh, null);
    assert.equal(h.entry().card?.revision, 4);
  });

  test("no newer card before the timeout → timed_out (same key); the card stays", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    const state = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 15 });
    assert.ok(state && state.status === "pending");
    assert.deepEqual(h.timers.pending(), [15], "the refresh timeout is set");
    h.timers.fireNext();
    const e = h.entry();
    assert.ok(e.refresh && e.refresh.status === "timed_out", JSON.stringify(e.refresh));
    assert.equal(e.refresh.key, state.key);
    assert.equal(e.refresh.baseline, 3);
    assert.equal(e.card?.revision, 3);
    assert.equal(DEFAULT_REFRESH_TIMEOUT_MS, 120_000);
  });

  test("retry after a timeout reuses the same key; a late newer card still confirms", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    const first = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 10 });
    assert.equal(h.timers.fireNext(), 10, "the refresh timeout");
    assert.equal(h.entry().refresh?.status, "timed_out");
    const again = await refreshCard(h.store, h.t, h.entry(), { retry: true, timeoutMs: 5_000 });
    const keys = h.t.of("progressCard.refresh").map((c) => c.params.idempotencyKey);
    assert.equal(keys.length, 2);
    assert.equal(keys[1], keys[0]);
    assert.equal(again?.key, first?.key);
    h.store.applyWriteReply(A, null, wireCard(A, 4, UNFINISHED));
    assert.equal(h.entry().refresh, null);
  });

  test("retry after a non-terminal failure (CLIENT_TIMEOUT) reuses the key", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => {
      throw gatewayError("CLIENT_TIMEOUT", undefined, "request timed out");
    });
    const failed = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    assert.ok(failed && failed.status === "failed");
    assert.equal(failed.terminal, false);
    assert.equal(failed.code, "CLIENT_TIMEOUT");
    assert.equal(h.entry().refresh?.status, "failed");
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    await refreshCard(h.store, h.t, h.entry(), { retry: true, timeoutMs: 5_000 });
    const keys = h.t.of("progressCard.refresh").map((c) => c.params.idempotencyKey);
    assert.equal(keys[1], keys[0]);
  });

  test("after a terminal error (UNAVAILABLE + PROGRESS_CARD_REFRESH_TERMINAL) retry takes a fresh key", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => {
      throw gatewayError("UNAVAILABLE", "PROGRESS_CARD_REFRESH_TERMINAL", "refresh ended");
    });
    const failed = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    assert.ok(failed && failed.status === "failed");
    assert.equal(failed.terminal, true);
    assert.equal(failed.code, "PROGRESS_CARD_REFRESH_TERMINAL");
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-2", status: "accepted", revision: 3 }));
    await refreshCard(h.store, h.t, h.entry(), { retry: true, timeoutMs: 5_000 });
    const keys = h.t.of("progressCard.refresh").map((c) => c.params.idempotencyKey);
    assert.equal(keys.length, 2);
    assert.notEqual(keys[1], keys[0]);
  });

  test("a new click (not a retry) takes a new key", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED));
    h.t.auto.set("progressCard.refresh", () => ({ runId: "run-1", status: "accepted", revision: 3 }));
    await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 10 });
    assert.equal(h.timers.fireNext(), 10, "the refresh timeout");
    assert.equal(h.entry().refresh?.status, "timed_out");
    await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    const keys = h.t.of("progressCard.refresh").map((c) => c.params.idempotencyKey);
    assert.notEqual(keys[1], keys[0]);
  });

  test("a Gateway without progressCard.refresh → failed (update required), no request", T, async (tc) => {
    const h = await withCard(tc, wireCard(A, 3, UNFINISHED), { methods: ["progressCard.get", "progressCard.put", "sessions.subscribe"] });
    const state = await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    assert.ok(state && state.status === "failed");
    assert.equal(state.code, "UPDATE_REQUIRED");
    assert.equal(state.terminal, true);
    assert.equal(h.t.calls.length, 0);
    assert.equal(h.entry().refresh?.status, "failed");
  });

  test("G4: refresh of a bare key sends its agentId", T, async (tc) => {
    const h = await withCard(tc, wireCard("agent:research:global", 2, UNFINISHED), { key: "global", agentId: "research" });
    h.t.auto.set("progressCard.refresh", () => ({ runId: "r", status: "accepted", revision: 2 }));
    await refreshCard(h.store, h.t, h.entry(), { timeoutMs: 5_000 });
    const p = h.t.of("progressCard.refresh")[0]!.params;
    assert.equal(p.sessionKey, "global");
    assert.equal(p.agentId, "research");
  });
});
