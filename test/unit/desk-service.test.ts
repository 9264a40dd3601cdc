// Who may ask (main/core/desk-service.ts, rule in common/contract.ts): launch-at-login, the global
// shortcut and Gateway changes are the Settings page's alone; the popover and dashboard are refused
// with FORBIDDEN and nothing changes. A real core (never started: no connection is made) and a
// real settings store over a memory backend.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDeskService, type DeskService } from "../../main/core/desk-service.ts";
import { ProgressDesk } from "../../main/core/desk.ts";
import { discoverGateway } from "../../main/core/discovery.ts";
import { memoryBackend, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { type DiagnosticsCopy, type Page, type Settings } from "../../common/contract.ts";
import { createLogger } from "../../main/core/logger.ts";
import { isDeskError } from "../../common/errors.ts";
import { wireCore } from "../harness/wired-core.ts";

async function setup(): Promise<{ service: DeskService; settings: SettingsStore }> {
  return wireCore({ url: "ws://127.0.0.1:9", token: "t" });
}

const GATEWAY = { label: "Work", color: "#ff9f0a", url: "ws://127.0.0.1:9", token: "secret-token" };

function isForbidden(method: string) {
  return (err: unknown): boolean => {
    assert.ok(isDeskError(err, "FORBIDDEN"), `${method}: ${String(err)}`);
    assert.equal(err.code, "FORBIDDEN");
    assert.match(err.message, /Settings page/);
    return true;
  };
}

const OTHER_PAGES: Page[] = ["popover", "dashboard"];

describe("Settings-only verbs (desk service)", () => {
  test("saveGateway from the popover or dashboard is refused; nothing is saved", async () => {
    const { service, settings } = await setup();
    for (const caller of OTHER_PAGES) {
      await assert.rejects(service.call("saveGateway", [GATEWAY], caller), isForbidden(`saveGateway/${caller}`));
    }
    assert.deepEqual(settings.view().gateways, []);
  });

  test("removeGateway from the popover or dashboard is refused; the Gateway stays", async () => {
    const { service, settings } = await setup();
    const saved = (await service.call("saveGateway", [GATEWAY], "settings")) as Settings;
    const id = saved.gateways[0]!.id;
    for (const caller of OTHER_PAGES) {
      await assert.rejects(service.call("removeGateway", [id], caller), isForbidden(`removeGateway/${caller}`));
    }
    assert.deepEqual(
      settings.view().gateways.map((g) => g.id),
      [id],
    );
  });

  test("an updateSettings patch naming launchAtLogin or popoverShortcut is refused from other pages, whole", async () => {
    const { service, settings } = await setup();
    const before = settings.view();
    const patches = [
      { launchAtLogin: true },
      { popoverShortcut: "CommandOrControl+Shift+P" },
      { popoverShortcut: "" },
      // The harmless part of a mixed patch is not applied either: the call is refused as a whole.
      { trayTitle: !before.trayTitle, launchAtLogin: true },
    ];
    for (const caller of OTHER_PAGES) {
      for (const patch of patches) {
        await assert.rejects(
          service.call("updateSettings", [patch], caller),
          isForbidden(`updateSettings ${JSON.stringify(patch)}/${caller}`),
        );
      }
    }
    assert.deepEqual(settings.view(), before);
  });

  test("Y15: answering for the Local Gateway is turned on or off from Settings alone; nothing changes", async () => {
    const { service, settings } = await setup();
    // It asks the Gateway for more scopes and makes the desk an approval surface, as a Gateway edit would.
    for (const caller of OTHER_PAGES) {
      for (const on of [true, false]) {
        await assert.rejects(
          service.call("updateSettings", [{ localAnswerApprovals: on }], caller),
          isForbidden(`updateSettings localAnswerApprovals/${caller}`),
        );
      }
    }
    assert.equal(settings.view().localAnswerApprovals, false);
    assert.equal(service.gateways()[0]?.answerApprovals, undefined);
  });

  test("the message names what was refused and which page asked", async () => {
    const { service } = await setup();
    await assert.rejects(service.call("updateSettings", [{ launchAtLogin: true, popoverShortcut: "Alt+P" }], "dashboard"), {
      message: "Refused: launchAtLogin and popoverShortcut can only be changed from the Settings page (asked by the dashboard).",
    });
    await assert.rejects(service.call("saveGateway", [GATEWAY], "popover"), {
      message: "Refused: saveGateway is only accepted from the Settings page (asked by the popover).",
    });
  });

  test("the Settings page may do all of it", async () => {
    const { service, settings } = await setup();
    const saved = (await service.call("saveGateway", [GATEWAY], "settings")) as Settings;
    assert.equal(saved.gateways.length, 1);
    assert.equal(saved.gateways[0]!.hasToken, true);
    const updated = (await service.call(
      "updateSettings",
      [{ launchAtLogin: true, popoverShortcut: "CommandOrControl+Shift+P" }],
      "settings",
    )) as Settings;
    assert.equal(updated.launchAtLogin, true);
    assert.equal(updated.popoverShortcut, "CommandOrControl+Shift+P");
    await service.call("removeGateway", [saved.gateways[0]!.id], "settings");
    assert.deepEqual(settings.view().gateways, []);
  });

  test("other pages keep every other verb, including ordinary settings", async () => {
    const { service } = await setup();
    for (const caller of OTHER_PAGES) {
      const s = (await service.call(
        "updateSettings",
        [{ collapseByDefault: caller === "popover", pinned: ["home\u0000k"] }],
        caller,
      )) as Settings;
      assert.equal(s.collapseByDefault, caller === "popover");
      assert.deepEqual(((await service.call("getSettings", [], caller)) as Settings).pinned, ["home\u0000k"]);
      assert.equal(await service.call("openExternal", ["https://example.com/"], caller), true);
      assert.equal(typeof (await service.call("snapshot", [], caller)), "object");
    }
  });

  test("a caller that is not one of the pages is refused everything (the transport's bug, failed closed)", async () => {
    const { service } = await setup();
    for (const caller of ["", "Settings", "settings ", null, undefined]) {
      await assert.rejects(
        service.call("snapshot", [], caller as unknown as Page),
        (err: unknown) => isDeskError(err, "FORBIDDEN") && /not known/.test(err.message),
      );
    }
  });

  test("bad arguments are still BAD_REQUEST, checked before the caller", async () => {
    const { service } = await setup();
    await assert.rejects(service.call("saveGateway", [{ url: "http://x", label: "x", color: "#000" }], "popover"), { code: "BAD_REQUEST" });
  });
});

describe("copyDiagnostics (Settings only)", () => {
  async function diagnosticsService(copyText?: (text: string) => void) {
    const vault = await CredentialVault.open(memoryStorage());
    const logger = createLogger({ sink: () => undefined, level: "debug" });
    const settings = new SettingsStore(memoryBackend(), vault, logger);
    const desk = new ProgressDesk({ gateways: [], vault, clientVersion: "0.0.0-test", logger });
    const discovered = discoverGateway({ env: {}, explicit: { url: "ws://127.0.0.1:9", token: "t" } });
    const service = createDeskService({
      desk,
      settings,
      discovered,
      logger,
      clientVersion: "9.9.9-test",
      versions: { node: "24.0.0", electron: "45.0.0" },
      openExternal: () => true,
      ...(copyText ? { copyText } : {}),
    });
    desk.configure([
      { id: "home", label: "Home", url: "ws://127.0.0.1:9", token: "Hq2-Vn7x.Lp4Rz-Tb8w" },
      { id: "ops", label: "Ops", url: "ws://ops:Pw5-Kd9s@127.0.0.1:10" },
    ]);
    return { service, logger };
  }

  test("versions, connection states and the last log lines, with secrets redacted; copied by the app when it can", async () => {
    const copies: string[] = [];
    const { service, logger } = await diagnosticsService((t) => copies.push(t));
    logger.warn("something odd", { detail: "using Hq2-Vn7x.Lp4Rz-Tb8w" });
    const result = (await service.call("copyDiagnostics", [], "settings")) as DiagnosticsCopy;
    assert.equal(result.copied, true);
    assert.deepEqual(copies, [result.text]);
    assert.match(result.text, /^Progress Desk 9\.9\.9-test on /);
    assert.match(result.text, /electron 45\.0\.0, node 24\.0\.0/);
    assert.match(result.text, /home "Home" ws:\/\/127\.0\.0\.1:9: connecting/);
    assert.match(result.text, /warn {2}something odd detail="using \[redacted\]"/);
    assert.match(result.text, /debug gateway added/);
    assert.doesNotMatch(result.text, /Lp4Rz/, "the Gateway token is nowhere, not even in part");
    assert.doesNotMatch(result.text, /Pw5-Kd9s/, "nor a password written into a Gateway URL");
  });

  test("without a clipboard (the browser host) the page copies the returned text", async () => {
    const { service } = await diagnosticsService();
    const result = (await service.call("copyDiagnostics", [], "settings")) as DiagnosticsCopy;
    assert.equal(result.copied, false);
    assert.match(result.text, /Last \d+ log lines:/);
  });

  test("the popover and dashboard may not ask", async () => {
    const { service } = await diagnosticsService();
    for (const caller of OTHER_PAGES)
      await assert.rejects(service.call("copyDiagnostics", [], caller), isForbidden(`copyDiagnostics/${caller}`));
    await assert.rejects(service.call("copyDiagnostics", [1], "settings"), { code: "BAD_REQUEST" });
  });
});

describe("the Local Gateway's answering preference (Y15)", () => {
  /** The Gateway lists the service hands the core, in order (the core is never started). */
  async function watched() {
    const { service, settings, desk } = await wireCore({ url: "ws://127.0.0.1:9", token: "t" });
    const configured: unknown[][] = [];
    const configure = desk.configure.bind(desk);
    desk.configure = (gateways) => {
      configured.push(gateways);
      configure(gateways);
    };
    return { service, settings, configured };
  }

  test("turned on from Settings: the Local Gateway answers, the core is given it at once; off again, it does not", async () => {
    const { service, configured } = await watched();
    assert.equal(service.gateways()[0]?.answerApprovals, undefined, "off by default");
    await service.call("updateSettings", [{ localAnswerApprovals: true }], "settings");
    assert.equal(service.gateways()[0]?.answerApprovals, true);
    assert.equal(service.gateways()[0]?.token, "t", "the discovered token stays with it");
    assert.deepEqual(configured, [service.gateways()]);
    await service.call("updateSettings", [{ localAnswerApprovals: false }], "settings");
    assert.equal(service.gateways()[0]?.answerApprovals, undefined);
    assert.equal(configured.length, 2);
  });

  test("other changes do not reconnect; once Settings lists a Gateway the preference does nothing", async () => {
    const { service, configured } = await watched();
    await service.call("updateSettings", [{ trayTitle: false }], "settings");
    assert.equal(configured.length, 0, "no reconnect for an unrelated setting");
    await service.call("saveGateway", [GATEWAY], "settings");
    const count = configured.length;
    await service.call("updateSettings", [{ localAnswerApprovals: true }], "settings");
    assert.equal(configured.length, count, "the saved Gateway is not reconnected");
    assert.equal(service.gateways()[0]?.answerApprovals, undefined, "a saved Gateway has its own switch");
  });
});
