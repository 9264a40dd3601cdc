// Issue 8 in real Chromium through the browser host: the Gateway editor warns before Save
// that a new server forgets the saved secrets (and the TRAP then gets none of them), and the
// keychain banner shows in the popover and on Settings, where the explicit choice lives.
// The home Gateway and the TRAP are FAKES on loopback (test/faults); no real Gateway needed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { KEYCHAIN_UNAVAILABLE, SECRET_NOT_SAVED } from "../../common/credential-storage.ts";
import type { ProgressDesk } from "../../main/core/desk.ts";
import type { SettingsStore } from "../../main/core/settings.ts";
import { memoryStorage, type CredentialVault, type SecretStorage } from "../../main/core/vault.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { chromiumAvailable, launchChromiumBeside } from "../browser/chromium.ts";
import { startFakeGateway, type FakeGateway } from "../faults/fake-gateway.ts";
import { startTrapGateway } from "../faults/trap-gateway.ts";
import { until } from "../harness/until.ts";
import { wireCore } from "../harness/wired-core.ts";
import { openPage, pagesDir } from "./support.ts";

const chromium = chromiumAvailable();
const cleanups: (() => unknown)[] = [];
let browser: Browser;
let home: FakeGateway;

async function hostWith(
  storage: SecretStorage,
): Promise<{ host: Host; desk: ProgressDesk; settings: SettingsStore; vault: CredentialVault }> {
  const { vault, settings, desk, service } = await wireCore({ url: home.url }, { storage });
  desk.configure(service.gateways());
  desk.start();
  const host = await startHost({ service, pagesDir });
  cleanups.push(
    () => desk.stop(),
    () => host.close(),
  );
  return { host, desk, settings, vault };
}

const settingsUrl = (host: Host) => host.settingsUrl;

describe("secrets in the pages (issue 8)", { skip: chromium.ok ? false : chromium.reason }, () => {
  before(async () => {
    [home, browser] = await launchChromiumBeside(startFakeGateway(), (h) => h.close());
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
    await browser?.close();
    await home?.close();
  });

  test("the editor says which saved secrets a new server forgets, before Save; after Save the trap gets none", async () => {
    const trap = await startTrapGateway();
    cleanups.push(() => trap.close());
    const { host, desk, settings } = await hostWith(memoryStorage());
    settings.saveGateway({ label: "Home", color: "#0a84ff", url: home.url, token: "tok-HOME-5ecret", password: "pw-HOME-5ecret" });
    desk.configure(settings.gatewayConfigs());
    const { page, context, errors } = await openPage(browser, settingsUrl(host));
    try {
      await page.getByRole("button", { name: "Edit…" }).click();
      const address = page.getByRole("textbox", { name: "Address" });
      await address.fill(`${trap.url}/`);
      const notice = page.getByRole("status").filter({ hasText: "will be forgotten" });
      await notice.waitFor({ timeout: 10_000 });
      assert.equal(
        (await notice.textContent())?.trim(),
        `The saved token and password will be forgotten: ${trap.url} is another server than ${home.url}, so Progress Desk won't send them there. Enter them again if that server needs them.`,
      );
      // Tied to the address and the Save button for assistive technology.
      const noticeId = await notice.getAttribute("id");
      assert.ok((await address.getAttribute("aria-describedby"))?.split(" ").includes(noticeId!));
      assert.ok((await page.getByRole("button", { name: "Save" }).getAttribute("aria-describedby"))?.split(" ").includes(noticeId!));
      assert.equal(settings.view().gateways[0]!.hasToken, true, "shown before anything is saved");
      // Back to the same origin: the notice goes away.
      await address.fill(`${home.url.toUpperCase().replace("WS://", "ws://")}/`);
      await until("notice cleared", async () => ((await page.locator(`[id="${noticeId}"]`).textContent()) ?? "").trim() === "");

      await address.fill(trap.url);
      await page.getByRole("button", { name: "Save" }).click();
      await until("the trap got a connect", () => trap.connects.length > 0);
      for (const secret of ["tok-HOME-5ecret", "pw-HOME-5ecret"])
        assert.equal(trap.frames.join("\n").includes(secret), false, `${secret} reached the trap`);
      assert.equal(settings.view().gateways[0]!.hasToken, false);
      assert.deepEqual(
        errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await context.close();
    }
  });

  test("keychain unavailable: the popover and Settings say so; saving a token fails plainly; the explicit choice clears it", async () => {
    const damaged = "{damaged";
    const fallback = memoryStorage();
    const storage = { ...memoryStorage(damaged), unprotectedFallback: () => fallback };
    const { host, settings } = await hostWith(storage);

    const popover = await openPage(browser, host.url);
    try {
      const banner = popover.page.getByRole("region", { name: "Saved credentials" });
      await banner.getByRole("alert").filter({ hasText: KEYCHAIN_UNAVAILABLE }).waitFor({ timeout: 10_000 });
      assert.match((await banner.textContent()) ?? "", /Unlock the keychain/);
      assert.equal(await banner.getByRole("button", { name: "Open Settings" }).count(), 1);
    } finally {
      await popover.context.close();
    }

    const { page, context } = await openPage(browser, settingsUrl(host));
    try {
      const banner = page.getByRole("region", { name: "Saved credentials" });
      await banner.getByRole("alert").filter({ hasText: KEYCHAIN_UNAVAILABLE }).waitFor({ timeout: 10_000 });
      // Adding a Gateway with a token fails with the reason, and nothing changes on disk.
      await page.getByRole("button", { name: "Add Gateway…" }).click();
      await page.getByRole("textbox", { name: "Address" }).fill("wss://work.example");
      await page.getByLabel("Token").fill("tok-WORK");
      await page.getByRole("button", { name: "Add Gateway" }).click();
      await page.getByRole("alert").filter({ hasText: SECRET_NOT_SAVED }).waitFor({ timeout: 10_000 });
      await settings.flush();
      assert.equal(storage.blob, damaged);
      assert.equal(fallback.blob, null);

      await page.getByRole("button", { name: "Keep new secrets unencrypted" }).click();
      await banner.waitFor({ state: "detached", timeout: 10_000 });
      assert.equal(settings.view().credentialStorage, "file");
      await page.getByRole("button", { name: "Add Gateway" }).click();
      await until("saved", () => settings.view().gateways.some((g) => g.hasToken));
      await settings.flush();
      assert.equal(storage.blob, damaged, "the unreadable credentials are still as they were");
      assert.ok((fallback.blob as string | null)?.includes("tok-WORK"), "the new token went to the separate file");
    } finally {
      await context.close();
    }
  });
});
