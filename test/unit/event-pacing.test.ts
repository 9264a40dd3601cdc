// When the host sends the desk's events to a page socket (main/host/event-pacing.ts): at once on
// their own, the rest of a turn as one message, and held a little while card changes come as a
// burst. A manual clock: turns and timers run when the test says. The host with this pacing on a
// real socket is in test/gateway/host.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BURST_CARDS, BURST_WINDOW_MS } from "../../common/card-burst.ts";
import { BURST_HOLD_MS, EventPacer, type PacerClock } from "../../main/host/event-pacing.ts";

/** An event: a change of card `card`, or some other event (card null); `ends`: it ends a load. */
type Ev = { card: string | null; n: number; ends?: boolean };

function rig() {
  let now = 0;
  let turns: (() => void)[] = [];
  let timers: { at: number; fn: () => void; live: boolean }[] = [];
  const clock: PacerClock = {
    now: () => now,
    nextTurn: (fn) => void turns.push(fn),
    after: (ms, fn) => {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return { cancel: () => (t.live = false) };
    },
  };
  const messages: number[][] = [];
  const pacer = new EventPacer<Ev>(
    (events) => messages.push(events.map((e) => e.n)),
    { cardOf: (e) => e.card, endsLoad: (e) => e.ends === true },
    clock,
  );
  return {
    pacer,
    messages,
    pending: () => turns.length + timers.filter((t) => t.live).length,
    /** Ends the current turn: what waits for the next turn runs. */
    nextTurn() {
      const run = turns;
      turns = [];
      for (const fn of run) fn();
    },
    /** Moves the clock on by `ms`, running the timers due, then the turn ends. */
    wait(ms: number) {
      now += ms;
      const due = timers.filter((t) => t.live && t.at <= now);
      timers = timers.filter((t) => t.live && t.at > now);
      for (const t of due) t.fn();
      this.nextTurn();
    },
  };
}

/** A change of card `n` (each its own card unless told). */
const card = (n: number, key = `card-${n}`): Ev => ({ card: key, n });
const other = (n: number): Ev => ({ card: null, n });

test("an event on its own goes out at once; the rest of its turn follows as one message", () => {
  const r = rig();
  r.pacer.push(card(1));
  assert.deepEqual(r.messages, [[1]]);
  r.pacer.push(other(2));
  r.pacer.push(card(3));
  assert.deepEqual(r.messages, [[1]], "held until the turn ends");
  r.nextTurn();
  assert.deepEqual(r.messages, [[1], [2, 3]]);
  r.wait(1000);
  r.pacer.push(other(4));
  assert.deepEqual(r.messages, [[1], [2, 3], [4]], "a later event on its own goes out at once again");
});

test("card changes coming as a burst are held for BURST_HOLD_MS and go out together, in order", () => {
  const r = rig();
  const gap = Math.floor(BURST_WINDOW_MS / BURST_CARDS); // one card per turn, as a start-up's reads finish
  let n = 0;
  for (let i = 0; i < BURST_CARDS - 1; i++) {
    r.pacer.push(card(++n));
    r.wait(gap);
  }
  assert.equal(r.messages.length, BURST_CARDS - 1, "below the burst: one message each, at once");
  // The card that makes the burst, and those after it, wait for the hold to end.
  const burstStart = n + 1;
  r.pacer.push(card(++n));
  r.pacer.push(other(++n));
  assert.equal(r.messages.length, BURST_CARDS - 1);
  r.wait(BURST_HOLD_MS - 1);
  r.pacer.push(card(++n));
  assert.equal(r.messages.length, BURST_CARDS - 1, "still held one ms before the hold ends");
  r.wait(1);
  assert.deepEqual(r.messages.at(-1), [burstStart, burstStart + 1, burstStart + 2]);
  // Every event sent once, in order.
  assert.deepEqual(
    r.messages.flat(),
    Array.from({ length: n }, (_, i) => i + 1),
  );
});

