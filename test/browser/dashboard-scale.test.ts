// Issue 11, the dashboard at scale: 300 pinned cards in sections by kind with counted headers,
// sub-agents under their parent, and a text filter that hides widgets without rebuilding them.
// The built dashboard page in real Chromium on a FAKE desk (test/browser/fake-desk.ts), so 300
// pins exist without 300 sessions on a Gateway. Needs `npm run build`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Step } from "../../common/model.ts";
import { gridsAroundCards } from "./card-ancestors.ts";
import { chromiumAvailable, launchChromiumBeside } from "./chromium.ts";
import { FAKE_GW, fakeSettings, fakeSnapshot, installFake, servePages, type FakeCard } from "./fake-desk.ts";
import type { StaticServer } from "./server.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const steps = (...s: Step["status"][]): Step[] => s.map((status, i) => ({ step: `Step ${i + 1}`, status }));

/** 300 running sessions: 40 main with 2 sub-agents each, 100 cron, 80 dashboard. */
function cards(): FakeCard[] {
  const now = Date.now();
  const out: FakeCard[] = [];
  const add = (c: Omit<FakeCard, "updatedAt" | "steps" | "running">) =>
    out.push({ ...c, updatedAt: now - out.length * 1000, steps: steps("completed", "in_progress"), running: true });
  for (let i = 0; i < 40; i++) {
    const main = `agent:main:main:m${i}`;
    add({ sessionKey: main, title: `Release ${i}`, kind: "main" });
    for (let j = 0; j < 2; j++)
      add({ sessionKey: `agent:main:subagent:m${i}-s${j}`, title: `Check ${i}.${j}`, kind: "subagent", parentKey: main });
  }
  for (let i = 0; i < 100; i++) add({ sessionKey: `agent:main:cron:c${i}`, title: `Nightly ${i}`, kind: "cron" });
  for (let i = 0; i < 80; i++) add({ sessionKey: `agent:main:dashboard:d${i}`, title: `Board ${i}`, kind: "dashboard" });
  return out;
}

/** Per section: its header text and how many widgets show (sub-agents included). */
function sectionState(): { kind: string; head: string; count: string; visible: number }[] {
  return [...document.querySelectorAll("section.kind-section")]
    .filter((s: any) => !s.hidden)
    .map((s: any) => ({
      kind: s.getAttribute("data-kind"),
      head: s.querySelector("h2").textContent.trim(),
      count: s.querySelector("h2").getAttribute("data-group-count"),
      visible: [...s.querySelectorAll("article.card")].filter((a: any) => a.checkVisibility()).length,
    }));
}

describe("dashboard at 300 pinned cards (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  let server: StaticServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    [server, browser] = await launchChromiumBeside(servePages(), (s) => s.close());
    const all = cards();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, reducedMotion: "reduce" });
    await installFake(context, fakeSnapshot(all), fakeSettings({ pinned: all.map((c) => `${FAKE_GW}\u0000${c.sessionKey}`) }));
    page = await context.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.origin}/dashboard.html`);
    await page.locator("section.kind-section h2").first().waitFor(WAIT);
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  test("sections by kind with counted headers; sub-agents under their parent", async () => {
    assert.deepEqual(await page.evaluate(sectionState), [
      { kind: "main", head: "Main (120)", count: "120", visible: 120 },
      { kind: "dashboard", head: "Dashboard (80)", count: "80", visible: 80 },
      { kind: "cron", head: "Cron (100)", count: "100", visible: 100 },
    ]);
    const release3 = page.locator("li.group").filter({ has: page.getByRole("list", { name: "Sub-agents of Release 3", exact: true }) });
    assert.equal((await release3.locator(".sub-head").textContent())?.trim(), "2 sub-agents");
    assert.equal(await release3.getByRole("list", { name: "Sub-agents of Release 3" }).locator("article.card").count(), 2);
    assert.deepEqual(errors, []);
  });

  test("typing in the filter hides widgets without rebuilding them; headers count what shows", async () => {
    // Mark every card element: a rebuilt card would come back unmarked.
    await page.evaluate(() => {
      for (const a of document.querySelectorAll("article.card")) a.dataset.mark = "1";
    });
    const filter = page.getByRole("searchbox", { name: "Filter" });
    await filter.focus();
    await page.keyboard.type("nightly 1", { delay: 0 });
    await page.waitForFunction(() => document.querySelector('section[data-kind="cron"] h2')?.textContent.includes("of"), undefined, WAIT);
    // "Nightly 1", "Nightly 10".."Nightly 19": 11 of the 100 cron cards.
    assert.deepEqual(await page.evaluate(sectionState), [{ kind: "cron", head: "Cron (11 of 100)", count: "100", visible: 11 }]);

    // A sub-agent's title brings its parent along; the parent's header counts what shows.
    await filter.fill("check 5.1");
    await page.waitForFunction(() => document.querySelector('section[data-kind="main"]')?.hidden === false, undefined, WAIT);
    const state = await page.evaluate(sectionState);
    assert.deepEqual(state, [{ kind: "main", head: "Main (2 of 120)", count: "120", visible: 2 }]);
    const release5 = page.locator("li.group").filter({ has: page.getByRole("list", { name: "Sub-agents of Release 5", exact: true }) });
    assert.equal((await release5.locator(".sub-head").textContent())?.trim(), "1 of 2 sub-agents");

    await filter.fill("no such card");
    await page.getByRole("status").filter({ hasText: "No pinned card matches “no such card”." }).waitFor(WAIT);

    await filter.fill("");
    await page.waitForFunction(() => document.querySelectorAll("section.kind-section:not([hidden])").length === 3, undefined, WAIT);
    const cardsNow = await page.evaluate(() => {
      const all = [...document.querySelectorAll("article.card")];
      return { total: all.length, marked: all.filter((a: any) => a.dataset.mark === "1").length };
    });
    assert.deepEqual(cardsNow, { total: 300, marked: 300 }, "every card is the same element as before the typing");
  });

  test("between the page and a widget only the card grid is a grid: a minute's tick of every time text lays out no nested grid", async () => {
    // Issue 21: a grid lays its items out again to size its rows; six of them nested around every widget
    // doubled the layout a tick of 1,000 time texts costs. One-column stacks are flex columns.
    const grids = await gridsAroundCards(page);
    assert.deepEqual(grids, ["ul.grid"]);
  });

  test("the kind filter still narrows to one section", async () => {
    await page.getByRole("combobox", { name: "Kind" }).selectOption("cron");
    await page.waitForFunction(() => document.querySelectorAll("section.kind-section").length === 1, undefined, WAIT);
    assert.deepEqual(await page.evaluate(sectionState), [{ kind: "cron", head: "Cron (100)", count: "100", visible: 100 }]);
    await page.getByRole("combobox", { name: "Kind" }).selectOption("all");
  });
});
