// The settings page end to end: real controls in real Chromium, saved by the core across a
// host restart, and their effect on the popover (S1, G1, G5). The Gateway is real (no model).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { plan } from "../gateway/support.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";
import { until } from "../harness/until.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const document: any;

const chromium = chromiumAvailable();
let gw: TestGateway;
let agent: BareClient;
let th: TestHost;
let browser: Browser;

const settingsUrl = (t: TestHost) => t.host.settingsUrl;

const collapseSwitch = (page: Page) => page.getByRole("switch", { name: /^Collapse task progress by default on desktop/ });
const titleSwitch = (page: Page) => page.getByRole("switch", { name: /^Show a title next to the menu-bar icon/ });
const cardsSwitch = (page: Page) => page.getByRole("switch", { name: /^Show task progress cards/ });
const answerSwitch = (scope: Page | ReturnType<Page["getByRole"]>) =>
  scope.getByRole("switch", { name: "Answer approvals and questions from Progress Desk", exact: true });
const ANSWER_SCOPES = ["operator.approvals", "operator.questions"];

/** The desk's Gateway once connected with (or without) both answering scopes and answering in that state (Y6, Y15). */
function connectedAnswering(t: TestHost, gatewayId: string | null, on: boolean) {
  const g = t.desk.snapshot().gateways.find((x) => gatewayId === null || x.id === gatewayId);
  if (!g || g.connection.state !== "connected") return null;
  const scopes = g.connection.scopes;
  const has = ANSWER_SCOPES.every((s) => scopes.includes(s));
  const none = ANSWER_SCOPES.every((s) => !scopes.includes(s));
  return (on ? has : none) && g.needs.answering === (on ? "on" : "off") ? g : null;
}

