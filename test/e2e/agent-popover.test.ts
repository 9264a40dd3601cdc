// The popover with a real agent: a real Gateway, its agent runtime and its progress_card tool,
// driven by the scripted model. What the page shows while a run lives and after it ends (R6),
// a refresh answered by the agent (A2), and keyboard-only operation (E4, A1).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { plan } from "../gateway/support.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;
declare const window: any;
declare const MutationObserver: any;

const chromium = chromiumAvailable();
let user: BareClient;
let th: TestHost;
let browser: Browser;

/** What the focused element is, as a short description for assertions. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return {
      cls: String(a?.className ?? ""),
      key: a?.closest?.("article.card")?.getAttribute("data-key") ?? null,
    };
  });

describe("popover with a real agent", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig({ agent: true });
  before(
    async () => {
      ({ browser, client: user, th } = await rig.start());
    },
    { timeout: 300_000 },
  );

  after(() => rig.stop());

  test("an agent-written card is active while the run lives and paused after it ends unfinished", { timeout: 60_000 }, async () => {
    const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const key = await user.createSession();
      const turn = user.runTurn(key, [
        { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending"), markdown: "Fixing the owner check" } },
        { text: "Stopping here for now", delayMs: 4000 },
      ]);
      const c = card(page, key);
      await c.waitFor({ timeout: 30_000 });
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"]`)?.dataset.state === "active", key, {
        timeout: 30_000,
      });
      assert.equal(await c.locator(".count").textContent(), "1/3");
      assert.equal(await c.locator(".badges").getByText("Paused", { exact: true }).count(), 0, "no Paused badge while the run lives");
      assert.equal(await c.locator('.steps [role="img"][aria-label="in progress"]').count(), 1, "the current step shows as in progress");
      assert.equal(await c.locator('[aria-label="paused"]').count(), 0);
      assert.match((await c.locator("button.toggle").getAttribute("aria-label")) ?? "", /current step: /);
      assert.equal((await turn).phase, "end", "the run ended");

      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"]`)?.dataset.state === "paused", key, {
        timeout: 30_000,
      });
      // The run that wrote the card ended normally (status done, the card inside the run): the
      // card shows that outcome in place of the plain "Paused" badge (R6).
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"] .badges li`), key, { timeout: 10_000 });
      const badges = (await c.locator(".badges li").allTextContents()).map((t) => t.trim());
      assert.deepEqual(badges, ["Run finished"]);
      assert.equal(await c.locator('.steps [role="img"][aria-label="paused"]').count(), 1, "the current step shows the paused glyph");
      assert.equal(await c.locator('.steps [aria-label="in progress"]').count(), 0);
      assert.equal(await c.locator(".sub-text.paused").count(), 1);
      assert.match((await c.locator("button.toggle").getAttribute("aria-label")) ?? "", /paused at: /);
      assert.equal(await c.locator(".count").textContent(), "1/3", "the run ending changes the meaning, not the card");
      assert.deepEqual(
        errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await context.close();
    }
  });

  test("Refresh: Refreshing…, then the agent's newer revision, and the status line goes away", { timeout: 60_000 }, async () => {
    const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const key = await user.createSession();
      const turn = await user.runTurn(key, [{ tool: "progress_card", args: { plan: plan("in_progress", "pending") } }, { text: "Paused" }]);
      assert.equal(turn.phase, "end", "the run ended normally, not in error");
      const c = card(page, key);
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"]`)?.dataset.state === "paused", key, {
        timeout: 30_000,
      });
      assert.equal(await c.locator(".count").textContent(), "0/2");
      const before = (await user.get(key)).card!.revision;

      // Note every status line the card shows, however briefly.
      await page.evaluate((k) => {
        window.__lines = [];
        const el = document.querySelector(`article.card[data-key*="${k}"]`);
        const note = () => {
          const t = el.querySelector('.status [role="status"]')?.textContent?.trim();
          if (t && window.__lines.at(-1) !== t) window.__lines.push(t);
        };
        new MutationObserver(note).observe(el, { subtree: true, childList: true, characterData: true });
      }, key);
      await c.locator("button.refresh").click();
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"] .count`)?.textContent === "1/2", key, {
        timeout: 30_000,
      });
      await page.waitForFunction((k) => !document.querySelector(`article.card[data-key*="${k}"] .status [role="status"]`), key, {
        timeout: 10_000,
      });
      const lines: string[] = await page.evaluate(() => window.__lines);
      assert.ok(
        lines.some((l) => /^Refreshing…/.test(l)),
        `the card said Refreshing… (saw ${JSON.stringify(lines)})`,
      );
      assert.equal(
        lines.some((l) => /No update yet|Couldn't refresh/.test(l)),
        false,
      );
      assert.ok((await user.get(key)).card!.revision > before, "a newer revision at the Gateway");
      assert.equal(await c.locator("button.refresh").isEnabled(), true);
      assert.equal(await c.locator("button.refresh").getAttribute("aria-busy"), "false");
    } finally {
      await context.close();
    }
  });

  test("keyboard only: title bars, arrows, refresh and dismiss; every button has a name", { timeout: 60_000 }, async () => {
    const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      // Written last, so these are the top of the list: `done` first, then `open`.
      const open = await user.createSession();
      const done = await user.createSession();
      await user.put(open, { plan: plan("completed", "in_progress") });
      await user.put(done, { plan: plan("completed", "completed") });
      await card(page, open).waitFor({ timeout: 15_000 });
      await card(page, done).waitFor({ timeout: 15_000 });
      const toggles = page.locator("article.card button.toggle");
      const first = await toggles.nth(0).evaluate((el) => el.closest("article").getAttribute("data-key"));
      assert.ok(first.includes(done), "the newest card is first");
      const total = await toggles.count();
      assert.ok(total >= 3, "cards from the earlier tests are listed too");

      // Tab from the start of the page reaches the first card's title bar.
      await page.evaluate(() => document.activeElement?.blur());
      let f = await focused(page);
      for (let i = 0; i < 15 && !/\btoggle\b/.test(f.cls); i++) {
        await page.keyboard.press("Tab");
        f = await focused(page);
      }
      assert.match(f.cls, /\btoggle\b/, "Tab reached a title bar");
      assert.ok(f.key?.includes(done), "the first card's title bar");

      // Enter and Space toggle.
      const t0 = toggles.nth(0);
      const expanded = await t0.getAttribute("aria-expanded");
      await page.keyboard.press("Enter");
      assert.notEqual(await t0.getAttribute("aria-expanded"), expanded);
      await page.keyboard.press(" ");
      assert.equal(await t0.getAttribute("aria-expanded"), expanded);

      // Arrows, Home and End move between title bars.
      await page.keyboard.press("ArrowDown");
      f = await focused(page);
      assert.match(f.cls, /\btoggle\b/);
      assert.ok(f.key?.includes(open), "ArrowDown: the next card's title bar");
      await page.keyboard.press("ArrowUp");
      assert.ok((await focused(page)).key?.includes(done), "ArrowUp: back");
      await page.keyboard.press("End");
      const lastKey = await toggles.nth(total - 1).evaluate((el) => el.closest("article").getAttribute("data-key"));
      assert.equal((await focused(page)).key, lastKey, "End: the last title bar");
      await page.keyboard.press("Home");
      assert.ok((await focused(page)).key?.includes(done), "Home: the first title bar");

      // Tab walks the card's own buttons: dismiss and refresh.
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press("Tab");
        f = await focused(page);
        if (!f.key?.includes(done)) break;
        seen.push(f.cls);
      }
      assert.ok(
        seen.some((c) => /\bdismiss\b/.test(c)),
        `Tab reached dismiss (${JSON.stringify(seen)})`,
      );
      assert.ok(
        seen.some((c) => /\brefresh\b/.test(c)),
        `Tab reached refresh (${JSON.stringify(seen)})`,
      );

      // Back to the dismiss button with Shift+Tab, and activate it with the keyboard.
      for (let i = 0; i < 6 && !/\bdismiss\b/.test((await focused(page)).cls); i++) await page.keyboard.press("Shift+Tab");
      f = await focused(page);
      assert.match(f.cls, /\bdismiss\b/);
      assert.ok(f.key?.includes(done));
      assert.equal(await card(page, done).locator("button.dismiss").getAttribute("aria-label"), "Dismiss completed progress");
      await page.keyboard.press("Enter");
      await card(page, done).waitFor({ state: "detached", timeout: 10_000 });
      assert.equal((await user.get(done)).card, null, "cleared at the Gateway");

      // Every button has an accessible name.
      const names = await page.locator("button").evaluateAll((els) =>
        els.map((el) => {
          const by = el.getAttribute("aria-labelledby");
          const labelled = by
            ? by
                .split(/\s+/)
                .map((id: string) => document.getElementById(id)?.textContent ?? "")
                .join(" ")
            : "";
          return {
            html: el.outerHTML.slice(0, 120),
            name: (el.getAttribute("aria-label") ?? "").trim() || labelled.trim() || (el.textContent ?? "").trim(),
          };
        }),
      );
      assert.ok(names.length > 5);
      assert.deepEqual(
        names.filter((n) => n.name === ""),
        [],
        "buttons without a name",
      );
    } finally {
      await context.close();
    }
  });

  // Regression: a dismiss button disabled while its request ran lost focus (Chromium blurs a
  // disabled element), so focus fell to the document; it now stays focusable (aria-disabled).
  test("keyboard dismiss moves focus to the neighbouring title bar", { timeout: 30_000 }, async () => {
    const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const done = await user.createSession();
      await user.put(done, { plan: plan("completed") });
      const dismiss = card(page, done).locator("button.dismiss");
      await dismiss.waitFor({ timeout: 15_000 });
      await dismiss.focus();
      await page.keyboard.press("Enter");
      await card(page, done).waitFor({ state: "detached", timeout: 10_000 });
      // Focus moves once the card is gone; wait for it to land rather than for a fixed time.
      const onToggle = () => /\btoggle\b/.test(String(document.activeElement?.className ?? ""));
      await page.waitForFunction(onToggle, undefined, { timeout: 5_000 }).catch(() => undefined);
      assert.match((await focused(page)).cls, /\btoggle\b/, "focus moved to a neighbouring title bar, not the document");
    } finally {
      await context.close();
    }
  });
});