test("a start-up's stream (300 cards, one every 8 ms): a message per BURST_HOLD_MS once the burst is found", () => {
  const r = rig();
  const cards = 300;
  const gap = 8;
  for (let i = 1; i <= cards; i++) {
    r.pacer.push(card(i));
    r.wait(gap);
  }
  r.wait(BURST_HOLD_MS);
  assert.deepEqual(
    r.messages.flat(),
    Array.from({ length: cards }, (_, i) => i + 1),
    "every card once, in order",
  );
  const singles = r.messages.findIndex((m) => m.length > 1);
  assert.equal(singles, BURST_CARDS - 1, "one message each until the burst is found");
  const held = r.messages.slice(singles);
  assert.ok(held.length <= Math.ceil((cards * gap) / BURST_HOLD_MS) + 1, `${held.length} messages once held`);
  assert.ok(
    held.slice(0, -1).every((m) => m.length >= Math.floor(BURST_HOLD_MS / gap)),
    "each holds the cards of one hold",
  );
});

test("cards spread wider than the burst window are never held", () => {
  const r = rig();
  for (let i = 1; i <= 3 * BURST_CARDS; i++) {
    r.pacer.push(card(i));
    assert.equal(r.messages.length, i, `card ${i} went out at once`);
    r.wait(Math.ceil(BURST_WINDOW_MS / (BURST_CARDS - 1)) + 1);
  }
});

test("one card changing fast is no burst: an agent writing its own card is never held back", () => {
  const r = rig();
  for (let i = 1; i <= 5 * BURST_CARDS; i++) {
    r.pacer.push(card(i, "the-same-card"));
    assert.equal(r.messages.length, i, `change ${i} went out at once`);
    r.wait(1);
  }
  // Seven cards taking turns are no burst either; an eighth makes one.
  const s = rig();
  for (let i = 1; i <= 4 * BURST_CARDS; i++) {
    s.pacer.push(card(i, `card-${i % (BURST_CARDS - 1)}`));
    s.wait(1);
  }
  assert.equal(s.messages.length, 4 * BURST_CARDS);
  s.pacer.push(card(1000, "an-eighth-card"));
  s.nextTurn();
  assert.equal(s.messages.length, 4 * BURST_CARDS, "held");
});

test("other events never make a burst, however many come", () => {
  const r = rig();
  for (let i = 1; i <= 5 * BURST_CARDS; i++) {
    r.pacer.push(other(i));
    assert.equal(r.messages.length, i);
    r.wait(1);
  }
});

test("an event that ends a load goes out at once with what is held; what follows waits for the hold's end", () => {
  const r = rig();
  for (let i = 1; i <= BURST_CARDS; i++) r.pacer.push(card(i));
  r.nextTurn();
  r.pacer.push(card(9)); // a burst: held for BURST_HOLD_MS
  r.pacer.push(card(10));
  r.nextTurn();
  assert.equal(r.messages.length, 2, "held");
  r.pacer.push({ card: null, n: 100, ends: true });
  assert.deepEqual(r.messages.at(-1), [9, 10, 100], "sent before the hold ends");
  r.pacer.push(other(101));
  r.nextTurn();
  assert.equal(r.messages.length, 3, "the hold goes on for what follows");
  r.wait(BURST_HOLD_MS);
  assert.deepEqual(r.messages.at(-1), [101]);
  assert.deepEqual(r.messages.flat(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 101], "each once, in order");
  // On its own (nothing held), it goes out at once as any event does.
  const s = rig();
  s.pacer.push({ card: null, n: 1, ends: true });
  assert.deepEqual(s.messages, [[1]]);
});

test("flush sends what is held at once (a reply must not overtake it); close drops it and its timer", () => {
  const r = rig();
  for (let i = 1; i <= BURST_CARDS; i++) r.pacer.push(card(i));
  assert.deepEqual(r.messages, [[1]]);
  r.pacer.flush();
  assert.deepEqual(r.messages, [[1], [2, 3, 4, 5, 6, 7, 8]]);
  r.nextTurn();
  assert.equal(r.messages.length, 2, "nothing held is sent twice");

  const s = rig();
  for (let i = 0; i < BURST_CARDS; i++) s.pacer.push(card(i));
  s.nextTurn();
  s.pacer.push(card(100)); // a burst: held
  s.pacer.close();
  s.wait(BURST_HOLD_MS);
  assert.equal(s.pending(), 0, "no timer left running");
  assert.equal(
    s.messages.flat().some((n) => n === 100),
    false,
    "a closed socket gets nothing more",
  );
});
