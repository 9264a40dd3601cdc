// The roster (roster-sync.ts, roster-pages.ts) through the card store. Every card however many sessions. The roster is listed page by page, read with a
// bound on reads in flight in listing order (newest first) while later pages are still being
// listed, outside the read budget at a connect only; a hint the read in flight already
// covered costs no second read. Against the FAKE transport (fake-transport.ts): the real
// Gateway cannot hold a page or a read open on demand.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { CardStore, type CardStoreOptions } from "../../main/core/cards/card-store.ts";
import { DEFAULT_MAX_READS_IN_FLIGHT } from "../../main/core/cards/read-scheduler.ts";
import type { CardsKnown } from "../../main/core/cards/roster-sync.ts";
import { createLogger } from "../../main/core/logger.ts";
import { ROSTER_PAGE_OVERLAP, ROSTER_PAGE_SIZE } from "../../main/core/cards/roster-pages.ts";
import type { DeskChange } from "../../common/model.ts";
import { DONE, fakeTransport, OFFLINE, PENDING, settle, UNFINISHED, wireCard, type FakeTransport } from "./fake-transport.ts";

const T = { timeout: 5_000 };
const keysOf = (n: number, tag = "s") => Array.from({ length: n }, (_, i) => `agent:main:dashboard:${tag}${String(i).padStart(4, "0")}`);

/** A Gateway's list result for `keys` (newest first) at `params.offset`/`params.limit`. */
function page(keys: readonly string[], params: Record<string, unknown>): Record<string, unknown> {
  const offset = typeof params.offset === "number" ? params.offset : 0;
  const limit = typeof params.limit === "number" ? params.limit : 100;
  const rows = keys.slice(offset, offset + limit);
  const end = offset + rows.length;
  const hasMore = end < keys.length;
  return { count: rows.length, totalCount: keys.length, hasMore, nextOffset: hasMore ? end : null, sessions: rows.map((key) => ({ key })) };
}

type Harness = { t: FakeTransport; store: CardStore; changes: DeskChange[]; known: CardsKnown[] };

function harness(keys: readonly string[], store: Partial<CardStoreOptions> = {}): Harness {
  const t = fakeTransport();
  const changes: DeskChange[] = [];
  const known: CardsKnown[] = [];
  t.auto.set("sessions.subscribe", (p) => ({ subscribed: true, list: page(keys, p) }));
  t.auto.set("sessions.list", (p) => page(keys, p));
  const s = new CardStore({ gatewayId: "gw", transport: t, emit: (c) => changes.push(c), onCardsKnown: (k) => known.push(k), ...store });
  return { t, store: s, changes, known };
}

const readKeys = (h: Harness): string[] => h.t.of("progressCard.get").map((c) => c.params.sessionKey as string);
const openReads = (h: Harness) => h.t.of("progressCard.get", { pending: true });

/** Answers open reads one at a time (oldest first) until none is left, recording the most open at once. */
async function answerAll(h: Harness, card = (key: string) => wireCard(key, 1, UNFINISHED)): Promise<number> {
  let most = 0;
  for (;;) {
    await settle();
    const open = openReads(h);
    most = Math.max(most, open.length);
    if (open.length === 0) return most;
    const first = open[0]!;
    first.resolve({ card: card(first.params.sessionKey as string) });
  }
}

