// The popover keeps one clock: a card folds into "finished" at the tick of the page's minute
// clock (renderer/lib/minute-clock.svelte.ts), the same tick at which every "N min ago" on the
// page changes, never on a timer of its own. The page's time is Playwright's fake clock; the
// desk is the FAKE desk (test/browser/fake-desk.ts). Needs `npm run build`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import type { Step } from "../../common/model.ts";
import { RECENT_FINISHED_MS } from "../../renderer/lib/card-groups.ts";
import { chromiumAvailable, launchChromiumBeside } from "./chromium.ts";
import { FAKE_GW, fakeSettings, fakeSnapshot, installFake, servePages } from "./fake-desk.ts";
import type { StaticServer } from "./server.ts";

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const MINUTE = 60_000;

const steps = (...s: Step["status"][]): Step[] => s.map((status, i) => ({ step: `Step ${i + 1}`, status }));

describe("the popover's clock (FAKE desk, fake time)", { skip: chromium.ok ? false : chromium.reason }, () => {
  let server: StaticServer;
  let browser: Browser;

  before(async () => {
    [server, browser] = await launchChromiumBeside(servePages(), (s) => s.close());
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("a card finished almost an hour ago folds at the next minute of the page's clock", async () => {
    // The page opens ten seconds into a minute; the card is an hour old one second after the
    // minute ends. A timer started with the page would tick only ten seconds later.
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    const opened = minute + 10_000;
    const card = {
      sessionKey: "agent:main:dashboard:done",
      title: "Finished task",
      updatedAt: minute + MINUTE - RECENT_FINISHED_MS - 1000,
      steps: steps("completed", "completed"),
    };
    const context = await browser.newContext({ viewport: { width: 400, height: 700 }, reducedMotion: "reduce" });
    try {
      await context.clock.install({ time: opened });
      await installFake(context, fakeSnapshot([card]), fakeSettings());
      const page = await context.newPage();
      await page.goto(`${server.origin}/popover.html`);
      await page.locator(`[data-card-key="${FAKE_GW} ${card.sessionKey} "]`).waitFor(WAIT);
      await page.clock.pauseAt(minute + 30_000);
      assert.equal(await page.locator('[data-group="finished"]').count(), 0, "fresh enough to stay on top when the page opens");
      // Half a second past the minute: the page's clock has ticked, a page timer would not have.
      await page.clock.runFor(30_500);
      await page.locator('[data-group="finished"] [data-group-count="1"]').waitFor(WAIT);
    } finally {
      await context.close();
    }
  });
});
