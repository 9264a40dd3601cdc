// The Settings-only rule (forbiddenReason): verbs and settings that outlive the page that
// asked (Gateways and their credentials, launch at login, the global shortcut) are accepted
// from the Settings page only; everything else from any known page; nothing from an unknown
// caller. Exact reasons, since they reach logs and the refused page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { forbiddenReason } from "../../common/contract.ts";

const gateway = { url: "ws://127.0.0.1:18789", label: "Home", color: "#0a84ff" };

test("an unknown or non-text caller is refused for every verb", () => {
  for (const caller of ["", "Settings", "tray", null, undefined, 1, { page: "settings" }]) {
    assert.equal(forbiddenReason("snapshot", [], caller), "the calling page is not known", String(caller));
  }
});

test("the Settings page may call every verb but answering, with every setting", () => {
  assert.equal(forbiddenReason("saveGateway", [gateway], "settings"), null);
  assert.equal(forbiddenReason("removeGateway", ["gw1"], "settings"), null);
  assert.equal(forbiddenReason("updateSettings", [{ launchAtLogin: true, popoverShortcut: "Alt+P" }], "settings"), null);
});

test("Gateway verbs from the popover or dashboard are refused, naming verb and caller", () => {
  assert.equal(
    forbiddenReason("saveGateway", [gateway], "popover"),
    "saveGateway is only accepted from the Settings page (asked by the popover)",
  );
  assert.equal(
    forbiddenReason("removeGateway", ["gw1"], "dashboard"),
    "removeGateway is only accepted from the Settings page (asked by the dashboard)",
  );
});

test("updateSettings from other pages: refused only when it names a Settings-only key, listing them", () => {
  assert.equal(
    forbiddenReason("updateSettings", [{ trayTitle: false, launchAtLogin: true }], "popover"),
    "launchAtLogin can only be changed from the Settings page (asked by the popover)",
  );
  assert.equal(
    forbiddenReason("updateSettings", [{ popoverShortcut: "Alt+P", launchAtLogin: false }], "dashboard"),
    "popoverShortcut and launchAtLogin can only be changed from the Settings page (asked by the dashboard)",
  );
  assert.equal(forbiddenReason("updateSettings", [{ trayTitle: false, collapseByDefault: true }], "dashboard"), null);
});

test("other verbs are open to every known page", () => {
  const card = { gatewayId: "g", sessionKey: "agent:main:x", agentId: null };
  for (const caller of ["popover", "dashboard"]) {
    assert.equal(forbiddenReason("snapshot", [], caller), null);
    assert.equal(forbiddenReason("dismiss", [card, 1, true], caller), null);
    assert.equal(forbiddenReason("openPage", ["settings"], caller), null);
    assert.equal(forbiddenReason("retryConnection", ["gw1"], caller), null);
  }
});

test("answering a needs-you entry is the popover's and the dashboard's alone (Y14): Settings and unknown callers are refused", () => {
  const args = [
    { gatewayId: "g", id: "appr-1" },
    { kind: "exec", decision: "allow-once" },
  ];
  assert.equal(forbiddenReason("answerNeed", args, "popover"), null);
  assert.equal(forbiddenReason("answerNeed", args, "dashboard"), null);
  assert.equal(
    forbiddenReason("answerNeed", args, "settings"),
    "answerNeed is only accepted from the popover and the dashboard (asked by the settings)",
  );
  for (const caller of ["notification", "tray", undefined]) {
    assert.equal(forbiddenReason("answerNeed", args, caller), "the calling page is not known", String(caller));
  }
});
