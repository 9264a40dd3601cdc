// A page for the benchmarks that time a page load: the test suites' openPage routes every request
// through Playwright (to catch foreign requests), which adds a round trip per file loaded.
import type { Browser, BrowserContext, Page } from "playwright-core";

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
