// When a card store's reads go out (read-scheduler.ts): the per-Gateway budget, the queue where
// hints coalesce per session, pacing a Gateway busy with writes, and retries, all on a FAKE clock
// (fake-clock.ts) that is both the budget's clock and the schedule of every timer: a read due
// later starts when the test moves time, never on a real timer. The store's reads go to the FAKE
// transport of fake-transport.ts.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { CardStore, type CardStoreOptions } from "../../main/core/cards/card-store.ts";
import { ReadScheduler, type ReadLimits, type ReadState } from "../../main/core/cards/read-scheduler.ts";
import { DONE, fakeTransport, OFFLINE, settle, UNFINISHED, wireCard, type FakeTransport } from "./fake-transport.ts";
import { FakeClock } from "./fake-clock.ts";

/** A hang (an awaited reply that never comes) fails fast instead of stalling the run. */
const T = { timeout: 5_000 };

type Harness = { t: FakeTransport; store: CardStore; clock: FakeClock };

/** A connected-to-be store with no roster, whose budget and timers run on one fake clock. */
function harness(store: Partial<CardStoreOptions> = {}): Harness {
  const t = fakeTransport();
  const clock = new FakeClock(0);
  t.auto.set("sessions.subscribe", () => ({ subscribed: true, list: { sessions: [] } }));
  t.auto.set("sessions.list", () => ({ sessions: [] }));
  const s = new CardStore({
    gatewayId: "gw",
    transport: t,
    emit: () => {},
    now: () => 5_000_000,
    monotonicNow: () => clock.now,
    schedule: clock.schedule,
    ...store,
  });
  return { t, store: s, clock };
}

/** Lets fake time run in steps of 100 ms (answers settling between them) until `done`, for at most a minute. */
async function runBudget(h: Harness, done: () => boolean): Promise<void> {
  for (let step = 0; step < 600 && !done(); step++) {
    h.clock.advance(100);
    await settle();
  }
  assert.ok(done(), "done within a minute of fake time");
}

type Session = ReadState & { key: string };
const session = (key: string): Session => ({ key, phase: "idle", again: false, againUpTo: null, retryTimer: null, retryCount: 0 });

/** A scheduler alone: `started` lists the reads it started; `finish` ends one as the store would. */
function scheduler(limits: ReadLimits = {}) {
  const clock = new FakeClock(0);
  const started: Session[] = [];
  let open = true;
  const reads: ReadScheduler<Session> = new ReadScheduler<Session>({
    ...limits,
    monotonicNow: () => clock.now,
    roundTripClock: () => clock.now,
    schedule: clock.schedule,
    open: () => open,
    start: (s) => {
      reads.began(s);
      started.push(s);
    },
  });
  const finish = (s: Session, revision: number | null = null): void => {
    reads.returned(s, revision);
    reads.ended(s);
  };
  return { reads, clock, started, finish, close: () => void (open = false), reopen: () => void (open = true) };
}

