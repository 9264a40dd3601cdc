// Until a Gateway's cards are all read (`cardsKnown`), a session without a card may still hold one:
// the popover says "Loading cards…" instead of "No task progress yet", and a pinned widget without
// its card says "Loading…" instead of "No progress yet"; both change when the desk says every card
// was read, and the cards that came meanwhile show as they come. The FAKE desk
// (test/browser/fake-desk.ts) sends the change as the real desk does (test/gateway/roster.test.ts
// checks that the real one does). Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { DeskChange, DeskSnapshot } from "../../common/model.ts";
import { chromiumAvailable } from "./chromium.ts";
import { FAKE_GW, fakeEntry, fakeSettings, fakeSnapshot, installFake } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };

const CARD = {
  sessionKey: "agent:main:dashboard:reading",
  title: "Read a little later",
  updatedAt: Date.now(),
  steps: [{ step: "Read", status: "in_progress" as const }],
  markdown: "Arrived during the load",
  running: true,
};
const KNOWN: DeskChange = { type: "cardsKnown", gatewayId: FAKE_GW, complete: true };

/** The FAKE desk's snapshot with no card read yet: the Gateway is connected and its roster is still being read. */
function reading(): DeskSnapshot {
  const snap = fakeSnapshot([CARD]);
  snap.gateways[0]!.cards = [];
  snap.gateways[0]!.cardsKnown = false;
  return snap;
}

const emit = (page: Page, change: DeskChange): Promise<void> =>
  page.evaluate(
    (c: unknown) => (globalThis as unknown as { __fakeDesk: { emit(c: unknown): void } }).__fakeDesk.emit(c),
    change as unknown,
  );

describe("cards still being read (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function open(where: "popover" | "dashboard", snapshot: DeskSnapshot): Promise<Page> {
    const context = await pages.newContext({
      viewport: { width: where === "popover" ? 400 : 1200, height: 800 },
      reducedMotion: "reduce",
    });
    const pinned = where === "dashboard" ? [`${FAKE_GW}\u0000${CARD.sessionKey}`, `${FAKE_GW}\u0000agent:main:dashboard:never`] : [];
    await installFake(context, snapshot, fakeSettings({ pinned }));
    const page = await context.newPage();
    await page.goto(`${pages.origin}/${where}.html`);
    return page;
  }

  test("popover: 'Loading cards…' until every card is read, then 'No task progress yet'", async () => {
    const page = await open("popover", reading());
    try {
      await page.getByText("Loading cards…", { exact: true }).waitFor(WAIT);
      assert.equal(await page.getByText("No task progress yet").count(), 0);
      await emit(page, KNOWN);
      await page.getByText("No task progress yet", { exact: true }).waitFor(WAIT);
      assert.equal(await page.getByText("Loading cards…").count(), 0);
    } finally {
      await page.context().close();
    }
  });

  test("popover: a page opened after the cards were read says there is no progress at once", async () => {
    const snap = reading();
    snap.gateways[0]!.cardsKnown = true;
    const page = await open("popover", snap);
    try {
      await page.getByText("No task progress yet", { exact: true }).waitFor(WAIT);
      assert.equal(await page.getByText("Loading cards…").count(), 0);
    } finally {
      await page.context().close();
    }
  });

  test("dashboard: a pin without its card says 'Loading…' until every card is read; one read meanwhile shows", async () => {
    const page = await open("dashboard", reading());
    try {
      const placeholders = page.locator("article.placeholder");
      await placeholders.nth(1).waitFor(WAIT);
      assert.deepEqual(await placeholders.locator(".notice").allTextContents(), ["Loading…", "Loading…"]);
      assert.equal(await placeholders.first().getAttribute("aria-busy"), "true");
      await emit(page, { type: "card", gatewayId: FAKE_GW, entry: fakeEntry(CARD) });
      await page.getByText("Arrived during the load", { exact: true }).waitFor(WAIT);
      await emit(page, KNOWN);
      await page.getByText("No progress yet", { exact: true }).waitFor(WAIT);
      assert.deepEqual(await placeholders.locator(".notice").allTextContents(), ["No progress yet"]);
      assert.equal(await placeholders.first().getAttribute("aria-busy"), null);
    } finally {
      await page.context().close();
    }
  });
});
