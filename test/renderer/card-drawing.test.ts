// P5 (issue 21): a shell is drawn whole when it comes near the screen; while a load streams cards
// in, that waits, and when the load ends the shells near the screen *then* are drawn. A FAKE
// IntersectionObserver stands in for the browser's: it reports where the test says each shell is,
// at observe() and on report(), as the browser does after a layout.
import { describe, test } from "node:test";
import assert from "node:assert/strict";

type Entry = { target: object; isIntersecting: boolean };
const near = new Set<object>();
const observed = new Set<object>();
let callback: ((entries: Entry[]) => void) | null = null;
/** Reports queued as the browser queues them: delivered by flush(), after the next layout. */
let queued: Entry[] = [];

class FakeIntersectionObserver {
  constructor(cb: (entries: Entry[]) => void) {
    callback = cb;
  }
  observe(el: object): void {
    observed.add(el);
    queued.push({ target: el, isIntersecting: near.has(el) });
  }
  unobserve(el: object): void {
    observed.delete(el);
    queued = queued.filter((e) => e.target !== el);
  }
}
(globalThis as unknown as { IntersectionObserver: unknown }).IntersectionObserver = FakeIntersectionObserver;

/** The browser lays the page out: every observed shell whose nearness changed is reported. */
function moveNear(el: object, isNear: boolean): void {
  if (near.has(el) === isNear) return;
  if (isNear) near.add(el);
  else near.delete(el);
  if (observed.has(el)) queued.push({ target: el, isIntersecting: isNear });
}
function flush(): void {
  const entries = queued;
  queued = [];
  if (entries.length > 0) callback?.(entries);
}

class FakeElement {
  addEventListener(): void {}
  removeEventListener(): void {}
}

/** A FAKE requestIdleCallback: idle periods come when the test says, with the time it says is left. */
type IdleRun = (deadline: { timeRemaining(): number; didTimeout?: boolean }) => void;
let idleRuns: IdleRun[] = [];
(globalThis as unknown as { requestIdleCallback: unknown }).requestIdleCallback = (run: IdleRun) => void idleRuns.push(run);
/** One idle period: each piece of work done in it takes `msEach` of the `ms` it has. */
function idlePeriod(ms: number, msEach: number, work: { done: string[] }): void {
  const runs = idleRuns;
  idleRuns = [];
  let left = ms;
  const before = work.done.length;
  for (const run of runs)
    run({
      timeRemaining: () => {
        left = ms - (work.done.length - before) * msEach;
        return Math.max(0, left);
      },
    });
}

const { drawWhenNeeded, holdNearScreenDraws, whenLoadIsOver } = await import("../../renderer/lib/card-drawing.ts");
type Shell = Parameters<typeof drawWhenNeeded>[0];

describe("drawing shells near the screen (P5)", () => {
  test("a shell is drawn once when it comes near the screen, not before", () => {
    const el = new FakeElement();
    let drawn = 0;
    drawWhenNeeded(el as unknown as Shell, () => (drawn += 1));
    flush();
    assert.equal(drawn, 0, "far from the screen: still a shell");
    moveNear(el, true);
    flush();
    assert.equal(drawn, 1);
    moveNear(el, false);
    moveNear(el, true);
    flush();
    assert.equal(drawn, 1, "drawn for good, once");
  });

  test("during a load a shell near the screen waits; at its end the shells near the screen then are drawn, not those pushed away", () => {
    const pushedAway = new FakeElement();
    const stillNear = new FakeElement();
    const drawn: string[] = [];
    drawWhenNeeded(pushedAway as unknown as Shell, () => drawn.push("pushed away"));
    drawWhenNeeded(stillNear as unknown as Shell, () => drawn.push("still near"));
    flush();
    holdNearScreenDraws(true);
    moveNear(pushedAway, true);
    moveNear(stillNear, true);
    flush();
    assert.deepEqual(drawn, [], "nothing is drawn while the load goes on");
    // The load's last cards land above the first shell and push it far down; the load ends before
    // the browser has reported that layout.
    moveNear(pushedAway, false);
    holdNearScreenDraws(false);
    flush();
    assert.deepEqual(drawn, ["still near"], "only the shell near the screen now is drawn");
    holdNearScreenDraws(false);
    flush();
    assert.deepEqual(drawn, ["still near"], "ending no load draws nothing more");
  });

  test("a shell that left the page before the load ended is not drawn", () => {
    const el = new FakeElement();
    let drawn = 0;
    const cancel = drawWhenNeeded(el as unknown as Shell, () => (drawn += 1));
    holdNearScreenDraws(true);
    moveNear(el, true);
    flush();
    cancel();
    holdNearScreenDraws(false);
    flush();
    assert.equal(drawn, 0);
  });

  test("work asked for during a load waits for its end, then runs in idle periods a few at a time, in order", () => {
    const work = { done: [] as string[] };
    holdNearScreenDraws(true);
    for (const name of ["a", "b", "c", "d", "e"]) whenLoadIsOver(() => work.done.push(name));
    idlePeriod(50, 1, work);
    assert.deepEqual(work.done, [], "nothing runs while the load goes on, idle or not");
    holdNearScreenDraws(false);
    // 5 ms of idle time, each piece 2 ms: two pieces, then 1 ms is left, under the page's reserve.
    idlePeriod(5, 2, work);
    assert.deepEqual(work.done, ["a", "b"]);
    idlePeriod(50, 2, work);
    assert.deepEqual(work.done, ["a", "b", "c", "d", "e"]);
    idlePeriod(50, 2, work);
    assert.deepEqual(work.done, ["a", "b", "c", "d", "e"], "each runs once");
  });

  test("work cancelled before its turn never runs; a new load stops what is left until it ends", () => {
    const work = { done: [] as string[] };
    holdNearScreenDraws(true);
    const cancelA = whenLoadIsOver(() => work.done.push("a"));
    whenLoadIsOver(() => work.done.push("b"));
    whenLoadIsOver(() => work.done.push("c"));
    cancelA();
    holdNearScreenDraws(false);
    holdNearScreenDraws(true);
    idlePeriod(50, 1, work);
    assert.deepEqual(work.done, [], "the idle period came during the next load");
    holdNearScreenDraws(false);
    idlePeriod(50, 1, work);
    assert.deepEqual(work.done, ["b", "c"]);
  });

  test("work asked for with no load on runs in the next idle period", () => {
    const work = { done: [] as string[] };
    whenLoadIsOver(() => work.done.push("now"));
    assert.deepEqual(work.done, [], "not in the caller's task");
    idlePeriod(50, 1, work);
    assert.deepEqual(work.done, ["now"]);
  });

  test("when the browser never idles, each timed-out turn still does some of the work, not one piece", () => {
    const done: string[] = [];
    for (let i = 0; i < 5; i++) whenLoadIsOver(() => done.push(String(i)));
    const runs = idleRuns;
    idleRuns = [];
    // A timed-out turn: no idle time left at all. Each piece here takes next to nothing.
    for (const run of runs) run({ timeRemaining: () => 0, didTimeout: true });
    assert.deepEqual(done, ["0", "1", "2", "3", "4"]);
  });
});
