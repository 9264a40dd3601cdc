// Issue 11, the popover at scale: 300 cards, of which the finished and the long-paused fold
// into groups that open on demand. The built popover page runs in real Chromium on a FAKE
// desk (test/browser/fake-desk.ts): cards updated days ago cannot be written through the real
// Gateway, which stamps the time itself. Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { DeskChange, Step } from "../../common/model.ts";
import { GROUP_PAGE } from "../../renderer/lib/card-groups.ts";
import { gridsAroundCards } from "./card-ancestors.ts";
import { chromiumAvailable } from "./chromium.ts";
import { emitChange, FAKE_GW, fakeEntry, fakeSettings, fakeSnapshot, installFake, sessionRow, type FakeCard } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";
import { clickWhenSteady } from "./steady-layout.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;

const chromium = chromiumAvailable();
const DAY = 24 * 60 * 60_000;
const WAIT = { timeout: 15_000 };

const steps = (...s: Step["status"][]): Step[] => s.map((status, i) => ({ step: `Step ${i + 1}`, status }));

/** 300 cards: 100 running, 20 paused an hour ago, 30 finished three days ago, 150 paused two days ago. */
function cards(): { all: FakeCard[]; active: FakeCard[]; recentPaused: FakeCard[]; finished: FakeCard[]; idle: FakeCard[] } {
  const now = Date.now();
  const make = (prefix: string, n: number, f: (i: number) => Omit<FakeCard, "sessionKey" | "title">): FakeCard[] =>
    Array.from({ length: n }, (_, i) => ({ sessionKey: `agent:main:dashboard:${prefix}-${i}`, title: `${prefix} task ${i}`, ...f(i) }));
  const active = make("active", 100, (i) => ({ updatedAt: now - i * 1000, steps: steps("completed", "in_progress"), running: true }));
  const recentPaused = make("recent", 20, (i) => ({ updatedAt: now - 60 * 60_000 - i * 1000, steps: steps("in_progress", "pending") }));
  const finished = make("finished", 30, (i) => ({ updatedAt: now - 3 * DAY - i * 1000, steps: steps("completed", "completed") }));
  const idle = make("idle", 150, (i) => ({ updatedAt: now - 2 * DAY - i * 1000, steps: steps("completed", "in_progress", "pending") }));
  return { all: [...active, ...recentPaused, ...finished, ...idle], active, recentPaused, finished, idle };
}

/** The benchmark's count: cards rendered outside groups plus each group header's count. */
function countCards(): { top: number; grouped: number; total: number } {
  const top = document.querySelectorAll("[data-card-key]:not([data-group] [data-card-key])").length;
  let grouped = 0;
  for (const h of document.querySelectorAll("[data-group-count]")) grouped += Number(h.getAttribute("data-group-count"));
  return { top, grouped, total: top + grouped };
}

const groupToggle = (page: Page, id: string) => page.locator(`[data-group="${id}"] button.group-toggle`);
const slot = (page: Page, key: string) => page.locator(`[data-card-key="${FAKE_GW} ${key} "]`);

