// Clicking a control below a long list only once the list has stopped moving. Scrolled into view
// by a jump, the light shells now on screen above it are drawn whole in the next frame (P5), and
// a shell can be shorter than its whole card: the control moves down (by about 300 px in the
// popover-groups list), and a click aimed before that frame lands on whatever took its place.
// Playwright checks the target before it clicks, not after a move. (Seen as a flaky open group.)
import type { Locator } from "playwright-core";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const requestAnimationFrame: (f: () => void) => void;

/** Scrolls `target` into view, waits until its box stayed put for `frames` frames (at most `timeoutMs`), then clicks it. */
export async function clickWhenSteady(target: Locator, frames = 3, timeoutMs = 10_000): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const steady = await target.evaluate(
    async (el: any, { frames, timeoutMs }) => {
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
      const box = (): string => {
        const r = el.getBoundingClientRect();
        return `${Math.round(r.top)},${Math.round(r.left)},${Math.round(r.width)},${Math.round(r.height)}`;
      };
      const end = performance.now() + timeoutMs;
      let last = box();
      let same = 0;
      while (same < frames) {
        if (performance.now() > end) return false;
        await frame();
        const now = box();
        same = now === last ? same + 1 : 0;
        last = now;
      }
      return true;
    },
    { frames, timeoutMs },
  );
  if (!steady) throw new Error(`${String(target)} kept moving for ${timeoutMs} ms`);
  await target.click();
}
