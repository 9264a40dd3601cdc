// Issue 19, Y15: the Settings switch "Answer approvals and questions from Progress Desk" on a
// FAKE desk (test/browser/fake-desk.ts): the built page in real Chromium, light and dark, checked
// by axe-core. Off by default with its explanation; toggled and saved it sends saveGateway with
// answerApprovals and no secret; the list row says "Answers approvals"; a refused state's advice
// shows beside the switch; the zero-configuration Local Gateway has the same switch, saved as its
// own preference. What the real desk does with the setting is in test/e2e/settings.test.ts.
// Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { Settings } from "../../common/contract.ts";
import type { DeskSnapshot, NeedsState } from "../../common/model.ts";
import { axeViolations, formatViolations } from "../e2e/axe.ts";
import { chromiumAvailable } from "./chromium.ts";
import { emitChange, FAKE_GW, fakeCalls, fakeSettings, fakeSnapshot, installFake } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

declare const document: any;

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const LABEL = "Answer approvals and questions from Progress Desk";
const ADVICE =
  "The Gateway did not grant the approvals and questions scopes. Approve the upgrade (`openclaw devices list`), or answer in the Control UI.";
const ADVICE_SHOWN =
  "The Gateway did not grant the approvals and questions scopes. Approve the upgrade (openclaw devices list), or answer in the Control UI.";

function snapshotWith(needs: NeedsState): DeskSnapshot {
  const snap = fakeSnapshot([]);
  return { gateways: snap.gateways.map((g) => ({ ...g, needs })) };
}

const OFF: NeedsState = { answering: "off", advice: null, entries: [] };
const REFUSED: NeedsState = { answering: "refused", advice: ADVICE, entries: [] };

function withAnswering(on: boolean): Settings {
  const s = fakeSettings();
  return { ...s, gateways: s.gateways.map((g) => ({ ...g, answerApprovals: on })) };
}

/** The text of the elements that describe a control (aria-describedby), joined. */
async function description(page: Page, control: ReturnType<Page["getByRole"]>): Promise<string> {
  const ids = ((await control.getAttribute("aria-describedby")) ?? "").split(/\s+/).filter(Boolean);
  const texts = await page.evaluate((list) => list.map((id) => document.getElementById(id)?.textContent ?? ""), ids);
  return texts.join(" ").replace(/\s+/g, " ").trim();
}