describe("settings page", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  before(async () => {
    ({ gw, browser, client: agent, th } = await rig.start());
  });

  after(() => rig.stop());

  test("Copy diagnostics puts the redacted report on the clipboard (the page copies what the host returns)", async () => {
    const opened = await openPage(browser, settingsUrl(th));
    try {
      const { page, context } = opened;
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(settingsUrl(th)).origin });
      const button = page.getByRole("button", { name: "Copy diagnostics" });
      await button.waitFor({ timeout: 15_000 });
      await button.click();
      await page.getByRole("status").filter({ hasText: "Diagnostics copied." }).waitFor({ timeout: 15_000 });
      const text = (await page.evaluate("navigator.clipboard.readText()")) as string;
      assert.match(text, /^Progress Desk /);
      assert.ok(text.includes(gw.url), "the Gateway and its connection state are listed");
      assert.ok(!text.includes(gw.token), "never the token");
      assert.deepEqual(
        opened.errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await opened.context.close();
    }
  });

  test("toggles set with the real controls persist across a host restart", async () => {
    const first = await openPage(browser, settingsUrl(th));
    let collapse: boolean;
    let title: boolean;
    try {
      const page = first.page;
      await collapseSwitch(page).waitFor({ timeout: 15_000 });
      collapse = !(await collapseSwitch(page).isChecked());
      title = !(await titleSwitch(page).isChecked());
      await collapseSwitch(page).click();
      await titleSwitch(page).click();
      assert.equal(await collapseSwitch(page).isChecked(), collapse);
      assert.equal(await titleSwitch(page).isChecked(), title);
      // The page's writes have reached the core before the host goes away.
      await until(
        "the settings to be saved",
        () => th.settings.view().collapseByDefault === collapse && th.settings.view().trayTitle === title,
      );
      assert.deepEqual(
        first.errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await first.context.close();
    }

    th = await rig.restartHost();

    const second = await openPage(browser, settingsUrl(th));
    try {
      const page = second.page;
      await collapseSwitch(page).waitFor({ timeout: 15_000 });
      assert.equal(await collapseSwitch(page).isChecked(), collapse, "collapse by default kept its value");
      assert.equal(await titleSwitch(page).isChecked(), title, "tray title kept its value");
      assert.equal(await collapseSwitch(page).getAttribute("role"), "switch");
    } finally {
      await second.context.close();
      th.settings.update({ collapseByDefault: false, trayTitle: true });
    }
  });

  test("S1: turning cards off hides them in the popover with a note; on again shows the current card", async () => {
    const settings = await openPage(browser, settingsUrl(th));
    const popover = await openPage(browser, th.host.url);
    try {
      const key = await agent.createSession();
      await agent.put(key, { markdown: "Visible work", plan: plan("completed", "in_progress") });
      await card(popover.page, key).waitFor({ timeout: 15_000 });

      const sw = cardsSwitch(settings.page);
      await sw.waitFor({ timeout: 15_000 });
      assert.equal(await sw.isChecked(), true);
      await sw.click();
      await popover.page.getByText(/Task progress cards are hidden in/).waitFor({ timeout: 10_000 });
      assert.equal(await popover.page.locator("article.card").count(), 0, "no card is shown");
      assert.equal(await popover.page.getByRole("button", { name: "Settings", exact: true }).count(), 1, "the note links to Settings");

      // Saved progress stays; the agent may move on meanwhile.
      await agent.put(key, { markdown: "Visible work", plan: plan("completed", "completed") });
      await sw.click();
      const c = card(popover.page, key);
      await c.waitFor({ timeout: 10_000 });
      await popover.page.waitForFunction(
        (k) => document.querySelector(`article.card[data-key*="${k}"] .count`)?.textContent === "2/2",
        key,
        { timeout: 10_000 },
      );
      assert.equal(await popover.page.getByText(/Task progress cards are hidden in/).count(), 0);
      assert.equal(th.settings.view().showCards, true);
    } finally {
      await settings.context.close();
      await popover.context.close();
      th.settings.update({ showCards: true });
    }
  });

  test("Y15: the answering switch reconnects the Local Gateway with the approvals and questions scopes, and off again without them", async () => {
    const opened = await openPage(browser, settingsUrl(th));
    try {
      const { page } = opened;
      const local = await until("the Local Gateway connected without answering", () => connectedAnswering(th, null, false), 30_000);
      const sw = answerSwitch(page);
      await sw.waitFor({ timeout: 15_000 });
      assert.equal(await sw.isChecked(), false, "off by default");
      await sw.check();
      const on = await until("the Local Gateway reconnected answering", () => connectedAnswering(th, local.id, true), 30_000);
      assert.equal(on.connection.state === "connected" && on.connection.limited, false);
      assert.equal(th.settings.view().localAnswerApprovals, true);
      assert.deepEqual(th.settings.view().gateways, [], "the Local Gateway is not saved as a Gateway");
      await sw.uncheck();
      await until("the Local Gateway reconnected without answering", () => connectedAnswering(th, local.id, false), 30_000);
      assert.equal(th.settings.view().localAnswerApprovals, false);
      assert.deepEqual(
        opened.errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await opened.context.close();
      th.settings.update({ localAnswerApprovals: false });
    }
  });

  test("Y15: a saved Gateway turned to answer in its editor reconnects with both scopes; turned off, without them; the token stays saved", async () => {
    const opened = await openPage(browser, settingsUrl(th), { width: 640 });
    const sent: string[] = [];
    opened.page.on("websocket", (ws) => ws.on("framesent", (f) => sent.push(String(f.payload))));
    try {
      const { page } = opened;
      // The page's socket is already open; reload so its frames are recorded from the first.
      await page.reload();
      await page.getByRole("button", { name: "Add Gateway…" }).click();
      const form = page.getByRole("form", { name: "Add a Gateway" });
      await form.getByLabel("Address").fill(`ws://127.0.0.1:${gw.port}`);
      await form.getByLabel("Label").fill("Answering desk");
      await form.getByLabel("Token", { exact: true }).fill(gw.token);
      assert.equal(await answerSwitch(form).isChecked(), false, "off for a new Gateway");
      await form.getByRole("button", { name: "Add Gateway", exact: true }).click();
      await form.waitFor({ state: "detached", timeout: 10_000 });
      const [saved] = th.settings.view().gateways;
      assert.ok(saved);
      await until("the saved Gateway connected without answering", () => connectedAnswering(th, saved.id, false), 30_000);

      const row = page.locator("li.gw", { hasText: "Answering desk" });
      await row.getByRole("button", { name: "Edit…" }).click();
      const edit = page.getByRole("form", { name: "Edit Answering desk" });
      await answerSwitch(edit).check();
      await edit.getByRole("button", { name: "Save", exact: true }).click();
      await edit.waitFor({ state: "detached", timeout: 10_000 });
      await row.getByText("Answers approvals", { exact: true }).waitFor({ timeout: 10_000 });
      await until("the saved Gateway reconnected answering", () => connectedAnswering(th, saved.id, true), 30_000);
      assert.equal(th.settings.view().gateways[0]?.hasToken, true, "the token is still saved");
      // Only the first save carried the token; the switch's save left every secret out.
      assert.equal(sent.filter((f) => f.includes(gw.token)).length, 1);
      assert.ok(sent.some((f) => f.includes('"answerApprovals":true')));

      await row.getByRole("button", { name: "Edit…" }).click();
      await answerSwitch(edit).uncheck();
      await edit.getByRole("button", { name: "Save", exact: true }).click();
      await edit.waitFor({ state: "detached", timeout: 10_000 });
      await until("the saved Gateway reconnected without answering", () => connectedAnswering(th, saved.id, false), 30_000);
      assert.equal(await row.getByText("Answers approvals").count(), 0);
      await row.getByRole("button", { name: "Remove…" }).click();
      await row.getByRole("group", { name: "Remove Answering desk" }).getByRole("button", { name: "Remove", exact: true }).click();
      await row.waitFor({ state: "detached", timeout: 10_000 });
      assert.deepEqual(
        opened.errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await opened.context.close();
      for (const g of th.settings.view().gateways) th.settings.removeGateway(g.id);
      th.desk.configure(th.service.gateways());
    }
  });

  test("adding Gateways in the form labels cards in the popover; the token never reaches the page", async () => {
    const token = gw.token;
    const frames: string[] = [];
    const sent: string[] = [];
    const record = (page: Page) =>
      page.on("websocket", (ws) => {
        ws.on("framereceived", (f) => frames.push(String(f.payload)));
        ws.on("framesent", (f) => sent.push(String(f.payload)));
      });
    // Listen from the first frame on: the pages are opened only after the handlers are set.
    const context = await browser.newContext({ viewport: { width: 600, height: 1200 } });
    const popoverContext = await browser.newContext({ viewport: { width: 400, height: 900 } });
    const page = await context.newPage();
    const popover = await popoverContext.newPage();
    record(page);
    record(popover);
    const errors: string[] = [];
    for (const p of [page, popover]) p.on("pageerror", (e) => errors.push(String(e)));
    try {
      const key = await agent.createSession();
      await agent.put(key, { markdown: "Two Gateways", plan: plan("in_progress", "pending") });
      await page.goto(settingsUrl(th));
      await popover.goto(th.host.url);
      await card(popover, key).waitFor({ timeout: 15_000 });
      assert.equal(await card(popover, key).locator(".gw").count(), 0, "one Gateway: no label on cards");

      const gateways = [
        { url: `ws://127.0.0.1:${gw.port}`, label: "Alpha desk", colour: "#30b94d" },
        { url: `ws://localhost:${gw.port}`, label: "Beta desk", colour: "#bf5af2" },
      ];
      for (const g of gateways) {
        await page.getByRole("button", { name: "Add Gateway…" }).click();
        const form = page.getByRole("form", { name: "Add a Gateway" });
        await form.waitFor();
        await form.getByLabel("Address").fill(g.url);
        await form.getByLabel("Label").fill(g.label);
        await form.getByRole("radio", { name: `Colour ${g.colour}` }).check();
        await form.getByLabel("Token", { exact: true }).fill(token);
        await form.getByRole("button", { name: "Add Gateway", exact: true }).click();
        await form.waitFor({ state: "detached", timeout: 10_000 });
        const row = page.locator("li.gw", { hasText: g.label });
        await row.waitFor();
        assert.match((await row.textContent()) ?? "", /token saved/);
        await row.locator(".gw-state[data-state=connected]").waitFor({ timeout: 30_000 });
      }

      // The popover: both Gateways, each card labelled with its Gateway.
      const both = card(popover, key);
      await popover.waitForFunction((k) => document.querySelectorAll(`article.card[data-key*="${k}"]`).length === 2, key, {
        timeout: 30_000,
      });
      const labels = (await both.locator(".gw").allTextContents()).map((t) => t.trim()).sort();
      assert.deepEqual(labels, ["Alpha desk", "Beta desk"]);
      const colours = await both.locator(".gw").evaluateAll((els) => els.map((e) => e.style.getPropertyValue("--gw")).sort());
      assert.deepEqual(colours, ["#30b94d", "#bf5af2"]);

      // The token is nowhere in either page or anything the host sent them.
      for (const p of [page, popover]) {
        const dom = await p.evaluate(() => {
          const values = [...document.querySelectorAll("input")].map((i: any) => i.value).join("\n");
          return `${document.documentElement.outerHTML}\n${values}`;
        });
        assert.equal(dom.includes(token), false, "the token is not in the DOM");
      }
      assert.ok(frames.length > 0, "frames were recorded");
      assert.equal(
        frames.some((f) => f.includes(token)),
        false,
        "no frame from the host carries the token",
      );
      // Only the page's own two save requests carry it (write-only, S3).
      assert.equal(sent.filter((f) => f.includes(token)).length, 2);

      // Remove them again: back to the one discovered Gateway, unlabelled.
      for (const g of gateways) {
        const row = page.locator("li.gw", { hasText: g.label });
        await row.getByRole("button", { name: "Remove…" }).click();
        const confirm = row.getByRole("group", { name: `Remove ${g.label}` });
        await confirm.getByRole("button", { name: "Remove", exact: true }).click();
        await row.waitFor({ state: "detached", timeout: 10_000 });
      }
      assert.deepEqual(th.settings.view().gateways, []);
      await popover.waitForFunction((k) => document.querySelectorAll(`article.card[data-key*="${k}"]`).length === 1, key, {
        timeout: 30_000,
      });
      await card(popover, key).locator(".count").waitFor({ timeout: 30_000 });
      assert.equal(await card(popover, key).locator(".gw").count(), 0);
      assert.equal(
        frames.some((f) => f.includes(token)),
        false,
      );
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await popoverContext.close();
    }
  });
});
