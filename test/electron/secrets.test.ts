// Issue 8 (findings 2 and 3) through the Electron shell: a FAKE Electron (fake-electron.ts)
// around the real core, pages calling over IPC as a page would. The home Gateway and the
// TRAP are FAKES on loopback (test/faults); safeStorage is a FAKE that can lose its key
// between launches.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { KEYCHAIN_UNAVAILABLE, SECRET_NOT_SAVED } from "../../common/credential-storage.ts";
import type { Settings } from "../../common/contract.ts";
import { startShell, type Shell } from "../../main/electron/shell.ts";
import { helloOk, startFakeGateway, type FakeGateway } from "../faults/fake-gateway.ts";
import { startTrapGateway } from "../faults/trap-gateway.ts";
import { until } from "../harness/until.ts";
import type { SafeStorageLike } from "../../main/electron/secret-storage.ts";
import { fakeElectron, FakeSafeStorage, type FakeElectron, type FakeWindow } from "./fake-electron.ts";

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const TOKEN = "tok-HOME-5ecret";
const DEVICE_TOKEN = "devtok-HOME-5ecret";

async function homeGateway(): Promise<FakeGateway> {
  const home = await startFakeGateway({
    onConnect: () => ({
      ok: true,
      payload: helloOk({ auth: { role: "operator", scopes: ["operator.read", "operator.write"], deviceToken: DEVICE_TOKEN } }),
    }),
  });
  cleanups.push(() => home.close());
  return home;
}

async function launch(
  dir: string,
  home: FakeGateway,
  safeStorage = new FakeSafeStorage(),
  store?: Map<string, unknown>,
): Promise<{ f: FakeElectron; shell: Shell; win: FakeWindow }> {
  const f = fakeElectron({
    dataDir: dir,
    env: { OPENCLAW_GATEWAY_URL: home.url, HOME: dir },
    safeStorage: safeStorage as unknown as SafeStorageLike,
  });
  for (const [k, v] of store ?? []) f.store.set(k, v);
  const shell = await startShell(f.deps);
  cleanups.push(() => shell.shutdown());
  f.trays[0]!.emit("click");
  const popover = await until("popover window", () => f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html")));
  // Gateway changes are the Settings page's alone: the test speaks as that window.
  await f.invoke(popover, "openPage", ["settings"]);
  const win = await until("settings window", () => f.windows.find((w) => w.urls[0]?.startsWith("app://desk/settings.html")));
  return { f, shell, win };
}

function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), "pd-secrets-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("saved secrets stay with their server (over IPC)", () => {
  test("a page that points a Gateway with a token at a trap's URL: the trap receives no secret", async () => {
    const home = await homeGateway();
    const trap = await startTrapGateway();
    cleanups.push(() => trap.close());
    const { f, shell, win } = await launch(tempHome(), home);
    const state = () => shell.desk.snapshot().gateways[0]?.connection.state;

    const saved = (await f.invoke(win, "saveGateway", [{ label: "Home", color: "#0a84ff", url: home.url, token: TOKEN }])) as Settings;
    const id = saved.gateways[0]!.id;
    await until("home connected with the token", () =>
      home.requests.some((r) => r.method === "connect" && (r.params.auth as { token?: string }).token === TOKEN),
    );
    await until(
      "home connected (and its device token stored)",
      () => shell.desk.snapshot().gateways[0]?.url === home.url && state() === "connected",
    );

    const moved = (await f.invoke(win, "saveGateway", [{ id, label: "Home", color: "#0a84ff", url: trap.url }])) as Settings;
    await until("the trap got a connect", () => trap.connects.length > 0 && state() === "connected");
    const everything = trap.frames.join("\n");
    assert.equal(everything.includes(TOKEN), false, "the token reached the trap");
    assert.equal(everything.includes(DEVICE_TOKEN), false, "the device token reached the trap");
    for (const c of trap.connects)
      for (const field of ["token", "password", "bootstrapToken", "deviceToken"]) assert.equal(c.auth?.[field], undefined, field);
    assert.equal(moved.gateways[0]!.hasToken, false, "the page sees none saved");
    await shell.settings.flush();
    await shell.shutdown();
  });
});

/** A FAKE safeStorage that works on launch 1 and then loses its key, in one of two ways. */
function brokenKeychain(how: "unavailable" | "decrypt throws"): FakeSafeStorage {
  const safe = new FakeSafeStorage();
  if (how === "unavailable") safe.available = false;
  else safe.failDecrypt = "Error while decrypting the ciphertext provided to safeStorage.decryptString.";
  return safe;
}

describe("the keychain fails between launches (over IPC)", () => {
  for (const how of ["unavailable", "decrypt throws", "corrupted file"] as const) {
    test(`${how}: nothing on disk changes, the pages and the tray say so, and a secret is saved only after the explicit choice`, async () => {
      const home = await homeGateway();
      const dir = tempHome();
      const file = join(dir, "credentials.json");

      // Launch 1: encrypted, with a token.
      const one = await launch(dir, home);
      await one.f.invoke(one.win, "saveGateway", [{ label: "Home", color: "#0a84ff", url: home.url, token: TOKEN }]);
      await one.shell.settings.flush();
      await one.shell.shutdown();
      if (how === "corrupted file") writeFileSync(file, readFileSync(file, "utf8").slice(0, 30));
      const bytes = readFileSync(file);

      // Launch 2: the keychain is gone (or the file damaged).
      const two = await launch(dir, home, how === "corrupted file" ? new FakeSafeStorage() : brokenKeychain(how), one.f.store);
      const s = (await two.f.invoke(two.win, "getSettings", [])) as Settings;
      assert.equal(s.credentialStorage, "unavailable");
      assert.equal(s.gateways.length, 1, "the Gateway is still listed");
      two.shell.redraw();
      const tray = two.shell.tray.current!;
      assert.equal(tray.icon, "attention");
      assert.equal(tray.tooltip, `Progress Desk — ${KEYCHAIN_UNAVAILABLE}`);
      assert.equal(two.f.trays[0]!.tooltip, tray.tooltip, "drawn on the real tray");
      assert.ok(two.f.warnings.some((w) => /nothing is written over them/.test(w)));

      // Saving a secret fails plainly; nothing on disk changes.
      await assert.rejects(
        two.f.invoke(two.win, "saveGateway", [{ id: s.gateways[0]!.id, label: "Home", color: "#0a84ff", url: home.url, token: "tok-NEW" }]),
        { message: SECRET_NOT_SAVED },
      );
      await two.shell.settings.flush();
      assert.deepEqual(readFileSync(file), bytes, "byte for byte after the refused save");
      assert.deepEqual(
        readdirSync(dir).filter((n) => n.startsWith("credentials")),
        ["credentials.json"],
      );

      // The explicit choice: new secrets go to a separate file; the saved one stays intact.
      const chosen = (await two.f.invoke(two.win, "updateSettings", [{ credentialStorage: "file" }])) as Settings;
      assert.equal(chosen.credentialStorage, "file");
      await two.f.invoke(two.win, "saveGateway", [
        { id: s.gateways[0]!.id, label: "Home", color: "#0a84ff", url: home.url, token: "tok-NEW" },
      ]);
      await two.shell.settings.flush();
      assert.deepEqual(readFileSync(file), bytes, "still byte for byte");
      assert.ok(existsSync(join(dir, "credentials.unprotected.json")));
      two.shell.redraw();
      assert.notEqual(two.shell.tray.current!.tooltip, `Progress Desk — ${KEYCHAIN_UNAVAILABLE}`);
      await two.shell.shutdown();
    });
  }
});