describe("the roster, page by page", () => {
  test("subscribe brings the first page, sessions.list the rest (overlapping), and every session is read once", T, async () => {
    const keys = keysOf(250);
    const h = harness(keys);
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    await settle();
    const sub = h.t.of("sessions.subscribe");
    assert.equal(sub.length, 1);
    assert.deepEqual(sub[0]!.params, { limit: ROSTER_PAGE_SIZE, excludeSubagents: true, includeDerivedTitles: true });
    assert.deepEqual(
      h.t.of("sessions.list").map((c) => c.params.offset),
      [ROSTER_PAGE_SIZE - ROSTER_PAGE_OVERLAP, 2 * (ROSTER_PAGE_SIZE - ROSTER_PAGE_OVERLAP)],
    );
    assert.equal(h.store.sessionList().length, 250);
    const said = h.changes.flatMap((c) => (c.type === "sessions" ? [c.sessions.length] : []));
    assert.deepEqual(said, [100, 250], "the list is said after the first page and at the end, not per page");
    assert.deepEqual(readKeys(h).sort(), [...keys].sort(), "each session read exactly once");
    assert.equal(h.store.entries().length, 250);
  });

  test("reads start in listing order (newest first), at most 8 in flight, while the next page is still listed", T, async () => {
    const keys = keysOf(180);
    const h = harness(keys);
    h.t.auto.set("sessions.list", () => PENDING);
    void h.store.onReady();
    await settle();
    assert.equal(h.t.of("sessions.list", { pending: true }).length, 1, "the second page is being listed");
    assert.deepEqual(readKeys(h), keys.slice(0, DEFAULT_MAX_READS_IN_FLIGHT), "the newest sessions first, 8 at once");
    // Cards arrive (and are said) before the listing ends.
    openReads(h)[0]!.resolve({ card: wireCard(keys[0]!, 3, UNFINISHED) });
    await settle();
    assert.ok(h.changes.some((c) => c.type === "card" && c.entry.sessionKey === keys[0] && c.entry.card?.revision === 3));
    assert.equal(h.known.length, 0, "not every card is known yet");
    // The rest of page one, in order, never more than 8 at once.
    const most = await answerAll(h);
    assert.equal(most, DEFAULT_MAX_READS_IN_FLIGHT);
    assert.deepEqual(readKeys(h), keys.slice(0, ROSTER_PAGE_SIZE));
    const list = h.t.of("sessions.list", { pending: true })[0]!;
    list.resolve(page(keys, list.params));
    const most2 = await answerAll(h);
    assert.equal(most2, DEFAULT_MAX_READS_IN_FLIGHT);
    assert.deepEqual(readKeys(h), keys, "page two continues in its order, without the overlapping rows read twice");
    assert.equal(h.store.stats.peakReadsInFlight, DEFAULT_MAX_READS_IN_FLIGHT);
    assert.equal(h.known.length, 1);
  });

  test("the bound is an option", T, async () => {
    const h = harness(keysOf(40), { maxConcurrentReads: 3 });
    void h.store.onReady();
    assert.equal(await answerAll(h), 3);
    assert.equal(h.store.stats.peakReadsInFlight, 3);
  });

  test("a reconnect re-reads every card in listing order with the bound; 'every card known' is said once per listing", T, async () => {
    const keys = keysOf(120);
    const h = harness(keys);
    void h.store.onReady();
    await answerAll(h);
    await settle();
    assert.equal(h.known.length, 1);
    assert.deepEqual(h.known[0], { gatewayId: "gw", cause: "connect", sessions: 120, pages: 2, reads: 120, complete: true });
    h.store.onConnectionState(OFFLINE);
    h.store.resetReadPeak();
    const before = h.t.of("progressCard.get").length;
    void h.store.onReady();
    await settle();
    assert.equal(h.known.length, 1, "not before the re-reads return");
    const most = await answerAll(h, (k) => wireCard(k, 2, UNFINISHED));
    await settle();
    assert.equal(most, DEFAULT_MAX_READS_IN_FLIGHT);
    assert.equal(h.store.stats.peakReadsInFlight, DEFAULT_MAX_READS_IN_FLIGHT);
    assert.deepEqual(readKeys(h).slice(before), keys, "every card again, newest first");
    assert.ok(keys.every((k) => h.store.entry(k)?.card?.revision === 2 && h.store.entry(k)?.freshness === "live"));
    assert.equal(h.known.length, 2);
  });

  test("a Gateway paging forever stops at the session cap; a page that does not move on ends the listing", T, async () => {
    // Lists are answered by hand, so a listing that would never end fails here instead of hanging.
    const answerLists = async (h: Harness, reply: () => Record<string, unknown>): Promise<number> => {
      let answered = 0;
      for (; answered < 10; answered += 1) {
        await settle();
        const open = [...h.t.of("sessions.subscribe", { pending: true }), ...h.t.of("sessions.list", { pending: true })];
        if (open.length === 0) break;
        const list = reply();
        for (const call of open) call.resolve(call.method === "sessions.subscribe" ? { subscribed: true, list } : list);
      }
      return answered;
    };
    const endless = harness([], { maxSessions: 250 });
    endless.t.auto.set("sessions.subscribe", () => PENDING);
    endless.t.auto.set("sessions.list", () => PENDING);
    endless.t.auto.set("progressCard.get", () => ({ card: null }));
    let n = 0;
    const more = () => ({ hasMore: true, nextOffset: (n += 100), sessions: keysOf(100, `p${n}-`).map((key) => ({ key })) });
    void endless.store.onReady();
    assert.equal(await answerLists(endless, more), 3, "three pages of 100 reach the cap of 250");
    assert.equal(endless.store.sessionList().length, 250);
    await settle();
    assert.equal(endless.known[0]?.complete, false);

    const stuck = harness([]);
    stuck.t.auto.set("sessions.subscribe", () => PENDING);
    stuck.t.auto.set("sessions.list", () => PENDING);
    void stuck.store.onReady();
    const same = () => ({ hasMore: true, nextOffset: 0, sessions: keysOf(5).map((key) => ({ key })) });
    assert.equal(await answerLists(stuck, same), 1, "no second request for the same window");
  });

  test("a failed page keeps what was listed and still reads it", T, async () => {
    const keys = keysOf(150);
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn", sink: (r) => void warnings.push(`${r.message} ${String(r.fields.error)}`) });
    const h = harness(keys, { logger });
    h.t.auto.set("sessions.list", () => {
      throw new Error("list failed");
    });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    await settle();
    assert.equal(h.store.entries().length, ROSTER_PAGE_SIZE);
    assert.ok(
      warnings.some((w) => /session list failed list failed/.test(w)),
      "the failed listing is logged as a warning",
    );
  });
});

