// Open the session (issue 12) end to end: a card whose session key has a Control UI route
// shows an "Open session" button, reachable by keyboard, that opens exactly that session's
// link (no secret in it) in a new tab; a card without a route shows none. Cards written
// through a real Gateway, the real browser host, real Chromium. The page's window.open is
// recorded (not followed): the link itself is checked against the real Control UI in
// test/gateway/card-timing.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { sessionLink } from "../../common/session-link.ts";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { plan } from "../gateway/support.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const window: any;

const chromium = chromiumAvailable();
let gw: TestGateway;
let agent: BareClient;
let th: TestHost;
let browser: Browser;

describe("open the session from a card", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  before(async () => {
    ({ gw, browser, client: agent, th } = await rig.start());
  });

  after(() => rig.stop());

  test("shown only where a route exists; Enter on it opens that session's link in a new tab", { timeout: 90_000 }, async () => {
    const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      await page.addInitScript(() => {
        window.__opens = [];
        window.open = (...args: unknown[]) => {
          window.__opens.push(args);
          return null;
        };
      });
      await page.reload();
      const routed = await agent.createSession();
      const link = sessionLink(gw.url, routed);
      assert.ok(link, `a route for ${routed}`);
      // A session created under a chosen key has no trailing UUID: no Control UI route.
      const plain = (await agent.request<{ key: string }>("sessions.create", { key: "open-session-plain" })).key;
      assert.equal(sessionLink(gw.url, plain), null, plain);
      await agent.put(routed, { markdown: "Routed", plan: plan("in_progress", "pending") });
      await agent.put(plain, { markdown: "Main", plan: plan("in_progress", "pending") });
      await card(page, routed).waitFor({ timeout: 15_000 });
      await card(page, plain).waitFor({ timeout: 15_000 });

      assert.equal(await card(page, plain).locator("button.session").count(), 0, "no route, no button");
      const button = card(page, routed).getByRole("button", { name: "Open session in the Control UI" });
      assert.equal(await button.count(), 1);
      await button.focus();
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => window.__opens.length > 0, undefined, { timeout: 15_000 });
      const opens = (await page.evaluate(() => window.__opens)) as unknown[][];
      assert.deepEqual(opens, [[link, "_blank", "noopener,noreferrer"]]);
      assert.ok(!String(opens[0]![0]).includes(gw.token), "no token in the opened link");
      assert.deepEqual(
        errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await context.close();
    }
  });
});
