// A page for the benchmarks that time a page load: the test suites' openPage routes every request
// through Playwright (to catch foreign requests), which adds a round trip per file loaded.
import type { Browser, BrowserContext, Page } from "playwright-core";

// Runs in the page (page.evaluate); the Node-side program has no DOM types.
declare const document: any;
declare const MutationObserver: any;

/** A blank page in a fresh context (popover-sized unless told), with no request interception: load it later. */
export async function blankPage(
  browser: Browser,
  viewport: { width: number; height: number } = { width: 400, height: 900 },
): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport, reducedMotion: "reduce" });
  const page = await context.newPage();
  return { page, context };
}

/** A page in a fresh context (popover-sized unless told), loaded from `url` with no request interception. */
export async function openPlainPage(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number } = { width: 400, height: 900 },
): Promise<{ page: Page; context: BrowserContext }> {
  const opened = await blankPage(browser, viewport);
  await opened.page.goto(url);
  return opened;
}

/** In the page: resolves once no DOM mutation happened for `quietMs` (or after `limitMs`), with the time waited. */
export function domQuiet({ quietMs, limitMs }: { quietMs: number; limitMs: number }): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let last = t0;
    const mo = new MutationObserver(() => (last = performance.now()));
    mo.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    const check = () => {
      const now = performance.now();
      if (now - last >= quietMs || now - t0 >= limitMs) {
        mo.disconnect();
        resolve(now - t0);
      } else setTimeout(check, 100);
    };
    setTimeout(check, 100);
  });
}