describe("the read scheduler on its own", () => {
  test("past the budget's burst, the wake-up for the next read goes through the injected schedule", () => {
    const { reads, clock, started } = scheduler({ maxReadsPerSecond: 4 });
    const sessions = ["a", "b", "c", "d", "e", "f"].map(session);
    for (const s of sessions) reads.request(s);
    assert.deepEqual(
      started.map((s) => s.key),
      ["a", "b", "c", "d"],
    );
    assert.deepEqual(clock.requested, [250], "one wake-up, due when the next read is");
    clock.advance(250);
    assert.deepEqual(
      started.map((s) => s.key),
      ["a", "b", "c", "d", "e"],
    );
    clock.advance(250);
    assert.equal(started.length, 6);
    assert.equal(clock.pending, 0, "no wake-up once the queue is empty");
  });

  test("stats is a read-only snapshot: frozen, and not moved by later reads", () => {
    const { reads, started, finish } = scheduler();
    const a = session("a");
    reads.request(a);
    const before = reads.stats;
    assert.ok(Object.isFrozen(before));
    assert.throws(() => {
      (before as { reads: number }).reads = 99;
    }, TypeError);
    finish(started[0]!);
    reads.request(a);
    assert.equal(before.reads, 1);
    assert.equal(reads.stats.reads, 2);
  });

  test("hints for a session already waiting fold into its one waiting read", () => {
    const { reads, started } = scheduler({ maxConcurrentReads: 1 });
    const [a, b] = ["a", "b"].map(session) as [Session, Session];
    reads.request(a);
    for (let i = 0; i < 5; i++) reads.request(b, { hint: i });
    assert.equal(started.length, 1);
    assert.equal(reads.stats.queuedReads, 1);
    assert.equal(reads.stats.maxQueuedReads, 1);
  });

  test("a change during a read owes one more read, unless the read returned the hinted revision", () => {
    const { reads, started, finish } = scheduler();
    const a = session("a");
    reads.request(a, { hint: 1 });
    reads.request(a, { hint: 2 });
    reads.request(a, { hint: 3 });
    finish(started[0]!, 3);
    assert.equal(started.length, 1, "the read saw revision 3: nothing owed");
    assert.equal(reads.stats.skippedRereads, 1);
    reads.request(a, { hint: 4 });
    reads.request(a, { hint: 5 });
    finish(started[1]!, 4);
    assert.equal(started.length, 3, "revision 5 was not seen: one more read");
    reads.request(a, { hint: null });
    finish(started[2]!, 9);
    assert.equal(started.length, 4, "a clear (null hint) is always read again");
  });

  test("failed reads retry on the injected schedule, backing off from readRetryMs to 30 s", () => {
    const { reads, clock, started, finish } = scheduler({ readRetryMs: 4_000 });
    const a = session("a");
    reads.request(a);
    for (let i = 0; i < 5; i++) {
      reads.ended(started.at(-1)!);
      reads.retryLater(a);
      clock.advance(clock.requested.at(-1)!);
    }
    assert.deepEqual(clock.requested, [4_000, 8_000, 16_000, 30_000, 30_000]);
    assert.equal(started.length, 6);
    reads.ended(started.at(-1)!);
    reads.retryLater(a, { soon: true });
    assert.equal(clock.requested.at(-1), 100, "an error the next read will not see is retried soon");
    clock.advance(100);
    finish(started.at(-1)!, 1);
    reads.retryLater(a);
    assert.equal(clock.requested.at(-1), 4_000, "a read that returned starts the backoff again");
  });

  test("a disconnect drops the queue, the budget's wake-up and the retries", () => {
    const { reads, clock, started, close } = scheduler({ maxReadsPerSecond: 1 });
    const [a, b, c] = ["a", "b", "c"].map(session) as [Session, Session, Session];
    reads.request(a);
    reads.request(b);
    reads.request(c);
    reads.ended(started[0]!);
    reads.retryLater(a);
    assert.equal(clock.pending, 2, "the wake-up and the retry");
    close();
    reads.disconnected([a, b, c]);
    assert.equal(clock.pending, 0);
    assert.equal(reads.stats.queuedReads, 0);
    assert.deepEqual(
      [a, b, c].map((s) => s.phase),
      ["idle", "idle", "idle"],
    );
  });

  test("a storm of hints across sessions paces reads: the busy budget, one in flight", () => {
    const { reads, started, finish } = scheduler({ busyReadsPerSecond: 2, busyReadsInFlight: 1 });
    const sessions = Array.from({ length: 10 }, (_, i) => session(`s${i}`));
    for (let i = 0; i < 60; i++) reads.noteHint(sessions[i % 10]!.key);
    assert.equal(reads.gatewayBusy, true);
    for (const s of sessions) reads.request(s);
    assert.equal(started.length, 1, "one in flight");
    finish(started[0]!);
    assert.equal(started.length, 2);
    finish(started[1]!);
    assert.equal(started.length, 2, "the busy budget's burst of 2 is spent");
    assert.equal(reads.stats.busyReads, 2);
    assert.equal(reads.stats.busySpells, 1);
  });
});

