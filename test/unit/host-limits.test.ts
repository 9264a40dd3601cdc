// The host's two shared limits as rules: the unread budget across sockets (which sockets it
// drops) and the connection slots (which connection makes room for a newcomer). The built
// host under real floods is in test/faults/host-budget.test.ts and host-hardening.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { UnreadBudget } from "../../main/host/unread-budget.ts";
import { ConnectionSlots } from "../../main/host/connection-slots.ts";

/** A socket as the budget sees it: how much it holds unread, and whether it was dropped. */
function socketHolding(name: string, bufferedAmount: number) {
  return {
    name,
    bufferedAmount,
    dropped: false,
    terminate() {
      this.dropped = true;
    },
  };
}

test("under the budget nobody is dropped; over it, the sockets holding the most go first until it fits", () => {
  const budget = new UnreadBudget(100);
  const reader = socketHolding("reader", 1);
  const big = socketHolding("big", 60);
  const middle = socketHolding("middle", 30);
  for (const s of [reader, big, middle]) budget.add(s);
  assert.equal(budget.admit(reader), true);
  assert.deepEqual(
    [reader, big, middle].map((s) => s.dropped),
    [false, false, false],
    "91 of 100: nothing dropped",
  );
  middle.bufferedAmount = 50;
  assert.equal(budget.admit(reader), true, "the reader holds least and stays");
  assert.deepEqual(
    [reader, big, middle].map((s) => s.dropped),
    [false, true, false],
    "111 of 100: the largest alone is enough",
  );
  assert.equal(budget.admit(middle), true, "51 of 100 once the largest went");
});

test("a socket that is itself the largest over the budget is told to send nothing", () => {
  const budget = new UnreadBudget(100);
  const hoarder = socketHolding("hoarder", 150);
  budget.add(hoarder);
  assert.equal(budget.admit(hoarder), false);
  assert.equal(hoarder.dropped, true);
  assert.equal(budget.admit(hoarder), false, "a dropped socket stays out");
});

/** A connection as the slots see it: whether it was dropped. */
function connection(name: string) {
  return {
    name,
    dropped: false,
    destroy() {
      this.dropped = true;
    },
  };
}
type Conn = ReturnType<typeof connection>;

/** Slots whose end of turn the test runs by hand. */
function slotsOf(max: number): { slots: ConnectionSlots<Conn>; endTurn: () => void } {
  let pending: (() => void)[] = [];
  const slots = new ConnectionSlots<Conn>(max, (run) => pending.push(run));
  return {
    slots,
    endTurn: () => {
      const runs = pending;
      pending = [];
      for (const run of runs) run();
    },
  };
}
const dropped = (...cs: Conn[]): string[] => cs.filter((c) => c.dropped).map((c) => c.name);

test("over the cap the oldest connections waiting for a request are dropped at the end of the turn; busy ones stay", () => {
  const { slots, endTurn } = slotsOf(3);
  const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map(connection) as [Conn, Conn, Conn, Conn, Conn];
  for (const s of [a, b, c]) slots.accept(s);
  endTurn();
  slots.busy(a);
  slots.accept(d);
  assert.deepEqual(dropped(a, b, c, d), [], "nothing is dropped before the turn ends");
  endTurn();
  assert.deepEqual(dropped(a, b, c, d), ["b"], "a is being answered, so b, the oldest waiting, goes");
  slots.idle(a);
  slots.accept(e);
  endTurn();
  assert.deepEqual(dropped(a, c, d, e), ["c"], "a waits again, as the newest: c goes");
});

test("a connection accepted in a flood is not pushed out before it has been read", () => {
  const { slots, endTurn } = slotsOf(3);
  const held = ["h1", "h2", "h3"].map(connection);
  for (const s of held) slots.accept(s);
  endTurn();
  const page = connection("page");
  const flood = ["f1", "f2", "f3", "f4"].map(connection);
  for (const s of [page, ...flood]) slots.accept(s);
  endTurn();
  // The held ones go; this turn's arrivals, the page among them, are not read yet and stay.
  assert.deepEqual(dropped(...held, page, ...flood), ["h1", "h2", "h3"]);
  // Next turn: more of the flood arrives, and the page's request is read.
  const more = ["m1", "m2", "m3"].map(connection);
  for (const s of more) slots.accept(s);
  slots.busy(page);
  endTurn();
  assert.deepEqual(dropped(page, ...flood, ...more), ["f1", "f2", "f3", "f4"], "the flood of the turn before goes, the page stays");
});

test("busy connections are never dropped, newcomers are; closed ones free their slots", () => {
  const { slots, endTurn } = slotsOf(2);
  const [a, b, c, d] = ["a", "b", "c", "d"].map(connection) as [Conn, Conn, Conn, Conn];
  for (const s of [a, b]) {
    slots.accept(s);
    slots.busy(s);
  }
  endTurn();
  slots.accept(c);
  endTurn();
  assert.deepEqual(dropped(a, b, c), [], "not dropped in the turn it arrived in");
  slots.accept(d);
  endTurn();
  assert.deepEqual(dropped(a, b, c, d), ["c"], "then the oldest waiting goes; busy ones never");
  slots.closed(a);
  slots.closed(b);
  const e = connection("e");
  slots.accept(e);
  endTurn();
  slots.busy(e);
  endTurn();
  assert.deepEqual(dropped(d, e), [], "closed ones freed their slots");
});

test("over the cap because of this turn's arrivals alone, they go at the end of the next turn, oldest first", () => {
  const { slots, endTurn } = slotsOf(3);
  const [a, b, c, d] = ["a", "b", "c", "d"].map(connection) as [Conn, Conn, Conn, Conn];
  slots.accept(a);
  slots.busy(a);
  endTurn();
  for (const s of [b, c, d]) slots.accept(s);
  slots.accept(connection("e"));
  endTurn();
  assert.deepEqual(dropped(b, c, d), [], "not in the turn they arrived in");
  slots.busy(c);
  endTurn();
  assert.deepEqual(dropped(a, b, c, d), ["b", "d"], "the next turn, with nobody new: the oldest waiting, until within the cap");
});
