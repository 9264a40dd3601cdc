// The Settings page tells the person where a damaged settings file was kept (Settings.damagedFileCopy,
// main/electron/settings-file.ts). The built page runs in real Chromium on a FAKE desk
// (test/browser/fake-desk.ts): only the page's rendering of the field is under test here;
// the field itself is tested on real files in test/electron/settings-file.test.ts. Needs `npm run build`.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { chromiumAvailable } from "./chromium.ts";
import { fakeSettings, fakeSnapshot, installFake } from "./fake-desk.ts";
import { pageSuite } from "./page-suite.ts";

declare const document: any;

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };

describe("Settings page: the damaged settings file notice (FAKE desk)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const pages = pageSuite();

  async function settingsPage(extra: Parameters<typeof fakeSettings>[0]) {
    const context = await pages.newContext({ viewport: { width: 640, height: 900 } });
    await installFake(context, fakeSnapshot([]), fakeSettings(extra));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${pages.origin}/settings.html`);
    await page.getByRole("heading", { name: "Task progress" }).waitFor(WAIT);
    return { page, errors };
  }

  test("the copy's path is shown as text, markup in it included", async () => {
    const copy = 'Progress Desk/settings.corrupt-2026-12-04T15-30-00Z.json<img src=x onerror="document.title=1">';
    const { page, errors } = await settingsPage({ damagedFileCopy: copy });
    const notice = page.getByRole("status").filter({ hasText: "settings file could not be read in full" });
    await notice.waitFor(WAIT);
    assert.equal(await notice.locator(".path").textContent(), copy);
    assert.equal(await page.evaluate(() => document.querySelectorAll(".damaged-file img").length), 0, "data, never markup");
    assert.deepEqual(errors, []);
  });

  test("no notice when the file was sound", async () => {
    const { page, errors } = await settingsPage({});
    assert.equal(await page.locator(".damaged-file").count(), 0);
    assert.deepEqual(errors, []);
  });
});