describe("popover groups at 300 cards (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  type OpenOptions = { noObserver?: boolean; height?: number; collapsed?: boolean };
  async function open(data = cards(), hash = "", opts: OpenOptions = {}): Promise<{ page: Page; errors: string[] }> {
    const context = await pages.newContext({ viewport: { width: 400, height: opts.height ?? 700 }, reducedMotion: "reduce" });
    await installFake(context, fakeSnapshot(data.all), fakeSettings({ collapseByDefault: opts.collapsed ?? false }));
    // A page without IntersectionObserver: only the "Show more" button pages a group.
    if (opts.noObserver)
      await context.addInitScript(() => void delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/popover.html${hash}`);
    await page.locator("[data-group-count]").first().waitFor(WAIT);
    return { page, errors };
  }

  test("no grid between the page and a card: a minute's tick of every time text lays out no nested grid", async () => {
    // Issue 21: a grid lays its items out again to size its rows; one-column stacks are flex columns.
    const { page, errors } = await open();
    await clickWhenSteady(groupToggle(page, "idle")); // a group's cards too
    assert.ok((await page.locator('[data-group="idle"] article.card').count()) > 0);
    const grids = await gridsAroundCards(page);
    assert.deepEqual(grids, []);
    assert.deepEqual(errors, []);
  });

  test("the finished and the long-paused are folded into groups with their counts; the rest stay on top", async () => {
    const data = cards();
    const { page, errors } = await open(data);
    assert.deepEqual(await page.evaluate(countCards), { top: 120, grouped: 180, total: 300 });
    assert.equal(await page.locator('[data-group="finished"] [data-group-count]').getAttribute("data-group-count"), "30");
    assert.equal(await page.locator('[data-group="idle"] [data-group-count]').getAttribute("data-group-count"), "150");
    assert.equal((await groupToggle(page, "finished").textContent())?.trim(), "30 finished before today");
    assert.equal((await groupToggle(page, "idle").textContent())?.trim(), "150 paused for more than a day");
    for (const id of ["finished", "idle"]) assert.equal(await groupToggle(page, id).getAttribute("aria-expanded"), "false");
    // Closed groups render none of their cards.
    assert.equal(await page.locator("[data-group] [data-card-key]").count(), 0);
    // Active first, most recent first: the order on top is the list's own.
    const topKeys = await page.evaluate(() =>
      [...document.querySelectorAll("[data-card-key]")].map((e: any) => e.getAttribute("data-card-key").split(" ")[1]),
    );
    assert.deepEqual(
      topKeys,
      [...data.active, ...data.recentPaused].map((c) => c.sessionKey),
    );
    // Cards far down start as light shells (issue 21), yet are in the DOM with their title.
    const far = slot(page, data.active[99]!.sessionKey).locator("article.card");
    assert.equal(await far.evaluate((e: any) => e.classList.contains("shell")), true);
    assert.equal((await far.locator(".title").textContent())?.trim(), "active task 99");
    assert.deepEqual(errors, []);
  });

  test("opening a group shows its cards a page at a time, the next as the person reaches it; closing hides them", async () => {
    const data = cards();
    const { page } = await open(data);
    const rendered = () => page.locator('[data-group="idle"] [data-card-key]').count();
    const more = page.locator('[data-group="idle"] button.group-more');
    await clickWhenSteady(groupToggle(page, "idle"));
    assert.equal(await groupToggle(page, "idle").getAttribute("aria-expanded"), "true");
    assert.equal(await rendered(), GROUP_PAGE);
    assert.equal((await more.textContent())?.trim(), `Show ${GROUP_PAGE} more (${150 - GROUP_PAGE} not shown yet)`);
    // Scrolling near the button brings the next page by itself, until every card is there.
    while ((await more.count()) > 0) {
      const before = await rendered();
      await more.scrollIntoViewIfNeeded();
      await page.waitForFunction((n: number) => document.querySelectorAll('[data-group="idle"] [data-card-key]').length > n, before, WAIT);
    }
    assert.equal(await rendered(), 150);
    assert.equal(await page.locator('[data-group="idle"] [data-group-count]').getAttribute("data-group-count"), "150");
    const last = slot(page, data.idle[149]!.sessionKey);
    await last.scrollIntoViewIfNeeded();
    assert.ok(await last.locator("article.card").isVisible(), "the group's last card can be scrolled to and seen");
    assert.equal(await page.locator('[data-group="finished"] [data-card-key]').count(), 0, "the other group stays closed");
    await clickWhenSteady(groupToggle(page, "idle"));
    assert.equal(await rendered(), 0);
    // Opened again, it starts from one page.
    await clickWhenSteady(groupToggle(page, "idle"));
    assert.equal(await rendered(), GROUP_PAGE);
  });

  test("the Show more button pages a group from the keyboard (no IntersectionObserver)", async () => {
    const { page } = await open(cards(), "", { noObserver: true });
    const rendered = () => page.locator('[data-group="idle"] [data-card-key]').count();
    const more = page.locator('[data-group="idle"] button.group-more');
    await clickWhenSteady(groupToggle(page, "idle"));
    assert.equal(await rendered(), GROUP_PAGE);
    await more.focus();
    await page.keyboard.press("Enter");
    assert.equal(await rendered(), 2 * GROUP_PAGE);
    await page.keyboard.press(" ");
    assert.equal(await rendered(), 3 * GROUP_PAGE);
    assert.equal((await more.textContent())?.trim(), `Show ${GROUP_PAGE} more (${150 - 3 * GROUP_PAGE} not shown yet)`);
  });

  test("a window tall enough for more than a page keeps loading pages until the button is out of reach", async () => {
    const data = cards();
    const onlyIdle = { ...data, all: data.idle };
    const { page } = await open(onlyIdle, "", { height: 6000, collapsed: true });
    await clickWhenSteady(groupToggle(page, "idle"));
    // No scrolling: the button stays near after each page, and each page is followed by the next.
    await page.waitForFunction(
      (n: number) => document.querySelectorAll('[data-group="idle"] [data-card-key]').length >= n,
      3 * GROUP_PAGE,
      WAIT,
    );
  });

  test("keyboard: arrows reach the group headers, Enter and Space open and close them", async () => {
    const data = cards();
    const { page } = await open(data);
    const lastTop = slot(page, data.recentPaused[19]!.sessionKey).locator("button.toggle");
    await lastTop.focus();
    await page.keyboard.press("ArrowDown");
    const focusedGroup = () => page.evaluate(() => document.activeElement?.closest("[data-group]")?.getAttribute("data-group") ?? null);
    assert.equal(await focusedGroup(), "finished");
    await page.keyboard.press("Enter");
    assert.equal(await groupToggle(page, "finished").getAttribute("aria-expanded"), "true");
    assert.equal(await page.locator('[data-group="finished"] [data-card-key]').count(), GROUP_PAGE);
    // Down from the header walks into the group's own cards.
    await page.keyboard.press("ArrowDown");
    assert.equal(
      await page.evaluate(() => document.activeElement?.closest("[data-card-key]")?.getAttribute("data-card-key")),
      `${FAKE_GW} ${data.finished[0]!.sessionKey} `,
    );
    await page.keyboard.press("End");
    assert.equal(await focusedGroup(), "idle");
    await page.keyboard.press(" ");
    assert.equal(await groupToggle(page, "idle").getAttribute("aria-expanded"), "true");
    await page.keyboard.press(" ");
    assert.equal(await groupToggle(page, "idle").getAttribute("aria-expanded"), "false");
  });

  test("an open group stays open through updates, also when its count changes", async () => {
    const data = cards();
    const { page } = await open(data);
    await clickWhenSteady(groupToggle(page, "finished"));
    // A newer revision of a folded card, still finished days ago; then a fresh card on top.
    const old = data.finished[3]!;
    await emitChange(page, { type: "card", gatewayId: FAKE_GW, entry: fakeEntry({ ...old, revision: 2 }) });
    const fresh: FakeCard = {
      sessionKey: "agent:main:dashboard:fresh",
      title: "fresh",
      updatedAt: Date.now(),
      steps: steps("in_progress"),
      running: true,
    };
    await emitChange(page, { type: "card", gatewayId: FAKE_GW, entry: fakeEntry(fresh) });
    await slot(page, fresh.sessionKey).waitFor(WAIT);
    assert.equal(await groupToggle(page, "finished").getAttribute("aria-expanded"), "true");
    // Another card finishes days ago (a re-read of an old session): the group grows and stays open.
    const grown: FakeCard = {
      sessionKey: "agent:main:dashboard:late",
      title: "late",
      updatedAt: Date.now() - 4 * DAY,
      steps: steps("completed"),
    };
    await emitChange(page, { type: "card", gatewayId: FAKE_GW, entry: fakeEntry(grown) });
    await page.locator('[data-group="finished"] [data-group-count="31"]').waitFor(WAIT);
    assert.equal(await groupToggle(page, "finished").getAttribute("aria-expanded"), "true");
    assert.equal(await page.locator('[data-group="finished"] [data-card-key]').count(), GROUP_PAGE);
    assert.match((await page.locator('[data-group="finished"] button.group-more').textContent()) ?? "", /\(6 not shown yet\)/);
    assert.equal(await groupToggle(page, "idle").getAttribute("aria-expanded"), "false");
  });

  test("a folded card whose session resumes moves to the top, and the group's count drops", async () => {
    const data = cards();
    const { page } = await open(data);
    const resumed: FakeCard = {
      ...data.idle[7]!,
      updatedAt: Date.now(),
      steps: steps("completed", "completed", "in_progress"),
      running: true,
      revision: 2,
    };
    const changes: DeskChange[] = [
      {
        type: "sessions",
        gatewayId: FAKE_GW,
        sessions: data.all.map((c) => (c.sessionKey === resumed.sessionKey ? sessionRow(resumed) : sessionRow(c))),
      },
      { type: "card", gatewayId: FAKE_GW, entry: fakeEntry(resumed) },
    ];
    for (const c of changes) await emitChange(page, c);
    await page.locator('[data-group="idle"] [data-group-count="149"]').waitFor(WAIT);
    const topKeys = await page.evaluate(() =>
      [...document.querySelectorAll("[data-card-key]:not([data-group] [data-card-key])")].map(
        (e: any) => e.getAttribute("data-card-key").split(" ")[1],
      ),
    );
    assert.equal(topKeys[0], resumed.sessionKey, "the most recently updated card leads the list");
    assert.deepEqual(await page.evaluate(countCards), { top: 121, grouped: 179, total: 300 });
  });

  test("a notification that opens a folded card opens its group and focuses the card", async () => {
    const data = cards();
    const target = data.idle[42]!;
    const ref = encodeURIComponent(JSON.stringify({ gatewayId: FAKE_GW, sessionKey: target.sessionKey, agentId: null }));
    const { page } = await open(data, `#card=${ref}`);
    await page.waitForFunction(
      (key: string) => document.activeElement?.closest("[data-card-key]")?.getAttribute("data-card-key") === key,
      `${FAKE_GW} ${target.sessionKey} `,
      WAIT,
    );
    assert.equal(await groupToggle(page, "idle").getAttribute("aria-expanded"), "true");
  });
});
