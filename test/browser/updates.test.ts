// U6, U7, U1, U4: the update parts of the pages on a FAKE desk (test/browser/fake-desk.ts), in real
// Chromium: the popover's footer when a version is ready (from the snapshot and from an `updates`
// change) and its button; the Settings page's Updates section, its two switches and its check.
// Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DeskSnapshot } from "../../common/model.ts";
import type { UpdateView } from "../../common/updates.ts";
import { axeViolations, formatViolations } from "../e2e/axe.ts";
import { chromiumAvailable } from "./chromium.ts";
import { emitChange, fakeCalls, fakeSettings, fakeSnapshot, installFake } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const BASE = { currentVersion: "1.0.0", channel: "stable", automatic: true, result: null, quietError: null } as const;
const READY: UpdateView = { state: "ready", version: "1.2.3", ...BASE };
const IDLE: UpdateView = { state: "idle", ...BASE };

const withUpdates = (updates: UpdateView): DeskSnapshot => ({ ...fakeSnapshot([]), updates });

describe("updates on the pages (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function open(page: "popover" | "settings", snapshot: DeskSnapshot) {
    const context = await pages.newContext({ viewport: { width: 640, height: 1400 }, reducedMotion: "reduce" });
    await installFake(context, snapshot, fakeSettings());
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(`${pages.origin}/${page}.html`);
    return { tab, errors };
  }

  test("the popover's footer says a version is ready and its button asks main to install (U6)", async () => {
    const { tab, errors } = await open("popover", withUpdates(READY));
    const footer = tab.getByRole("contentinfo", { name: "Update" });
    await footer.waitFor(WAIT);
    assert.match((await footer.textContent()) ?? "", /Version 1\.2\.3 is ready/);
    const violations = await axeViolations(tab);
    assert.equal(violations.length, 0, formatViolations("popover · update footer", violations));
    await footer.getByRole("button", { name: "Restart to Update" }).click();
    assert.deepEqual(
      (await fakeCalls(tab)).filter((c) => c === "installUpdate"),
      ["installUpdate"],
    );
    assert.deepEqual(errors, []);
  });

  test("no footer until an update is ready; an `updates` change brings it", async () => {
    const { tab } = await open("popover", withUpdates(IDLE));
    await tab.getByRole("heading", { name: "Task progress" }).waitFor(WAIT);
    assert.equal(await tab.getByRole("button", { name: "Restart to Update" }).count(), 0);
    await emitChange(tab, { type: "updates", updates: READY });
    await tab.getByRole("button", { name: "Restart to Update" }).waitFor(WAIT);
  });

  test("Settings: automatic on and beta off by default; a switch sends its setting; Check for Updates asks main (U1, U4)", async () => {
    const { tab, errors } = await open("settings", withUpdates(IDLE));
    await tab.getByRole("heading", { name: "Updates" }).waitFor(WAIT);
    const automatic = tab.getByRole("switch", { name: "Update automatically" });
    const beta = tab.getByRole("switch", { name: "Get beta versions" });
    assert.equal(await automatic.isChecked(), true);
    assert.equal(await beta.isChecked(), false);
    await beta.click();
    await tab.getByRole("button", { name: "Check for Updates" }).click();
    const calls = await fakeCalls(tab);
    assert.ok(calls.includes('updateSettings {"updates":{"beta":true}}'), calls.join(" | "));
    assert.ok(calls.includes("checkForUpdates"), calls.join(" | "));
    assert.match((await tab.getByText("You have version 1.0.0.").textContent()) ?? "", /1\.0\.0/);
    const violations = await axeViolations(tab);
    assert.equal(violations.length, 0, formatViolations("settings · updates", violations));
    assert.deepEqual(errors, []);
  });

  test("Settings where the app cannot update: the reason, the switches and the check off (U7)", async () => {
    const { tab } = await open("settings", withUpdates({ ...IDLE, state: "disabled", reason: "Updates need a signed build" }));
    await tab.getByText("Updates need a signed build").waitFor(WAIT);
    assert.equal(await tab.getByRole("switch", { name: "Update automatically" }).isDisabled(), true);
    assert.equal(await tab.getByRole("button", { name: "Check for Updates" }).isDisabled(), true);
  });
});
