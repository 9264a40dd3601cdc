// Settings-only verbs over Electron IPC, through the real shell wiring (main/electron/shell.ts →
// ipc.ts → desk service): the page a call comes from is the page its window shows, so the popover
// and dashboard windows cannot turn on launch-at-login, take a global shortcut or change Gateways;
// the Settings window can. A FAKE Electron (fake-electron.ts) stands in for windows, IPC, the login
// item and global shortcuts; the Gateway address is a closed local port (no Gateway is needed).
// Answering (answerNeed) is the popover's and the dashboard's: Settings is refused, the others reach the core.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startShell, type Shell } from "../../main/electron/shell.ts";
import type { Page, Settings } from "../../common/contract.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import { fakeElectron, FakeWebContents, type FakeElectron, type FakeWindow } from "./fake-electron.ts";

let home: string;
let f: FakeElectron;
let shell: Shell;

const windowOf = (page: Page): FakeWindow => {
  const w = f.windows.find((x) => x.urls.at(-1)?.startsWith(`app://desk/${page}.html`));
  assert.ok(w, `the ${page} window is open`);
  return w;
};

const GATEWAY = { label: "Work", color: "#0a84ff", url: "ws://127.0.0.1:9", token: "tok-from-settings" };

before(async () => {
  home = mkdtempSync(join(tmpdir(), "pd-ipc-caller-"));
  f = fakeElectron({ dataDir: home, env: { OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", HOME: home } });
  shell = await startShell(f.deps);
  for (const page of ["popover", "dashboard", "settings"] as const) await shell.openPage(page);
});

after(async () => {
  await shell?.shutdown();
  if (home) rmSync(home, { recursive: true, force: true });
});

const forbidden = (err: unknown): boolean => {
  assert.equal((err as { code?: string }).code, "FORBIDDEN", String(err));
  assert.match((err as Error).message, /only .*Settings page/);
  return true;
};

describe("Settings-only verbs over IPC", () => {
  test("the popover and dashboard windows are refused launch-at-login, the shortcut and Gateway changes; nothing happens", async () => {
    for (const page of ["popover", "dashboard"] as const) {
      const win = windowOf(page);
      await assert.rejects(f.invoke(win, "updateSettings", [{ launchAtLogin: true }]), forbidden);
      await assert.rejects(f.invoke(win, "updateSettings", [{ popoverShortcut: "CommandOrControl+Shift+P" }]), forbidden);
      await assert.rejects(f.invoke(win, "saveGateway", [GATEWAY]), forbidden);
      await assert.rejects(f.invoke(win, "removeGateway", ["local"]), forbidden);
      // Its ordinary verbs still work.
      assert.equal(
        ((await f.invoke(win, "updateSettings", [{ collapseByDefault: page === "popover" }])) as Settings).collapseByDefault,
        page === "popover",
      );
    }
    assert.deepEqual(f.loginItem.filter(Boolean), [], "the login item was never turned on");
    assert.equal(f.shortcuts.size, 0, "no global shortcut was registered");
    assert.deepEqual(shell.settings.view().gateways, []);
  });

  test("a settings.html subframe inside the popover, or a top frame on an unknown page, is refused", async () => {
    const win = windowOf("popover");
    await assert.rejects(
      f.invoke(win, "updateSettings", [{ launchAtLogin: true }], {
        url: "app://desk/settings.html",
        parent: { url: "app://desk/popover.html" },
      }),
      /Refused/,
    );
    await assert.rejects(
      f.invoke(win, "updateSettings", [{ launchAtLogin: true }], { url: "app://desk/other.html", parent: null }),
      /Refused/,
    );
    assert.deepEqual(f.loginItem.filter(Boolean), []);
  });

  test("the Settings window may do all of it", async () => {
    const win = windowOf("settings");
    await f.invoke(win, "updateSettings", [{ launchAtLogin: true, popoverShortcut: "CommandOrControl+Shift+P" }]);
    assert.equal(f.loginItem.at(-1), true);
    assert.ok(f.shortcuts.has("CommandOrControl+Shift+P"));
    const saved = (await f.invoke(win, "saveGateway", [GATEWAY])) as Settings;
    assert.deepEqual(
      saved.gateways.map((g) => g.label),
      ["Work"],
    );
    const removed = (await f.invoke(win, "removeGateway", [saved.gateways[0]!.id])) as Settings;
    assert.deepEqual(removed.gateways, []);
  });
});

describe("answering over IPC (Y14)", () => {
  const need = { gatewayId: "any", id: "appr-1" };
  const answer = { kind: "exec", decision: "allow-once" };

  test("the Settings window is refused FORBIDDEN: answering is the popover's and the dashboard's", async () => {
    await assert.rejects(f.invoke(windowOf("settings"), "answerNeed", [need, answer]), (err: unknown) => {
      assert.equal((err as { code?: string }).code, "FORBIDDEN", String(err));
      assert.match((err as Error).message, /answerNeed is only accepted from the popover and the dashboard \(asked by the settings\)/);
      return true;
    });
  });

  test("the popover and dashboard windows reach the core, which checks the answer against its entry (none here: refused)", async () => {
    // The Gateway from the environment: the core knows it, and holds no entry on it.
    const snapshot = (await f.invoke(windowOf("popover"), "snapshot", [])) as DeskSnapshot;
    const gatewayId = snapshot.gateways[0]?.id;
    assert.ok(gatewayId);
    for (const page of ["popover", "dashboard"] as const) {
      await assert.rejects(f.invoke(windowOf(page), "answerNeed", [{ ...need, gatewayId }, answer]), (err: unknown) => {
        assert.equal((err as { code?: string }).code, "FAILED", `${page}: ${String(err)}`);
        assert.equal((err as Error).message, "This request is no longer pending: it was answered elsewhere or has expired.");
        return true;
      });
    }
  });

  test("a webContents that is not one of our windows is refused, even showing the popover's URL", async () => {
    await assert.rejects(
      f.invoke(new FakeWebContents(), "answerNeed", [need, answer], { url: "app://desk/popover.html", parent: null }),
      (err: unknown) => {
        assert.equal((err as { code?: string }).code, "UNTRUSTED_SENDER", String(err));
        return true;
      },
    );
  });
});
