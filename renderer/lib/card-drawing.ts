// P5 (issue 21): when a card far down a long list is drawn whole. The first cards of a list are drawn
// whole at once (the list says which: they are what the person sees first); the others start as a
// light shell (card/CardShell.svelte: title, sub line, note as plain text, steps; no controls, no
// Markdown) and are drawn whole, for good, when they come near the screen, when focus enters them
// or when a pointer presses on them. Their text is in the page from the start, for a screen reader
// and the browser's find alike; a shell costs a fraction of a whole card's memory and start-up work.

/** How far outside the screen a shell is drawn whole: a screen above and below, so scrolling never shows a shell. */
const NEAR_SCREEN = "100% 0px";

// The browser's IntersectionObserver, typed by what is used of it: the unit test runs this module
// under Node with a fake one (test/renderer/card-drawing.test.ts).
type Shell = EventTarget;
interface NearObserver {
  observe(el: Shell): void;
  unobserve(el: Shell): void;
}
type NearObserverClass = new (
  report: (entries: readonly { target: Shell; isIntersecting: boolean }[]) => void,
  options: { rootMargin: string },
) => NearObserver;

let observer: NearObserver | null = null;
const waiting = new Map<Shell, () => void>();
/** Whether cards coming near the screen wait (a load is on: see holdNearScreenDraws). */
let held = false;

function nearScreen(): NearObserver | null {
  const Observer = (globalThis as { IntersectionObserver?: NearObserverClass }).IntersectionObserver;
  if (observer || !Observer) return observer;
  observer = new Observer(
    (entries) => {
      if (held) return;
      for (const e of entries) if (e.isIntersecting) waiting.get(e.target)?.();
    },
    { rootMargin: NEAR_SCREEN },
  );
  return observer;
}

/**
 * While a load streams cards in (a start-up: hundreds in two seconds), a shell that comes near the
 * screen waits: the cards still to come push most of those far down (the dashboard's pins above it
 * are short placeholders until their cards arrive), and drawing one whole costs about 40 KB of page
 * heap and CPU the Gateway's reads wait on. When the hold ends, the shells near the screen then are
 * drawn. Focus or a press still draws a shell at once; the first cards of a list are whole anyway.
 */
export function holdNearScreenDraws(on: boolean): void {
  if (held === on) return;
  held = on;
  if (on) return;
  scheduleAfterLoad();
  if (!observer) return;
  // Where each shell is now, not where the observer last saw it: the last cards of the load may not
  // be laid out in its reports yet, and a shell they pushed far down would be drawn for nothing.
  // Observing again reports every shell afresh after the next layout.
  for (const el of waiting.keys()) {
    observer.unobserve(el);
    observer.observe(el);
  }
}

/**
 * Calls `draw` once: when `element` comes near the screen, when focus enters it or a pointer presses
 * on it, whichever is first (at once where there is no IntersectionObserver). Returns a function
 * that cancels it (the card left the page first).
 */
export function drawWhenNeeded(element: Shell, draw: () => void): () => void {
  let done = false;
  const fire = (): void => {
    if (done) return;
    cancel();
    draw();
  };
  function cancel(): void {
    done = true;
    waiting.delete(element);
    observer?.unobserve(element);
    element.removeEventListener("focusin", fire);
    element.removeEventListener("pointerdown", fire);
  }
  const io = nearScreen();
  if (!io) {
    queueMicrotask(fire);
    return cancel;
  }
  element.addEventListener("focusin", fire);
  element.addEventListener("pointerdown", fire);
  waiting.set(element, fire);
  io.observe(element);
  return () => {
    if (!done) cancel();
  };
}

// Work that waits for the end of a load (a shell's long note to lex: components/ProgressCard.svelte),
// done when the browser is idle once no load is on, a few at a time so no frame waits on it.
type IdleDeadline = { timeRemaining(): number; readonly didTimeout?: boolean };
type IdleRequest = (run: (deadline: IdleDeadline) => void, options: { timeout: number }) => void;
/** Milliseconds of an idle period left to the page (the browser's frame budget is 50). */
const IDLE_RESERVE_MS = 2;
/** Started within this long after the load even when the browser never idles. */
const IDLE_TIMEOUT_MS = 1000;
/** Work done when the browser did not idle within IDLE_TIMEOUT_MS (its deadline then leaves no time). */
const TIMED_OUT_SLICE_MS = 10;
const afterLoad = new Set<() => void>();
let idleAsked = false;

function askIdle(run: (deadline: IdleDeadline) => void): void {
  const request = (globalThis as { requestIdleCallback?: IdleRequest }).requestIdleCallback;
  if (request) request(run, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(() => run({ timeRemaining: () => IDLE_RESERVE_MS + 8 }), 0);
}

function scheduleAfterLoad(): void {
  if (idleAsked || held || afterLoad.size === 0) return;
  idleAsked = true;
  askIdle((deadline) => {
    idleAsked = false;
    if (held) return; // another load: its end schedules again
    const sliceEnd = deadline.didTimeout ? performance.now() + TIMED_OUT_SLICE_MS : 0;
    for (const work of afterLoad) {
      afterLoad.delete(work);
      work();
      if (deadline.timeRemaining() <= IDLE_RESERVE_MS && performance.now() >= sliceEnd) break;
    }
    scheduleAfterLoad();
  });
}

/**
 * Calls `work` once, when no load is on and the browser is idle (in the order asked; at once when
 * nothing is waiting and no load is on, but still in an idle period). Returns a function that
 * cancels it (the card left the page or was drawn whole first).
 */
export function whenLoadIsOver(work: () => void): () => void {
  afterLoad.add(work);
  scheduleAfterLoad();
  return () => void afterLoad.delete(work);
}