describe("the read budget and the roster", () => {
  /** A budget clock that stands still: only the burst is there. */
  const still = () => 0;

  test("a connect reads the whole roster without waiting for the budget; hints still wait for it", T, async () => {
    const keys = keysOf(30);
    const h = harness(keys, { maxReadsPerSecond: 2, monotonicNow: still });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 30, "every listed session read with the budget standing still");
    for (let i = 0; i < 5; i += 1) h.store.onEvent("progressCard.changed", { sessionKey: `agent:main:hinted:${i}`, revision: 1 });
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 32, "hints: the budget's burst of 2, no more");
  });

  test("a gap re-reads the roster within the budget (gaps can be repeated at will)", T, async () => {
    const keys = keysOf(30);
    const h = harness(keys, { maxReadsPerSecond: 2, monotonicNow: still });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    await settle();
    await h.store.onGap();
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 32);
    assert.equal(h.store.stats.queuedReads, 28);
  });
});

describe("no read a read in flight already covered", () => {
  const A = "agent:main:dashboard:aaaa";
  async function reading(): Promise<Harness> {
    const h = harness([A]);
    void h.store.onReady();
    await settle();
    assert.equal(openReads(h).length, 1);
    return h;
  }

  test("hints during a read that returned their revision (or a newer one) cost no second read", T, async () => {
    const h = await reading();
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 1 });
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    openReads(h)[0]!.resolve({ card: wireCard(A, 3, UNFINISHED) });
    await settle();
    assert.equal(readKeys(h).length, 1);
    assert.equal(h.store.stats.skippedRereads, 1);
    assert.equal(h.store.entry(A)?.card?.revision, 3);
  });

  test("a hint newer than what the read returned reads again", T, async () => {
    const h = await reading();
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 2 });
    openReads(h)[0]!.resolve({ card: wireCard(A, 1, UNFINISHED) });
    await settle();
    assert.equal(readKeys(h).length, 2);
    openReads(h)[0]!.resolve({ card: wireCard(A, 2, UNFINISHED) });
    await settle();
    assert.equal(h.store.entry(A)?.card?.revision, 2);
  });

  test("a clear (null) or a falling revision (a reset) during the read always reads again", T, async () => {
    for (const hints of [[null], [5, 1], [1, null, 2]] as (number | null)[][]) {
      const h = await reading();
      for (const revision of hints) h.store.onEvent("progressCard.changed", { sessionKey: A, revision });
      openReads(h)[0]!.resolve({ card: wireCard(A, 5, UNFINISHED) });
      await settle();
      assert.equal(readKeys(h).length, 2, `hints ${JSON.stringify(hints)}`);
      openReads(h)[0]!.resolve({ card: null });
      await settle();
      assert.equal(h.store.entry(A)?.card, null);
    }
  });

  test("anything but a hint during the read (a reset of the session) reads again", T, async () => {
    const h = await reading();
    h.store.onEvent("sessions.changed", { sessionKey: A, reason: "reset" });
    h.store.onEvent("progressCard.changed", { sessionKey: A, revision: 1 });
    openReads(h)[0]!.resolve({ card: wireCard(A, 1, UNFINISHED) });
    await settle();
    assert.equal(readKeys(h).length, 2);
  });
});

describe("listing again", () => {
  test("repeated keyless updates list once, and once more after the list in flight", T, async () => {
    const keys = keysOf(1);
    const h = harness(keys);
    await h.store.onReady();
    await answerAll(h);
    h.t.auto.set("sessions.list", () => PENDING);
    for (let i = 0; i < 100; i++) h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    assert.equal(h.t.of("sessions.list").length, 1);
    h.t.of("sessions.list", { pending: true })[0]!.resolve(page(keys, {}));
    await settle();
    assert.equal(h.t.of("sessions.list").length, 2, "exactly one more for the hints meanwhile");
    h.t.of("sessions.list", { pending: true })[0]!.resolve(page(keys, {}));
    await settle();
    assert.equal(h.t.of("sessions.list").length, 2);
  });
});
