// P5 (issue 21): when a card far down a long list is drawn whole. The first cards of a list are drawn
// whole at once (the list says which: they are what the person sees first); the others start as a
// light shell (card/CardShell.svelte: title, sub line, note as plain text, steps; no controls, no
// Markdown) and are drawn whole, for good, when they come near the screen, when focus enters them
// or when a pointer presses on them. Their text is in the page from the start, for a screen reader
// and the browser's find alike; a shell costs a fraction of a whole card's memory and start-up work.

/** How far outside the screen a shell is drawn whole: a screen above and below, so scrolling never shows a shell. */
const NEAR_SCREEN = "100% 0px";

let observer: IntersectionObserver | null = null;
const waiting = new Map<Element, () => void>();

function nearScreen(): IntersectionObserver | null {
  if (observer || typeof IntersectionObserver === "undefined") return observer;
  observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries) if (e.isIntersecting) waiting.get(e.target)?.();
    },
    { rootMargin: NEAR_SCREEN },
  );
  return observer;
}

/**
 * Calls `draw` once: when `element` comes near the screen, when focus enters it or a pointer presses
 * on it, whichever is first (at once where there is no IntersectionObserver). Returns a function
 * that cancels it (the card left the page first).
 */
export function drawWhenNeeded(element: Element, draw: () => void): () => void {
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