describe("the read scheduler on its own: its promises one by one", () => {
  test("a change owed by a read in flight at a disconnect is dropped: the old read ending on the new connection starts nothing", () => {
    const { reads, started, close, reopen } = scheduler();
    const a = session("a");
    reads.request(a);
    reads.request(a, { hint: 1 });
    close();
    reads.disconnected([a]);
    reopen();
    reads.ended(started[0]!);
    assert.equal(started.length, 1);
  });

  test("a read still in flight across a reconnect keeps the session at one read: a new request waits for it", () => {
    const { reads, started, finish, close, reopen } = scheduler();
    const a = session("a");
    reads.request(a);
    close();
    reads.disconnected([a]);
    reopen();
    reads.request(a);
    assert.equal(started.length, 1, "not a second read beside the old one");
    finish(started[0]!);
    assert.equal(started.length, 2, "the request is read once the old read ends");
    assert.equal(reads.stats.maxInFlightPerSession, 1);
  });

  test("a read that starts cancels the pending retry", () => {
    const { reads, clock, started, finish } = scheduler({ readRetryMs: 1_000 });
    const a = session("a");
    reads.request(a);
    reads.ended(started[0]!);
    reads.retryLater(a);
    reads.request(a);
    finish(started[1]!, 1);
    clock.advance(60_000);
    assert.equal(started.length, 2, "no retry after the read that started first");
  });

  test("a second retry replaces the first: one retry read, not two", () => {
    const { reads, clock, started } = scheduler({ readRetryMs: 1_000 });
    const a = session("a");
    reads.request(a);
    reads.ended(started[0]!);
    reads.retryLater(a);
    reads.retryLater(a);
    clock.advance(10_000);
    assert.equal(started.length, 2);
    reads.ended(started[1]!);
    clock.advance(60_000);
    assert.equal(started.length, 2);
  });

  test("a second read begun for a session already reading is recorded, not hidden", () => {
    const { reads } = scheduler();
    const a = session("a");
    reads.began(a);
    assert.equal(reads.stats.maxInFlightPerSession, 1);
    reads.began(a);
    assert.equal(reads.stats.maxInFlightPerSession, 2);
  });

  test("resetReadPeak starts a new observation from the reads in flight now", () => {
    const { reads, started, finish } = scheduler();
    const sessions = ["a", "b", "c"].map(session);
    for (const s of sessions) reads.request(s);
    finish(started[0]!);
    finish(started[1]!);
    assert.equal(reads.stats.peakReadsInFlight, 3);
    reads.resetReadPeak();
    assert.equal(reads.stats.peakReadsInFlight, 1);
  });

  test("the same revision hinted twice during a read is still covered by a read that returned it", () => {
    const { reads, started, finish } = scheduler();
    const a = session("a");
    reads.request(a);
    reads.request(a, { hint: 3 });
    reads.request(a, { hint: 3 });
    finish(started[0]!, 3);
    assert.equal(started.length, 1);
    assert.equal(reads.stats.skippedRereads, 1);
  });

  test("queuedReads counts the roster's waiting reads and the hints' alike", () => {
    const { reads } = scheduler({ maxConcurrentReads: 1 });
    const [a, b, c, d] = ["a", "b", "c", "d"].map(session) as [Session, Session, Session, Session];
    reads.request(a, { roster: true });
    reads.request(b, { roster: true });
    reads.request(c, { roster: true });
    reads.request(d);
    assert.equal(reads.stats.queuedReads, 3);
  });

  test("cancelAll leaves no timer: neither the budget's wake-up nor a retry", () => {
    const { reads, clock, started } = scheduler({ maxReadsPerSecond: 1 });
    const [a, b] = ["a", "b"].map(session) as [Session, Session];
    reads.request(a);
    reads.request(b);
    reads.ended(started[0]!);
    reads.retryLater(a);
    assert.equal(clock.pending, 2);
    reads.cancelAll([a, b]);
    assert.equal(clock.pending, 0);
  });

  test("while busy, busyReadsInFlight reads may be in flight (more than one if so set)", () => {
    const { reads, started } = scheduler({ busyReadsPerSecond: 10, busyReadsInFlight: 3 });
    const sessions = Array.from({ length: 10 }, (_, i) => session(`s${i}`));
    for (let i = 0; i < 60; i++) reads.noteHint(sessions[i % 10]!.key);
    assert.equal(reads.gatewayBusy, true);
    for (const s of sessions) reads.request(s);
    assert.equal(started.length, 3);
  });

  test("a busy spell is counted when it begins, not when it ends", () => {
    const { reads, clock, started, finish } = scheduler({ busyReadsPerSecond: 10 });
    const sessions = Array.from({ length: 10 }, (_, i) => session(`s${i}`));
    for (let i = 0; i < 60; i++) reads.noteHint(sessions[i % 10]!.key);
    reads.request(sessions[0]!);
    finish(started[0]!);
    assert.equal(reads.stats.busySpells, 1);
    clock.advance(5_000); // the hints stopped: quiet again
    assert.equal(reads.gatewayBusy, false);
    reads.request(sessions[1]!);
    finish(started[1]!);
    assert.equal(reads.stats.busySpells, 1);
  });

  describe("round trips and the load gauge", () => {
    /** A read whose reply takes `ms` on the scheduler's clock. */
    const timedRead = (h: ReturnType<typeof scheduler>, ms: number, quickestOnly: boolean) =>
      h.reads.timed(async () => {
        h.clock.now += ms;
        return "reply";
      }, quickestOnly);
    /** 30 hints a second on one session: enough with slow replies, no storm on its own. */
    const hintStream = (h: ReturnType<typeof scheduler>) => {
      for (let i = 0; i < 30; i++) h.reads.noteHint("a");
    };

    test("slow replies to change-driven reads, with a stream of hints, make the Gateway busy", async () => {
      const h = scheduler();
      h.clock.now = 100_000; // round trips are differences of the clock, wherever it stands
      assert.equal(await timedRead(h, 2, false), "reply");
      hintStream(h);
      assert.equal(h.reads.gatewayBusy, false, "a quick reply");
      for (let i = 0; i < 3; i++) await timedRead(h, 200, false);
      hintStream(h);
      assert.equal(h.reads.gatewayBusy, true);
    });

    test("the roster's reads only say how quick the Gateway can be: slow ones never make it busy", async () => {
      const h = scheduler();
      for (let i = 0; i < 5; i++) await timedRead(h, 500, true);
      hintStream(h);
      assert.equal(h.reads.gatewayBusy, false);
    });

    test("the roster's quick reads set the quickest a change-driven read is compared with", async () => {
      const h = scheduler();
      await timedRead(h, 2, true);
      for (let i = 0; i < 5; i++) await timedRead(h, 40, false);
      hintStream(h);
      assert.equal(h.reads.gatewayBusy, true, "40 ms against a quickest of 2 ms: over the 30 ms floor");
    });

    test("without an injected clock the round trips and hints run on the monotonic clock", () => {
      const reads = new ReadScheduler<Session>({ open: () => true, start: () => {}, schedule: () => () => {} });
      for (let i = 0; i < 300; i++) reads.noteHint(`s${i % 50}`);
      assert.equal(reads.gatewayBusy, true, "a burst of hints across 50 sessions is a storm");
    });
  });
});