describe("Settings page: the answering switch (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function settingsPage(snapshot: DeskSnapshot, settings: Settings, scheme: "light" | "dark" = "light") {
    const context = await pages.newContext({ viewport: { width: 640, height: 1400 }, colorScheme: scheme, reducedMotion: "reduce" });
    await installFake(context, snapshot, settings);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/settings.html`);
    await page.getByRole("heading", { name: "Gateways" }).waitFor(WAIT);
    return { page, errors };
  }

  async function openEditor(page: Page) {
    await page.locator("li.gw", { hasText: "Studio" }).getByRole("button", { name: "Edit…" }).click();
    const form = page.getByRole("form", { name: "Edit Studio" });
    await form.waitFor(WAIT);
    return form;
  }

  for (const scheme of ["light", "dark"] as const) {
    test(`${scheme}: off by default, labelled and explained, no tag in the row; axe clean with the editor open`, async () => {
      const { page, errors } = await settingsPage(snapshotWith(OFF), fakeSettings(), scheme);
      const row = page.locator("li.gw", { hasText: "Studio" });
      assert.equal(await row.getByText("Answers approvals").count(), 0, "no tag while off");
      const form = await openEditor(page);
      const sw = form.getByRole("switch", { name: LABEL, exact: true });
      assert.equal(await sw.isChecked(), false, "off by default");
      const what = await description(page, sw);
      assert.match(what, /asks this Gateway for the approvals and questions scopes/);
      assert.match(what, /waits for you here instead of being denied when no other app is open/);
      assert.match(what, /openclaw devices list/);
      assert.match(what, /still answer in the Control UI/);
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`settings · ${scheme} · answering switch`, violations));
      assert.deepEqual(errors, []);
    });
  }

  test("turned on and saved: saveGateway carries answerApprovals true and no secret; the row says it answers", async () => {
    const { page, errors } = await settingsPage(snapshotWith(OFF), fakeSettings());
    const form = await openEditor(page);
    await form.getByRole("switch", { name: LABEL, exact: true }).check();
    await form.getByRole("button", { name: "Save", exact: true }).click();
    await form.waitFor({ state: "detached", ...WAIT });
    const saves = (await fakeCalls(page)).filter((c) => c.startsWith("saveGateway "));
    assert.equal(saves.length, 1);
    const input = JSON.parse(saves[0]!.slice("saveGateway ".length)) as Record<string, unknown>;
    assert.equal(input.answerApprovals, true);
    assert.equal(input.id, FAKE_GW);
    for (const secret of ["token", "password", "setupCode"])
      assert.equal(secret in input, false, `${secret} is left out: the saved one stays`);
    const row = page.locator("li.gw", { hasText: "Studio" });
    await row.getByText("Answers approvals", { exact: true }).waitFor(WAIT);

    // And off again: the editor opens on, and saving sends false.
    const again = await openEditor(page);
    const sw = again.getByRole("switch", { name: LABEL, exact: true });
    assert.equal(await sw.isChecked(), true);
    await sw.uncheck();
    await again.getByRole("button", { name: "Save", exact: true }).click();
    await again.waitFor({ state: "detached", ...WAIT });
    const last = (await fakeCalls(page)).filter((c) => c.startsWith("saveGateway ")).at(-1)!;
    assert.equal((JSON.parse(last.slice("saveGateway ".length)) as { answerApprovals: unknown }).answerApprovals, false);
    assert.equal(await row.getByText("Answers approvals").count(), 0);
    assert.deepEqual(errors, []);
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`${scheme}: refused scopes: the core's advice beside the switch and in the row, commands as code; axe clean`, async () => {
      const { page, errors } = await settingsPage(snapshotWith(REFUSED), withAnswering(true), scheme);
      const row = page.locator("li.gw", { hasText: "Studio" });
      assert.equal((await row.locator(".gw-advice").textContent())?.trim(), ADVICE_SHOWN);
      assert.equal(await row.locator(".gw-advice code").textContent(), "openclaw devices list");
      const form = await openEditor(page);
      const sw = form.getByRole("switch", { name: LABEL, exact: true });
      assert.equal(await sw.isChecked(), true);
      assert.ok((await description(page, sw)).endsWith(ADVICE_SHOWN), "the advice describes the switch");
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`settings · ${scheme} · refused advice`, violations));
      assert.deepEqual(errors, []);
    });
  }

  test("the advice follows the change stream: shown when the Gateway refuses, gone once answering is on", async () => {
    const { page, errors } = await settingsPage(snapshotWith(OFF), withAnswering(true));
    const row = page.locator("li.gw", { hasText: "Studio" });
    await row.getByText("Answers approvals", { exact: true }).waitFor(WAIT);
    assert.equal(await row.locator(".gw-advice").count(), 0);
    await emitChange(page, { type: "needs", gatewayId: FAKE_GW, needs: REFUSED, event: null });
    await row.locator(".gw-advice").waitFor(WAIT);
    await emitChange(page, { type: "needs", gatewayId: FAKE_GW, needs: { answering: "on", advice: null, entries: [] }, event: null });
    await row.locator(".gw-advice").waitFor({ state: "detached", ...WAIT });
    assert.deepEqual(errors, []);
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`${scheme}: the Local Gateway (not in Settings): the same switch, saved as its own preference, with its advice; axe clean`, async () => {
      const local = { ...fakeSettings(), gateways: [] };
      const { page, errors } = await settingsPage(snapshotWith(OFF), local, scheme);
      await page.getByText(/Using the Gateway found on this machine/).waitFor(WAIT);
      const sw = page.getByRole("switch", { name: LABEL, exact: true });
      assert.equal(await sw.isChecked(), false, "off by default");
      await sw.check();
      assert.deepEqual(
        (await fakeCalls(page)).filter((c) => c.startsWith("updateSettings ")),
        ['updateSettings {"localAnswerApprovals":true}'],
      );
      assert.equal((await fakeCalls(page)).filter((c) => c.startsWith("saveGateway ")).length, 0, "nothing is saved as a Gateway");
      assert.equal(await sw.isChecked(), true);
      await emitChange(page, { type: "needs", gatewayId: FAKE_GW, needs: REFUSED, event: null });
      await page.getByRole("note").filter({ hasText: "did not grant" }).waitFor(WAIT);
      assert.ok((await description(page, sw)).endsWith(ADVICE_SHOWN));
      const violations = await axeViolations(page);
      assert.equal(violations.length, 0, formatViolations(`settings · ${scheme} · Local answering switch`, violations));
      assert.deepEqual(errors, []);
    });
  }
});
