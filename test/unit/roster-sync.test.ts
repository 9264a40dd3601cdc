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
import { MAX_SESSION_KEY_LENGTH } from "../../main/core/cards/card-slots.ts";
import { listRosterPages, ROSTER_PAGE_OVERLAP, ROSTER_PAGE_SIZE, type RosterPagesOptions } from "../../main/core/cards/roster-pages.ts";
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

describe("listRosterPages on its own", () => {
  type Call = { method: string; params: Record<string, unknown> };
  /** Lists with `replies` answered in turn (the last one repeats), recording each request and page. */
  async function listing(replies: unknown[], opts: Partial<RosterPagesOptions> = {}) {
    const calls: Call[] = [];
    const pages: string[][] = [];
    const result = await listRosterPages({
      request: async (method, params) => {
        calls.push({ method, params });
        const reply = replies[Math.min(calls.length - 1, replies.length - 1)];
        if (reply instanceof Error) throw reply;
        return reply;
      },
      subscribe: false,
      maxRows: 1_000,
      wanted: () => true,
      onPage: (rows) => void pages.push(rows.map((r) => r.key)),
      ...opts,
    });
    return { result, calls, pages, offsets: calls.map((c) => c.params.offset ?? 0) };
  }
  const rows = (from: number, n: number) =>
    keysOf(from + n)
      .slice(from)
      .map((key) => ({ key }));

  test("a page size given in the params sets the overlap (a quarter of it, at most the default)", T, async () => {
    const { offsets, result } = await listing(
      [
        { hasMore: true, nextOffset: 8, sessions: rows(0, 8) },
        { hasMore: false, sessions: rows(6, 8) },
      ],
      {
        params: { limit: 8 },
      },
    );
    assert.deepEqual(offsets, [0, 6]);
    assert.equal(result.rows, 14);
  });

  test("a page size that is no positive number is sent as given but pages with the default overlap", T, async () => {
    for (const limit of [0, -5, "8"]) {
      const { calls, offsets } = await listing(
        [
          { hasMore: true, nextOffset: 10, sessions: rows(0, 10) },
          { hasMore: false, sessions: [] },
        ],
        {
          params: { limit },
        },
      );
      assert.equal(calls[0]!.params.limit, limit);
      assert.deepEqual(offsets, [0, 10 - ROSTER_PAGE_OVERLAP], `limit ${JSON.stringify(limit)}`);
    }
  });

  test("without a usable nextOffset the next page starts where this one ended, less the overlap", T, async () => {
    for (const nextOffset of [undefined, null, "10", 9.5]) {
      const { offsets } = await listing([
        { hasMore: true, nextOffset, sessions: rows(0, 10) },
        { hasMore: false, sessions: [] },
      ]);
      assert.deepEqual(offsets, [0, 10 - ROSTER_PAGE_OVERLAP], `nextOffset ${JSON.stringify(nextOffset)}`);
    }
  });

  test("a failed request ends the listing incomplete, with what was listed before it and the error", T, async () => {
    const { result, pages } = await listing([{ hasMore: true, nextOffset: 10, sessions: rows(0, 10) }, new Error("list failed")]);
    assert.deepEqual(result, { complete: false, rows: 10, pages: 1, error: "list failed" });
    assert.equal(pages.length, 1);
  });

  test("malformed rows and rows listed twice are left out; the rest of the page is kept", T, async () => {
    const [a, b] = keysOf(2);
    const { pages, result } = await listing([
      { hasMore: false, sessions: [{ key: a }, null, 42, { key: "" }, { nokey: 1 }, { key: a }, { key: b }] },
    ]);
    assert.deepEqual(pages, [[a, b]]);
    assert.deepEqual(result, { complete: true, rows: 2, pages: 1, error: null });
  });

  test("a subscribe reply without a list, or a page without a session array, is an empty roster", T, async () => {
    const sub = await listing([{ subscribed: true }], { subscribe: true });
    assert.deepEqual(
      sub.calls.map((c) => c.method),
      ["sessions.subscribe"],
    );
    assert.deepEqual(sub.result, { complete: true, rows: 0, pages: 1, error: null });
    const bad = await listing([null]);
    assert.deepEqual(bad.result, { complete: true, rows: 0, pages: 1, error: null });
  });

  test("a page with no rows that still says hasMore ends the listing incomplete instead of asking on", T, async () => {
    for (const sessions of [[], "rows"]) {
      const { calls, result } = await listing([{ hasMore: true, nextOffset: 50, sessions }]);
      assert.equal(calls.length, 1, `sessions ${JSON.stringify(sessions)}`);
      assert.deepEqual(result, { complete: false, rows: 0, pages: 1, error: null });
    }
  });

  test("a listing no longer wanted stops before handing on its page", T, async () => {
    const { calls, pages, result } = await listing([{ hasMore: true, nextOffset: 10, sessions: rows(0, 10) }], { wanted: () => false });
    assert.equal(calls.length, 1);
    assert.deepEqual(pages, []);
    assert.deepEqual(result, { complete: false, rows: 10, pages: 1, error: null });
  });
});

