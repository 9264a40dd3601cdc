// Issue 12 on the pages, end to end: cards written through a real Gateway (by a real agent run
// with the scripted model, or by direct puts), shown in real Chromium. The page's clock is
// Playwright's (page.clock), so a minute passes on demand; the desk's own clock is real time.
// Checked: the timing line, its tooltip, the estimate, the timeline on the dashboard, and that a
// minute tick rewrites only the time texts of the popover list (MutationObserver).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable, launchChromiumBeside } from "../browser/chromium.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { until } from "../harness/until.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { plan } from "../gateway/support.ts";
import { card, removeHome, startTestHost, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;
declare const window: any;
declare const MutationObserver: any;

const chromium = chromiumAvailable();
let model: ScriptedModel;
let gw: TestGateway;
let user: BareClient;
let th: TestHost;
let browser: Browser;

/** A page whose clock Playwright drives: it starts at the real time and runs on until fast-forwarded. */
async function openClockedPage(url: string, width = 400): Promise<{ page: Page; close: () => Promise<void>; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, reducedMotion: "reduce" });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.clock.install({ time: Date.now() });
  await page.goto(url);
  return { page, close: () => context.close(), errors };
}

const timingText = async (page: Page, key: string): Promise<string> =>
  ((await card(page, key).locator("p.timing").textContent()) ?? "").trim();

/** Waits for a card's timing line to match. */
async function lineMatches(page: Page, key: string, re: RegExp): Promise<string> {
  let last = "";
  try {
    await until(`timing line ${re}`, async () => re.test((last = await timingText(page, key))), 30_000);
  } catch (err) {
    throw new Error(`timing line ${re}: last seen "${last}"`, { cause: err });
  }
  return last;
}

describe("card timing on the pages", { skip: chromium.ok ? false : chromium.reason }, () => {
  before(
    async () => {
      model = await startScriptedModel();
      [gw, browser] = await launchChromiumBeside(startGateway({ model }), (g) => g.dispose());
      user = await connectBareClient(gw);
      th = await startTestHost(gw);
      await warmUpAgent(user, gw);
    },
    { timeout: 300_000 },
  );

  after(async () => {
    await browser?.close();
    await th?.stop();
    if (th) removeHome(th.home);
    await user?.close();
    await gw?.dispose();
    await model?.stop();
  });

  test(
    "a live run: step, running time, estimate and update time; the dashboard's timeline grows; paused stops it",
    { timeout: 120_000 },
    async () => {
      const key = await user.createSession();
      const popover = await openClockedPage(th.host.url);
      const dash = await openClockedPage(th.host.pageUrl("dashboard"), 960);
      try {
        th.settings.update({ pinned: [`${th.desk.gatewayIds()[0]!}\u0000${key}`] });
        const turn = user.runTurn(
          key,
          [
            { tool: "progress_card", args: { plan: plan("in_progress", "pending", "pending", "pending") } },
            { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending", "pending") }, delayMs: 1500 },
            { tool: "progress_card", args: { plan: plan("completed", "completed", "in_progress", "pending") }, delayMs: 3000 },
            // The run stays alive while the pages are read, then ends with the plan unfinished.
            { text: "Stopping here for now", delayMs: 30_000 },
          ],
          { timeoutMs: 90_000 },
        );
        // Two steps of 1.5 s and 3 s: the estimate is a range under a minute.
        const line = await lineMatches(popover.page, key, /left/);
        assert.equal(line, "Step 3 of 4 · running under a minute · under a minute left · updated just now");
        const updated = card(popover.page, key).locator("time.since.updated");
        assert.match(
          (await updated.getAttribute("title")) ?? "",
          /^Updated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
          "absolute time in the tooltip",
        );
        assert.ok(Number.isFinite(Date.parse((await updated.getAttribute("datetime")) ?? "")));
        assert.match((await card(popover.page, key).locator("time.since.running").getAttribute("title")) ?? "", /^Started \d{4}-/);

        // The timeline: a segment per step that ran, each with its words; the longer step is the longer segment.
        const items = card(dash.page, key).getByRole("list", { name: "Timeline" }).getByRole("listitem");
        await until("three timeline segments", async () => (await items.count()) === 3, 30_000);
        const words = await items.allTextContents();
        assert.match(words[0]!, /^Step 1: \d s$/);
        assert.match(words[1]!, /^Step 2: \d s$/);
        assert.equal(words[2], "Step 3: running under a minute");
        const [w1, w2] = [(await items.nth(0).boundingBox())!.width, (await items.nth(1).boundingBox())!.width];
        assert.ok(w2 > w1, `3 s is drawn longer than 1.5 s (${w2} vs ${w1} px)`);
        const growingBefore = (await items.nth(2).boundingBox())!.width;

        // A minute passes on the pages' clocks: the words and the running segment follow.
        // The clock ticks on each minute of the wall clock, so after two minutes at least one full
        // minute has passed at the last tick: the words read 1 or 2 min.
        await popover.page.clock.runFor("02:00");
        await dash.page.clock.runFor("02:00");
        await lineMatches(popover.page, key, /^Step 3 of 4 · running [12] min · under a minute left · updated [12] min ago$/);
        await until(
          "the running segment's words",
          async () => /^Step 3: running [12] min$/.test((await items.nth(2).textContent()) ?? ""),
          10_000,
        );
        assert.ok((await items.nth(2).boundingBox())!.width > growingBefore, "the running segment grew");

        // The run ends unfinished: paused, no running time, no estimate, the step no longer grows.
        assert.equal((await turn).phase, "end");
        await lineMatches(popover.page, key, /^Step 3 of 4 · updated [12] min ago$/);
        await until("a paused step", async () => (await items.nth(2).textContent()) === "Step 3: not running now", 30_000);
        assert.deepEqual([...popover.errors, ...dash.errors], []);
      } finally {
        await popover.close();
        await dash.close();
      }
    },
  );

  test("a minute tick rewrites only the time texts of the popover list", { timeout: 60_000 }, async () => {
    const popover = await openClockedPage(th.host.url);
    try {
      const keys = [await user.createSession(), await user.createSession()];
      for (const k of keys) await user.put(k, { plan: plan("completed", "in_progress", "pending") });
      for (const k of keys) await lineMatches(popover.page, k, /^Step 2 of 3 · updated just now$/);
      await popover.page.evaluate(() => {
        const list = document.querySelector("section.list");
        window.__mutations = [];
        window.__observer = new MutationObserver((records: any[]) => {
          for (const r of records) {
            const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            window.__mutations.push({
              type: r.type,
              inTime: el?.closest("time.since") !== null,
              where: el?.outerHTML?.slice(0, 120) ?? "",
            });
          }
        });
        window.__observer.observe(list, { subtree: true, childList: true, characterData: true, attributes: true });
      });
      // Two minutes: at the last minute tick at least one full minute has passed (see above).
      await popover.page.clock.runFor("02:00");
      for (const k of keys) await lineMatches(popover.page, k, /^Step 2 of 3 · updated [12] min ago$/);
      const mutations: { type: string; inTime: boolean; where: string }[] = await popover.page.evaluate(() => {
        window.__observer.disconnect();
        return window.__mutations;
      });
      assert.ok(mutations.length >= keys.length, "each card's time text changed");
      assert.deepEqual(
        mutations.filter((m) => !m.inTime),
        [],
        "nothing outside the time texts changed",
      );
      assert.deepEqual([...new Set(mutations.map((m) => m.type))], ["characterData"], "the text nodes were rewritten, not replaced");
      assert.deepEqual(popover.errors, []);
    } finally {
      await popover.close();
    }
  });
});