describe("reads of a card store under the budget (a flooding Gateway)", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `agent:main:flood:${i}`);

  test("a flood of hints is coalesced in the queue: reads stop at the budget, one per session, the latest state", T, async () => {
    const keys = many(50);
    // The general budget alone: pacing a busy Gateway (tested below) would read fewer still.
    const noPacing = { stormHintsPerSecond: Infinity, busyHintsPerSecond: Infinity };
    const h = harness({ maxReadsPerSecond: 10, maxConcurrentReads: 16, gatewayLoad: noPacing });
    await h.store.onReady();
    const revisions = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const key = keys[i % keys.length]!;
      revisions.set(key, i + 1);
      h.store.onEvent("progressCard.changed", { sessionKey: key, revision: i + 1 });
    }
    assert.equal(h.t.of("progressCard.get").length, 10, "the burst of the budget, not one read per hint");
    for (const c of h.t.of("progressCard.get", { pending: true })) {
      const key = c.params.sessionKey as string;
      c.resolve({ card: wireCard(key, revisions.get(key)!, DONE) });
    }
    await settle();
    // Every first read was answered after all hints, so those sessions are done; the other 40 wait.
    assert.equal(h.t.of("progressCard.get").length, 10, "no read without budget");
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, revisions.get(p.sessionKey as string)!, DONE) }));
    await runBudget(h, () => h.store.stats.queuedReads === 0 && h.t.of("progressCard.get", { pending: true }).length === 0);
    assert.ok(
      keys.every((k) => h.store.entry(k)?.card?.revision === revisions.get(k)),
      "every session read",
    );
    // The 10 in flight while hints kept coming returned the latest revision those hints named,
    // so no read was owed for them: every session once.
    assert.equal(h.t.of("progressCard.get").length, keys.length, "50 reads for 1000 hints");
    assert.equal(h.store.stats.skippedRereads, 10);
    assert.equal(h.t.maxPendingPerSession("progressCard.get"), 1);
    assert.ok(h.store.stats.maxQueuedReads <= keys.length, "at most one waiting read per session");
  });

  test("the budget refills with time: sustained reads follow the rate, and a session waiting in line is not overtaken", T, async () => {
    const keys = many(6);
    const h = harness({ maxReadsPerSecond: 2 });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    for (const key of keys) h.store.onEvent("progressCard.changed", { sessionKey: key, revision: 1 });
    await settle();
    assert.deepEqual(h.clock.requested, [500], "one wake-up, on the injected schedule, when the next read is due");
    assert.deepEqual(
      h.t.of("progressCard.get").map((c) => c.params.sessionKey),
      keys.slice(0, 2),
    );
    h.clock.advance(499);
    assert.equal(h.t.of("progressCard.get").length, 2, "not before it is due");
    h.clock.advance(1); // one more read is due
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 3);
    // Budget is due again, but a hint for a session read earlier goes behind those still waiting.
    h.clock.now += 1_000;
    h.store.onEvent("progressCard.changed", { sessionKey: keys[0], revision: 2 });
    assert.equal(h.t.of("progressCard.get").length, 3, "no read ahead of the queue");
    await runBudget(h, () => h.t.of("progressCard.get").length === 7);
    assert.deepEqual(
      h.t.of("progressCard.get").map((c) => c.params.sessionKey),
      [...keys, keys[0]],
    );
  });

  test("a disconnect drops the queue; the reconnect reads hinted sessions again within the budget", T, async () => {
    const keys = many(5);
    // Hinted, not listed: only the listed roster is read outside the budget at a connect.
    const h = harness({ maxReadsPerSecond: 2 });
    h.t.auto.set("progressCard.get", (p) => ({ card: wireCard(p.sessionKey as string, 1, DONE) }));
    await h.store.onReady();
    for (const key of keys) h.store.onEvent("progressCard.changed", { sessionKey: key, revision: 1 });
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 2);
    assert.equal(h.store.stats.queuedReads, 3);
    h.store.onConnectionState(OFFLINE);
    assert.equal(h.store.stats.queuedReads, 0, "the queue is dropped");
    assert.equal(h.clock.pending, 0, "and its wake-up cancelled");
    h.clock.advance(10_000); // the budget is full again
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 2, "nothing read while offline");
    await h.store.onReady();
    await settle();
    assert.equal(h.t.of("progressCard.get").length, 4, "the budget's burst again, no more");
    await runBudget(h, () => keys.every((k) => h.store.entry(k)?.card));
    h.store.dispose();
  });
});

