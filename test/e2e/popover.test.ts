// The popover end to end: cards written through the real Gateway appear in a real
// Chromium page served by the browser host, and the person's actions reach the Gateway.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { plan } from "../gateway/support.ts";
import { until } from "../harness/until.ts";
import { card, E2eRig, newCardShown, openPage, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;
declare const window: any;
declare const MutationObserver: any;
declare const requestAnimationFrame: (callback: () => void) => number;
type HTMLElement = any;

const chromium = chromiumAvailable();
let gw: TestGateway;
let agent: BareClient;
let th: TestHost;
let browser: Browser;

describe("popover", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig({ host: { refreshTimeoutMs: 1500 } });
  before(async () => {
    ({ gw, browser, client: agent, th } = await rig.start());
  });

  after(() => rig.stop());

  test("a put appears; a new revision updates in place and keeps the person's choice", async () => {
    const { page, context, foreign, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const key = await agent.createSession();
      await agent.put(key, {
        markdown: '<progress aria-label="Checks · 1/3" value="1" max="3"></progress>\n\nRunning **checks**',
        plan: plan("completed", "in_progress", "pending"),
      });
      const c = card(page, key);
      await c.waitFor({ timeout: 15_000 });
      assert.equal(await c.locator(".count").textContent(), "1/3");
      assert.equal(await c.locator("progress").first().getAttribute("aria-label"), "Checks · 1/3");
      assert.match((await c.textContent()) ?? "", /Checks · 1\/3/);
      const toggle = c.locator("button.toggle");
      assert.equal(await toggle.getAttribute("aria-expanded"), "true", "a new card starts expanded (E1)");
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      // Measured once the collapse is painted (reduced motion: no transition to wait for).
      await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
      const box = await c.boundingBox();

      await agent.put(key, { markdown: "Running checks", plan: plan("completed", "completed", "in_progress") });
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"] .count`)?.textContent === "2/3", key, {
        timeout: 15_000,
      });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false", "an update never reopens a collapsed card (E2, E3)");
      assert.equal(await page.locator(`article.card[data-key*="${key}"]`).count(), 1, "updated in place");
      const after = await c.boundingBox();
      assert.equal(Math.round(after!.height), Math.round(box!.height), "no layout jump for a collapsed card's update");

      // A reconnect never reopens a collapsed card (E3): wake() drops and re-makes the connection.
      const gatewayId = th.desk.gatewayIds()[0]!;
      const confirmedBefore = th.desk.entry(gatewayId, key)?.confirmedAt ?? 0;
      th.desk.wake();
      await until("the card to be re-read after the reconnect", () => (th.desk.entry(gatewayId, key)?.confirmedAt ?? 0) > confirmedBefore);
      // A later write reaches the page after the re-read (one ordered socket): once it shows,
      // the page has had the reconnect's update too.
      await agent.put(key, { markdown: "Running checks", plan: plan("completed", "completed", "completed", "in_progress") });
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"] .count`)?.textContent === "3/4", key, {
        timeout: 15_000,
      });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false", "still collapsed after a reconnect");

      // Enter and Space on the title bar toggle (E4).
      await toggle.focus();
      await page.keyboard.press("Enter");
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      await page.keyboard.press(" ");
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      assert.deepEqual(foreign, [], "no request left the page");
      assert.deepEqual(
        errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await context.close();
    }
  });

  test("collapse by default (S2): new cards start closed; a new card after a confirmed clear gets the default again", async () => {
    th.settings.update({ collapseByDefault: true });
    const { page, context } = await openPage(browser, th.host.url);
    try {
      const key = await agent.createSession();
      await agent.put(key, { plan: plan("in_progress", "pending") });
      const toggle = card(page, key).locator("button.toggle");
      await toggle.waitFor({ timeout: 15_000 });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      await toggle.click(); // the person opens it
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      await agent.put(key, {}); // cleared, confirmed by a read
      await card(page, key).waitFor({ state: "detached", timeout: 15_000 });
      await agent.put(key, { plan: plan("in_progress") }); // a new card
      await toggle.waitFor({ timeout: 15_000 });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false", "the new card takes the default, not the old choice");
    } finally {
      await context.close();
      th.settings.update({ collapseByDefault: false });
    }
  });

  test("dismiss: a completed card at once; an unfinished one after confirmation", async () => {
    const { page, context } = await openPage(browser, th.host.url);
    try {
      const done = await agent.createSession();
      const open = await agent.createSession();
      await agent.put(done, { plan: plan("completed", "completed") });
      await agent.put(open, { plan: plan("completed", "in_progress") });
      await card(page, done).waitFor({ timeout: 15_000 });
      await card(page, open).waitFor({ timeout: 15_000 });

      await card(page, done).locator("button.dismiss").click();
      await card(page, done).waitFor({ state: "detached", timeout: 10_000 });
      assert.equal((await agent.get(done)).card, null, "cleared at the Gateway");

      await card(page, open).locator("button.dismiss").click();
      const confirm = card(page, open).getByRole("group", { name: "Clear saved progress" });
      await confirm.waitFor();
      assert.match((await confirm.textContent()) ?? "", /Clear this saved progress for everyone\?/);
      assert.notEqual((await agent.get(open)).card, null, "asking clears nothing");
      await confirm.getByRole("button", { name: "Clear", exact: true }).click();
      await card(page, open).waitFor({ state: "detached", timeout: 10_000 });
      assert.equal((await agent.get(open)).card, null);
    } finally {
      await context.close();
    }
  });

  test("dismiss when the agent wrote a newer revision meanwhile: the newer card stays", async () => {
    const { page, context } = await openPage(browser, th.host.url);
    try {
      const { key, c } = await newCardShown(agent, page, { plan: plan("in_progress", "pending") });
      await c.locator("button.dismiss").click();
      await c.getByRole("group", { name: "Clear saved progress" }).waitFor();
      // The agent moves on while the question is open.
      await agent.put(key, { plan: plan("completed", "in_progress") });
      await c.getByRole("button", { name: "Clear", exact: true }).click();
      await page.waitForFunction((k) => document.querySelector(`article.card[data-key*="${k}"] .count`)?.textContent === "1/2", key, {
        timeout: 10_000,
      });
      assert.equal((await agent.get(key)).card?.revision, 2, "the newer card was not cleared");
    } finally {
      await context.close();
    }
  });

  test("refresh with no model: pending, then a timeout that offers Retry with the same key", async () => {
    const { page, context } = await openPage(browser, th.host.url);
    try {
      const { key, c } = await newCardShown(agent, page, { plan: plan("in_progress", "pending") });
      const time = await c.locator("time").textContent();
      await c.locator("button.refresh").click();
      await page
        .waitForFunction(
          (k) => /Refreshing|No update yet/.test(document.querySelector(`article.card[data-key*="${k}"]`)?.textContent ?? ""),
          key,
          { timeout: 15_000 },
        )
        .catch(async (e) => {
          throw new Error(`${e.message}\ncard text: ${await c.textContent()}`);
        });
      assert.equal(await c.locator("time").textContent(), time, "the previous card and timestamp stay while pending");
      const retry = c.getByRole("button", { name: /Retry/ }).first();
      await retry.waitFor({ timeout: 10_000 });
      const before = th.desk.entry(th.desk.gatewayIds()[0]!, key)?.refresh?.key;
      // "Refreshing" lasts only until the next timeout (1.5 s): record it when it is shown,
      // rather than hoping to look while it lasts.
      await c.evaluate((el) => {
        window.sawRefreshing = false;
        new MutationObserver(() => {
          if (/Refreshing/.test(el.textContent ?? "")) window.sawRefreshing = true;
        }).observe(el, { subtree: true, childList: true, characterData: true });
      });
      const pending: (string | undefined)[] = [];
      const unsubscribe = th.desk.subscribe((ch) => {
        if (ch.type === "card" && ch.entry.sessionKey === key && ch.entry.refresh?.status === "pending") pending.push(ch.entry.refresh.key);
      });
      try {
        await retry.click();
        await page.waitForFunction(() => window.sawRefreshing === true, undefined, { timeout: 15_000 });
        await until("the retried refresh to be pending", () => pending.length > 0);
      } finally {
        unsubscribe();
      }
      assert.equal(pending[0], before, "Retry reuses the idempotency key");
    } finally {
      await context.close();
    }
  });

  test("offline while the Gateway is down, never shown live; recovery after restart", async () => {
    const { page, context } = await openPage(browser, th.host.url);
    try {
      const { key, c } = await newCardShown(agent, page, { markdown: "## Before the *outage*\n\nAll fine." });
      // A note-only card's header line is the note's first block, as plain text.
      assert.equal((await c.locator(".sub-text").textContent())?.trim(), "Before the outage");
      await gw.stop("SIGTERM");
      await c.getByText(/Offline — last confirmed \d/).waitFor({ timeout: 15_000 });
      // The banner passes between "Connecting… Attempt N" and offline with a countdown; wait for
      // the offline one rather than catch whichever is up at one moment.
      await page.waitForFunction(() => /retrying in|retrying now|Can't reach/.test(document.body.textContent ?? ""), undefined, {
        timeout: 15_000,
      });
      await gw.restart();
      await page.waitForFunction(
        (k) => !/Offline/.test(document.querySelector(`article.card[data-key*="${k}"]`)?.textContent ?? "Offline"),
        key,
        { timeout: 45_000 },
      );
      await agent.waitForHello(agent.helloCount() + 1, 45_000).catch(() => undefined);
      await agent.put(key, { markdown: "After the outage" });
      await c.locator(".note").getByText("After the outage").waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  });

  test("long step texts and URLs never overflow their card", async () => {
    const { page, context } = await openPage(browser, th.host.url, { width: 320 });
    try {
      const key = await agent.createSession();
      const long = `Check ${"/very/long/path/segment".repeat(10)}/file.ts and https://example.com/${"x".repeat(150)}`;
      await agent.put(key, {
        markdown: `See https://example.com/${"y".repeat(300)} and \`${"z".repeat(200)}\``,
        plan: [{ step: long, status: "in_progress" }],
      });
      const c = card(page, key);
      await c.waitFor({ timeout: 15_000 });
      const overflow = await c.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const out: string[] = [];
        for (const child of el.querySelectorAll("*")) {
          const r = (child as HTMLElement).getBoundingClientRect();
          if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
            out.push(`${child.tagName}.${(child as HTMLElement).className}`);
        }
        return { out, page: document.documentElement.scrollWidth > window.innerWidth };
      });
      assert.deepEqual(overflow.out, [], "every element stays inside the card");
      assert.equal(overflow.page, false, "no horizontal scrolling");
    } finally {
      await context.close();
    }
  });
});