describe("the roster through its events and connections", () => {
  const said = (h: Harness) => h.changes.flatMap((c) => (c.type === "sessions" ? [c.sessions.map((r) => r.key)] : []));
  const served = (h: Harness) => h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));

  test("a listing begun before a disconnect that ends after the reconnect is dropped", T, async () => {
    const [old, fresh] = [keysOf(3, "old"), keysOf(2, "new")];
    const h = harness(old);
    served(h);
    h.t.auto.set("sessions.subscribe", () => PENDING);
    void h.store.onReady();
    await settle();
    const stale = h.t.of("sessions.subscribe", { pending: true })[0]!;
    h.store.onConnectionState(OFFLINE);
    h.t.auto.set("sessions.subscribe", (p) => ({ subscribed: true, list: page(fresh, p) }));
    await h.store.onReady();
    await settle();
    const before = { said: said(h).length, reads: readKeys(h).length, known: h.known.length };
    stale.resolve({ subscribed: true, list: page(old, stale.params) });
    await settle();
    assert.deepEqual(
      h.store.sessionList().map((r) => r.key),
      fresh,
      "the old connection's rows are not the roster",
    );
    assert.deepEqual(
      { said: said(h).length, reads: readKeys(h).length, known: h.known.length },
      before,
      "nothing said, read or known for it",
    );
  });

  test("the list is said once for a one-page roster, and once (empty) when the first request fails", T, async () => {
    const h = harness(keysOf(3));
    served(h);
    await h.store.onReady();
    await settle();
    assert.deepEqual(said(h), [keysOf(3)]);
    const failed = harness(keysOf(3));
    failed.t.auto.set("sessions.subscribe", () => {
      throw new Error("subscribe failed");
    });
    await failed.store.onReady();
    await settle();
    assert.deepEqual(said(failed), [[]]);
  });

  test("a listing that worked logs no warning", T, async () => {
    const warnings: string[] = [];
    const h = harness(keysOf(3), { logger: createLogger({ level: "warn", sink: (r) => void warnings.push(r.message) }) });
    served(h);
    await h.store.onReady();
    await settle();
    assert.deepEqual(warnings, []);
  });

  test("an empty roster is 'every card known' as soon as it is listed", T, async () => {
    const h = harness([]);
    await h.store.onReady();
    await settle();
    assert.deepEqual(h.known, [{ gatewayId: "gw", cause: "connect", sessions: 0, pages: 1, reads: 0, complete: true }]);
  });

  test("'every card known' counts only the reads of its own listing", T, async () => {
    const keys = keysOf(5);
    const h = harness(keys);
    served(h);
    await h.store.onReady();
    await settle();
    h.store.onConnectionState(OFFLINE);
    await h.store.onReady();
    await settle();
    assert.deepEqual(
      h.known.map((k) => k.reads),
      [5, 5],
    );
  });

  test("the subscribe params reach the Gateway", T, async () => {
    const h = harness(keysOf(3), { subscribeParams: { limit: 2, spawnedBy: "x" } });
    served(h);
    await h.store.onReady();
    await settle();
    assert.deepEqual(h.t.of("sessions.subscribe")[0]!.params, {
      limit: 2,
      excludeSubagents: true,
      includeDerivedTitles: true,
      spawnedBy: "x",
    });
    assert.deepEqual(
      h.t.of("sessions.list").map((c) => c.params.offset),
      [2],
      "pages of two (too small for an overlap)",
    );
  });

  test("a reconnect re-reads every listed card outside the budget, healthy ones too", T, async () => {
    const keys = keysOf(6);
    const h = harness(keys, { maxReadsPerSecond: 2, monotonicNow: () => 0 });
    served(h);
    await h.store.onReady();
    await settle();
    h.store.onConnectionState(OFFLINE);
    await h.store.onReady();
    await settle();
    assert.equal(readKeys(h).length, 12);
  });

  test("a keyless update reads only sessions new to us; a read of one does not lose the connect's 'every card known'", T, async () => {
    const keys = keysOf(3);
    const h = harness(keys);
    void h.store.onReady();
    await settle();
    assert.equal(openReads(h).length, 3, "the connect's reads are out");
    const grown = [...keysOf(1, "new"), ...keys];
    h.t.auto.set("sessions.list", (p) => page(grown, p));
    h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    assert.deepEqual(readKeys(h).slice(3), keysOf(1, "new"), "only the new session is read");
    await answerAll(h);
    await settle();
    assert.equal(h.known.length, 1);
    assert.equal(h.known[0]!.cause, "connect");
  });

  test("a gap asked for while a list is in flight is not downgraded by a later keyless update", T, async () => {
    const keys = keysOf(3);
    const h = harness(keys);
    served(h);
    await h.store.onReady();
    await settle();
    h.t.auto.set("sessions.list", () => PENDING);
    h.store.onEvent("sessions.changed", { reason: "update" });
    await settle();
    void h.store.onGap();
    h.store.onEvent("sessions.changed", { reason: "update" });
    h.t.auto.set("sessions.list", (p) => page(keys, p));
    h.t.of("sessions.list", { pending: true })[0]!.resolve(page(keys, {}));
    await settle();
    assert.equal(h.t.of("sessions.list").length, 2);
    assert.equal(readKeys(h).length, 6, "the gap re-read every card");
  });

  test("a session key of exactly the longest allowed length is a session", T, async () => {
    const h = harness([]);
    served(h);
    await h.store.onReady();
    const key = `agent:main:${"k".repeat(MAX_SESSION_KEY_LENGTH - "agent:main:".length)}`;
    h.store.onEvent("sessions.changed", { sessionKey: key, reason: "create" });
    await settle();
    assert.deepEqual(readKeys(h), [key]);
  });

  test("a full row for a new session joins the roster under the cap; at the cap only known sessions change", T, async () => {
    const [a, b] = keysOf(2);
    const h = harness([a!], { maxSessions: 2 });
    served(h);
    await h.store.onReady();
    await settle();
    h.store.onEvent("sessions.changed", { sessionKey: b, reason: "create", session: { key: b, label: "B" } });
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:c", reason: "create", session: { key: "agent:main:c", label: "C" } });
    h.store.onEvent("sessions.changed", { sessionKey: a, reason: "update", session: { key: a, label: "A renamed" } });
    await settle();
    assert.deepEqual(
      h.store.sessionList().map((r) => [r.key, r.title]),
      [
        [a, "A renamed"],
        [b, "B"],
      ],
    );
  });

  test("an event without a row for a session not on the roster adds none", T, async () => {
    const h = harness(keysOf(1));
    served(h);
    await h.store.onReady();
    await settle();
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:stranger", reason: "update", hasActiveRun: true });
    await settle();
    assert.deepEqual(
      h.store.sessionList().map((r) => r.key),
      keysOf(1),
    );
  });

  test("a create while offline follows nothing; a create for a card already followed reads nothing", T, async () => {
    const h = harness(keysOf(1));
    served(h);
    await h.store.onReady();
    await settle();
    h.store.onEvent("sessions.changed", { sessionKey: keysOf(1)[0], reason: "create" });
    await settle();
    assert.equal(readKeys(h).length, 1);
    h.store.onConnectionState(OFFLINE);
    h.store.onEvent("sessions.changed", { sessionKey: "agent:main:late", reason: "create" });
    await settle();
    assert.equal(h.store.entry("agent:main:late"), null);
  });

  test("reads caused by session events wait for the budget", T, async () => {
    const keys = keysOf(4);
    for (const reason of ["reset", "delete", "create"]) {
      const h = harness(keys, { maxReadsPerSecond: 2, monotonicNow: () => 0 });
      served(h);
      await h.store.onReady();
      await settle();
      const named = reason === "create" ? keysOf(4, "new") : keys;
      for (const key of named) h.store.onEvent("sessions.changed", { sessionKey: key, reason });
      await settle();
      assert.equal(readKeys(h).length, 4 + 2, `${reason}: the burst of 2, no more`);
    }
  });

  test("a delete naming an older transcript leaves the newer session's row as it was, run state and title alike", T, async () => {
    const [a] = keysOf(1);
    const h = harness([a!]);
    served(h);
    h.t.auto.set("sessions.subscribe", () => ({
      subscribed: true,
      list: { sessions: [{ key: a, sessionId: "new", label: "Newer", hasActiveRun: true }] },
    }));
    await h.store.onReady();
    await settle();
    const before = h.store.sessionList();
    h.store.onEvent("sessions.changed", { sessionKey: a, reason: "delete", sessionId: "old", hasActiveRun: false, label: "Older" });
    await settle();
    assert.deepEqual(h.store.sessionList(), before);
  });

  test("hidden cards read again on a session change wait for the budget", T, async () => {
    const keys = keysOf(4);
    const h = harness(keys, { maxReadsPerSecond: 2, monotonicNow: () => 0 });
    h.t.auto.set("progressCard.get", () => {
      throw Object.assign(new Error("denied"), { gatewayCode: "INVALID_REQUEST", details: { code: "SESSION_PARTICIPATION_REQUIRED" } });
    });
    await h.store.onReady();
    await settle();
    assert.ok(keys.every((k) => h.store.entry(k)?.hidden));
    for (const key of keys) h.store.onEvent("sessions.changed", { sessionKey: key, reason: "update" });
    await settle();
    assert.equal(readKeys(h).length, 4 + 2, "the burst of 2, no more");
  });

  test("at a connect, followed sessions the list does not name wait for the budget", T, async () => {
    const h = harness([], { maxReadsPerSecond: 2, monotonicNow: () => 0 });
    served(h);
    for (const key of keysOf(4, "tracked")) h.store.track(key);
    await h.store.onReady();
    await settle();
    assert.equal(readKeys(h).length, 2);
  });

  test("a connection dropped before its reads returned never says 'every card known'", T, async () => {
    const h = harness(keysOf(3));
    void h.store.onReady();
    await settle();
    assert.equal(openReads(h).length, 3);
    h.store.onConnectionState(OFFLINE);
    for (const call of openReads(h)) call.resolve({ card: wireCard(call.params.sessionKey as string, 1, DONE) });
    await settle();
    assert.deepEqual(h.known, []);
  });

  test("a malformed card is not read again on every session change", T, async () => {
    const [a] = keysOf(1);
    const h = harness([a!]);
    h.t.auto.set("progressCard.get", () => ({ card: { nonsense: true } }));
    await h.store.onReady();
    await settle();
    assert.equal(h.store.entry(a!)?.error?.code, "MALFORMED_CARD");
    h.store.onEvent("sessions.changed", { sessionKey: a, reason: "update", hasActiveRun: true });
    await settle();
    assert.equal(readKeys(h).length, 1);
  });
});