describe("reads of a card store on a Gateway busy with card writes (the cost of being watched)", () => {
  const keys = Array.from({ length: 20 }, (_, i) => `agent:main:busy:${i}`);
  /** The round-trip clock (the budget's is the harness's fake clock): standing still unless a test moves it. */
  const clocks = () => {
    const c = { rtt: 0 };
    return { c, store: { roundTripClock: () => c.rtt, busyReadsPerSecond: 2, busyReadsInFlight: 1 } };
  };
  const answer = (h: Harness, revisions: Map<string, number>) => {
    for (const call of h.t.of("progressCard.get", { pending: true })) {
      const key = call.params.sessionKey as string;
      call.resolve({ card: wireCard(key, revisions.get(key) ?? 1, UNFINISHED) });
    }
  };
  /** The agents write: `n` hints round-robin over the sessions, each naming a new revision. */
  const writes = (h: Harness, revisions: Map<string, number>, n: number) => {
    for (let i = 0; i < n; i++) {
      const key = keys[i % keys.length]!;
      revisions.set(key, (revisions.get(key) ?? 0) + 1);
      h.store.onEvent("progressCard.changed", { sessionKey: key, revision: revisions.get(key) });
    }
  };

  /** Connected; one quick read, then one slow read of the first key: replies are slow now. */
  async function slowStore() {
    const { c, store } = clocks();
    const h = harness(store);
    await h.store.onReady();
    const revisions = new Map<string, number>();
    writes(h, revisions, 1);
    c.rtt += 2;
    answer(h, revisions);
    await settle();
    writes(h, revisions, 1);
    c.rtt += 200;
    answer(h, revisions);
    await settle();
    return { h, c, revisions };
  }

  test("a quiet Gateway is never paced: hints for many sessions are read at once, in parallel", T, async () => {
    const { c, store } = clocks();
    const h = harness(store);
    await h.store.onReady();
    const revisions = new Map<string, number>();
    for (let round = 0; round < 5; round++) {
      for (const key of keys.slice(0, 8)) revisions.set(key, round + 1);
      for (const key of keys.slice(0, 8)) h.store.onEvent("progressCard.changed", { sessionKey: key, revision: round + 1 });
      assert.equal(h.t.of("progressCard.get", { pending: true }).length, 8, "eight reads in flight at once");
      c.rtt += 3;
      answer(h, revisions);
      await settle();
    }
    assert.equal(h.store.gatewayBusy, false);
    assert.equal(h.store.stats.busyReads, 0);
    assert.equal(h.t.of("progressCard.get").length, 40, "one read per hint");
  });

  test("slow replies alone are not paced: one card changing now and then is read at once", T, async () => {
    const { h, c, revisions } = await slowStore();
    for (let i = 0; i < 10; i++) {
      c.rtt += 200; // 5 changes a second, each read slowly
      const before = h.t.of("progressCard.get").length;
      writes(h, revisions, 1);
      assert.equal(h.t.of("progressCard.get").length, before + 1, "read at once");
      answer(h, revisions);
      await settle();
    }
    assert.equal(h.store.stats.busyReads, 0);
    h.store.dispose();
  });

  test("slow replies in a storm of writes pace the reads: one in flight, the busy budget, hints coalesced per session", T, async () => {
    const { h, c, revisions } = await slowStore();
    writes(h, revisions, 200); // 20 sessions change 10 times each, at once
    await settle();
    assert.equal(h.store.gatewayBusy, true);
    // The reads begun before the hint rate said "storm" (up to the usual eight) come back slowly.
    const before = h.t.of("progressCard.get").length;
    assert.ok(before <= 2 + 8, `${before} reads before the storm was seen`);
    // The storm goes on (50 writes per slow reply), the budget's clock stands still: the busy budget (2 a second) runs out.
    for (let i = 0; i < 5; i++) {
      c.rtt += 200;
      writes(h, revisions, 50);
      answer(h, revisions);
      await settle();
      assert.ok(h.t.of("progressCard.get", { pending: true }).length <= 1, "one read in flight while busy");
    }
    assert.equal(h.t.of("progressCard.get").length - before, 2, "the busy budget's burst, then no more until it refills");
    assert.ok(h.store.stats.queuedReads <= keys.length, "at most one waiting read per session");
    // A second of budget clock: two more reads, one at a time.
    h.clock.advance(1_000);
    await settle();
    assert.equal(h.t.of("progressCard.get", { pending: true }).length, 1, "the next paced read");
    c.rtt += 200;
    writes(h, revisions, 50);
    answer(h, revisions);
    await settle();
    assert.equal(h.t.of("progressCard.get").length - before, 4, "the second paced read");
    assert.equal(h.store.stats.busyReads, 4);
    assert.equal(h.store.stats.busySpells, 1);
    assert.equal(h.t.maxPendingPerSession("progressCard.get"), 1);
    h.store.dispose();
  });

  test("when the storm ends, every waiting session is read at once, on its latest revision", T, async () => {
    const { h, c, revisions } = await slowStore();
    writes(h, revisions, 200);
    await settle();
    assert.equal(h.store.gatewayBusy, true);
    // No more writes: three seconds later the storm of hints is over, and replies come back in
    // 1 ms. The budget clock moves a second per reply.
    c.rtt += 3_000;
    for (let i = 0; i < 60 && !keys.every((k) => h.store.entry(k)?.card?.revision === revisions.get(k)); i++) {
      c.rtt += 1;
      h.clock.advance(1_000);
      answer(h, revisions);
      await settle();
    }
    assert.equal(h.store.gatewayBusy, false, "quiet again");
    assert.ok(
      keys.every((k) => h.store.entry(k)?.card?.revision === revisions.get(k)),
      "every session ends on its latest revision",
    );
    assert.ok(h.store.stats.peakReadsInFlight > 1, "reads in parallel again once quiet");
    assert.ok(h.t.of("progressCard.get").length <= 2 + keys.length + 8, `${h.t.of("progressCard.get").length} reads for 200 hints`);
    h.store.dispose();
  });

  test("a reconnect starts quiet: hints are read at full speed on the new connection", T, async () => {
    const { h, revisions } = await slowStore();
    writes(h, revisions, 200);
    assert.equal(h.store.gatewayBusy, true);
    h.store.onConnectionState(OFFLINE);
    await h.store.onReady();
    assert.equal(h.store.gatewayBusy, false);
    for (const key of keys.slice(0, 8)) h.store.onEvent("progressCard.changed", { sessionKey: key, revision: 1_000 });
    assert.equal(h.t.of("progressCard.get", { pending: true }).length, 8);
    h.store.dispose();
  });
});
