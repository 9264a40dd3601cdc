// The browser host's two origins in real Chromium against a real Gateway: a page loaded as
// http://localhost:<port>/… may open its socket (the CSP names the origin it came from), and
// Settings lives on its own origin, reached from the popover's Settings button.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { until } from "../harness/until.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";

const chromium = chromiumAvailable();
let agent: BareClient;
let th: TestHost;
let browser: Browser;

describe("the host's origins in a browser", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  before(async () => {
    ({ browser, client: agent, th } = await rig.start());
  });

  after(() => rig.stop());

  test("a page loaded from localhost opens its socket there and shows a card", async () => {
    const url = th.host.url.replace("://127.0.0.1:", "://localhost:");
    const { page, context, errors } = await openPage(browser, url, { reducedMotion: true });
    try {
      const key = await agent.createSession();
      await agent.put(key, { markdown: "Seen through localhost" });
      await card(page, key).waitFor({ timeout: 20_000 });
      assert.deepEqual(
        errors.filter((e) => /Content Security Policy|WebSocket/i.test(e)),
        [],
        "no CSP or socket errors",
      );
    } finally {
      await context.close();
    }
  });

  test("the popover's Settings button opens Settings on its own origin, and its controls work", async () => {
    // No request routing here: the page moves to another origin on purpose.
    const context = await browser.newContext({ viewport: { width: 600, height: 1000 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    try {
      await page.goto(th.host.url);
      await page.getByRole("button", { name: "Open Settings" }).click();
      await page.waitForURL((u) => u.port === String(th.host.settingsPort), { timeout: 20_000 });
      assert.equal(new URL(page.url()).origin, th.host.settingsOrigin);
      assert.equal(new URL(page.url()).pathname, `/${th.host.settingsSecret}/settings.html`);
      const collapse = page.getByRole("switch", { name: /^Collapse task progress by default on desktop/ });
      await collapse.waitFor({ timeout: 20_000 });
      const want = !(await collapse.isChecked());
      await collapse.click();
      await until("the Settings page's change to reach the core", () => th.settings.view().collapseByDefault === want);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      th.settings.update({ collapseByDefault: false });
    }
  });
});
