import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { defaultSettings, jsonFileBackend, memoryBackend, normalizeSettings, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { gatewayIdForUrl } from "../../main/core/discovery.ts";
import { isSafeExternalUrl, validateArgs, DESK_METHODS } from "../../common/contract.ts";
import { isDeskError } from "../../common/errors.ts";

const open = async (initial: unknown = null) => {
  const vault = await CredentialVault.open(memoryStorage());
  const backend = memoryBackend(initial);
  return { vault, backend, store: new SettingsStore(backend, vault) };
};

describe("settings (S1–S3)", () => {
  test("defaults: cards shown, not collapsed, notifications on", () => {
    const d = defaultSettings();
    assert.equal(d.showCards, true);
    assert.equal(d.collapseByDefault, false);
    assert.equal(d.notifications.enabled, true);
    assert.deepEqual(d.gateways, []);
  });

  test("whatever is on disk is made valid", () => {
    const n = normalizeSettings({
      showCards: "yes",
      collapseByDefault: true,
      bogus: 1,
      notifications: { quietHours: { start: "25:00", end: "07:30" } },
      gateways: [
        { id: "a", url: "http://x" },
        { id: "b", url: "ws://h:1", color: "red" },
      ],
      pinned: ["a", "a", 3],
    });
    assert.equal(n.showCards, true, "a bad value falls back to the default");
    assert.equal(n.collapseByDefault, true);
    assert.equal("bogus" in n, false);
    assert.equal(n.notifications.quietHours.start, "22:00");
    assert.equal(n.notifications.quietHours.end, "07:30");
    assert.deepEqual(
      n.gateways.map((g) => g.id),
      ["b"],
      "only ws:// and wss:// Gateways",
    );
    assert.match(n.gateways[0]!.color, /^#[0-9a-f]{6}$/i);
    assert.deepEqual(n.pinned, ["a"]);
    assert.deepEqual(normalizeSettings("garbage"), defaultSettings());
  });

  test("the popover shortcut is off by default, must be a real accelerator, and a bad one is refused with a reason", async () => {
    const { store } = await open();
    assert.equal(store.view().popoverShortcut, "");
    assert.equal(store.update({ popoverShortcut: "CommandOrControl+Shift+P" }).popoverShortcut, "CommandOrControl+Shift+P");
    for (const bad of ["P", "Shift", "Ctrl+Ctrl+P", "Hyper+P", "Alt+Shift+Foo"]) {
      assert.throws(() => store.update({ popoverShortcut: bad }), /not a shortcut Progress Desk can use/, bad);
    }
    assert.equal(store.view().popoverShortcut, "CommandOrControl+Shift+P", "a refused value changes nothing");
    assert.equal(store.update({ popoverShortcut: "" }).popoverShortcut, "", "empty turns it off");
    assert.equal(normalizeSettings({ popoverShortcut: "x" }).popoverShortcut, "", "a bad value on disk falls back to off");
    assert.equal(store.update({ dashboardOnTop: true }).dashboardOnTop, true);
    assert.equal(store.view().credentialStorage, "file", "pages learn how secrets are kept, never the secrets");
  });

  test("live activity and the no-progress detector: defaults, partial updates, bad values back to defaults", async () => {
    const { store } = await open();
    assert.deepEqual(store.view().activity, { mode: "all", commandText: "raw" });
    assert.deepEqual(store.view().detector, { enabled: true, pollingRepeats: 5, silentMinutes: 10 });
    assert.deepEqual(store.update({ activity: { commandText: "status" } }).activity, { mode: "all", commandText: "status" });
    assert.deepEqual(store.update({ detector: { silentMinutes: 3 } }).detector, { enabled: true, pollingRepeats: 5, silentMinutes: 3 });
    const n = normalizeSettings({
      activity: { mode: "loud", commandText: 1 },
      detector: { enabled: "no", pollingRepeats: 1, silentMinutes: 2.5 },
    });
    assert.deepEqual(n.activity, { mode: "all", commandText: "raw" });
    assert.deepEqual(n.detector, { enabled: true, pollingRepeats: 5, silentMinutes: 10 });
  });

  test("updates merge, persist and notify", async () => {
    const { store, backend } = await open();
    const seen: boolean[] = [];
    store.onChange((s) => seen.push(s.collapseByDefault));
    const s = store.update({ collapseByDefault: true, notifications: { milestones: { newCard: false } } });
    assert.equal(s.collapseByDefault, true);
    assert.equal(s.notifications.milestones.newCard, false);
    assert.equal(s.notifications.milestones.allCompleted, true, "other milestones are kept");
    await store.flush();
    assert.equal((backend.doc as { collapseByDefault: boolean }).collapseByDefault, true);
    assert.deepEqual(seen, [true]);
    // S2 is kept while cards are hidden (S1).
    assert.equal(store.update({ showCards: false }).collapseByDefault, true);
  });

  test("a new Gateway keeps the id the zero-configuration one had for its URL; a second one on that URL gets its own", async () => {
    const { store } = await open();
    const first = store.saveGateway({ label: "Local", color: "#0a84ff", url: "ws://127.0.0.1:18789" }).gateways[0]!;
    assert.equal(first.id, gatewayIdForUrl("ws://127.0.0.1:18789"), "cards already shown keep their keys (not told again as new)");
    const second = store.saveGateway({ label: "Again", color: "#ff9f0a", url: "ws://127.0.0.1:18789" }).gateways[1]!;
    assert.notEqual(second.id, first.id);
    assert.match(second.id, /^gw-[0-9a-f]{8}$/);
  });

  test("Gateway secrets go to the vault only; pages see flags", async () => {
    const { store, vault, backend } = await open();
    const s = store.saveGateway({ label: "Work", color: "#ff9f0a", url: "wss://gw.example:443", token: "secret-token-123" });
    const g = s.gateways[0]!;
    assert.equal(g.hasToken, true);
    assert.equal(g.hasPassword, false);
    await store.flush();
    assert.equal(JSON.stringify(s).includes("secret-token-123"), false);
    assert.equal(JSON.stringify(backend.doc).includes("secret-token-123"), false, "never in plain settings");
    assert.equal(store.gatewayConfigs()[0]!.token, "secret-token-123", "the core gets it");
    // Leaving a secret out keeps it; "" removes it.
    store.saveGateway({ id: g.id, label: "Work 2", color: "#ff9f0a", url: "wss://gw.example:443" });
    assert.equal(store.gatewayConfigs()[0]!.token, "secret-token-123");
    assert.equal(store.view().gateways[0]!.label, "Work 2");
    store.saveGateway({ id: g.id, label: "Work 2", color: "#ff9f0a", url: "wss://gw.example:443", token: "" });
    assert.equal(store.view().gateways[0]!.hasToken, false);
    store.update({ pinned: [`${g.id}\u0000agent:main:x`, "other\u0000y"] });
    const after = store.removeGateway(g.id);
    assert.deepEqual(after.gateways, []);
    assert.deepEqual(after.pinned, ["other\u0000y"], "pins of a removed Gateway go with it");
    assert.deepEqual(
      vault.names().filter((n) => n.startsWith("gateway-")),
      [],
      "its secrets go with it",
    );
  });

  test("survive a restart through a 0600 JSON file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pd-settings-"));
    try {
      const path = join(dir, "nested", "settings.json");
      const vault = await CredentialVault.open(memoryStorage());
      const a = new SettingsStore(jsonFileBackend(path), vault);
      a.update({ trayTitle: false, launchAtLogin: true });
      await a.flush();
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const b = new SettingsStore(jsonFileBackend(path), vault);
      assert.equal(b.view().trayTitle, false);
      assert.equal(b.view().launchAtLogin, true);
      assert.ok(JSON.parse(readFileSync(path, "utf8")));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the page contract", () => {
  const card = { gatewayId: "g", sessionKey: "agent:main:x", agentId: null };

  test("every verb validates its arguments", () => {
    assert.deepEqual(validateArgs("snapshot", []), []);
    assert.deepEqual(validateArgs("dismiss", [card, 3, true]), [card, 3, true]);
    assert.deepEqual(validateArgs("openPage", ["dashboard"]), ["dashboard"]);
    const bad: [string, unknown][] = [
      ["snapshot", [1]],
      ["dismiss", [card, 0, true]],
      ["dismiss", [card, 1.5, true]],
      ["dismiss", [{ gatewayId: "g" }, 1, true]],
      ["dismiss", [card, 1]],
      ["refresh", [card, "yes"]],
      ["openPage", ["file:///etc"]],
      ["saveGateway", [{ url: "http://x", label: "x", color: "#000" }]],
      ["saveGateway", [{ url: "ws://x", label: "x", color: "#000", token: 5 }]],
      ["updateSettings", [null]],
      ["constructor", []],
      ["__proto__", []],
      ["dismiss", "not a list"],
      ["openNeed", [{ gatewayId: "g" }]],
      ["openNeed", [{ gatewayId: "g", id: 5 }]],
      ["openNeed", [{ gatewayId: "g", id: "a", url: "https://evil.example" }]],
      [
        "answerNeed",
        [
          { gatewayId: "g", id: "a" },
          { kind: "exec", decision: "allow-once", command: "rm -rf /" },
        ],
      ],
      ["closePopover", [true]],
      ["checkForUpdates", ["now"]],
      ["installUpdate", [true]],
    ];
    for (const [m, a] of bad)
      assert.throws(
        () => validateArgs(m, a),
        (e: unknown) => isDeskError(e, "BAD_REQUEST"),
        `${m} ${JSON.stringify(a)}`,
      );
    assert.equal(DESK_METHODS.length, 17);
  });

  test("only http, https and mailto links open", () => {
    for (const ok of ["https://example.com/a?b", "http://127.0.0.1:8080", "mailto:a@b.c"]) assert.equal(isSafeExternalUrl(ok), true, ok);
    for (const no of [
      "javascript:alert(1)",
      "JAVASCRIPT:alert(1)",
      " javascript:alert(1)",
      "file:///etc/passwd",
      "data:text/html,x",
      "vbscript:x",
      "ftp://x",
      "//evil.example",
      "",
      42,
    ]) {
      assert.equal(isSafeExternalUrl(no), false, String(no));
    }
  });
});
