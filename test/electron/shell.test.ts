// The menu-bar shell's wiring: a FAKE Electron (fake-electron.ts; no Electron binary runs
// here) around the real core, connected to a real OpenClaw Gateway whose cards are
// written through progressCard.put exactly as an agent's writes arrive.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startShell, type Shell } from "../../main/electron/shell.ts";
import type { CardRef } from "../../common/contract.ts";
import type { TrayModel } from "../../main/core/tray-model.ts";
import { POPOVER_BLUR_GUARD_MS } from "../../main/electron/popover.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { plan } from "../gateway/support.ts";
import { fakeElectron, fakeEvent, type FakeElectron, type FakeMenu, type FakeTray, type FakeWindow } from "./fake-electron.ts";
import { sessionLink } from "../../common/session-link.ts";
import { until } from "../harness/until.ts";

let gw: TestGateway;
let agent: BareClient;
let home: string;
let f: FakeElectron;
let shell: Shell;

const tray = (): FakeTray => f.trays[0]!;
const model = (): TrayModel => shell.tray.current!;
const menuLabels = (): string[] => model().cards.map((r) => r.label);
const popoverWindow = (): FakeWindow | undefined => f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html"));

before(async () => {
  gw = await startGateway();
  agent = await connectBareClient(gw);
  home = mkdtempSync(join(tmpdir(), "pd-shell-"));
  f = fakeElectron({
    dataDir: home,
    env: { OPENCLAW_GATEWAY_URL: gw.url, OPENCLAW_GATEWAY_TOKEN: gw.token!, HOME: home },
    policy: { perSessionIntervalMs: 300, globalWindowMs: 300, globalMaxPerWindow: 5 },
  });
  shell = await startShell(f.deps);
  await until("connected", () => shell.desk.snapshot().gateways[0]?.connection.state === "connected", 45_000);
});

after(async () => {
  await shell?.shutdown();
  await agent?.close();
  await gw?.dispose();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("tray (P1) from real cards", () => {
  test("one tray, and no window at all until the person opens one (no hidden renderer)", () => {
    assert.equal(f.trays.length, 1);
    assert.equal(f.windows.length, 0);
  });

  test("a put changes the tray title, icon and menu; a completion makes it ready and notifies once", async () => {
    const key = await agent.createSession();
    await agent.put(key, { plan: plan("completed", "in_progress", "pending") });
    await until("tray title", () => tray().title.startsWith("1/3 "));
    // Written outside any run, the unfinished card is paused (R6): it needs a look.
    assert.match(tray().image, /attentionTemplate\.png$/);
    assert.ok(
      menuLabels().some((l) => / — paused at Step 2 \(1\/3\)$/.test(l)),
      menuLabels().join(" | "),
    );
    const imageCalls = tray().count("setImage");

    await agent.put(key, { plan: plan("completed", "completed", "completed") });
    await until("ready icon", () => /readyTemplate\.png$/.test(tray().image));
    assert.equal(tray().count("setImage"), imageCalls + 1, "setImage only when the icon changes");
    const done = await until("completion notice", () => f.notifications.find((n) => /complet/i.test(n.options.body ?? "")));
    assert.ok(done.shown);
    assert.ok(f.notifications.filter((n) => /complet/i.test(n.options.body ?? "")).length === 1, "one completion notice");
  });

  test("clicking the tray opens the popover under the icon; seeing the finished card clears 'ready'", async () => {
    tray().emit("click");
    const win = await until("popover window", popoverWindow);
    await until("popover visible", () => win.visible);
    assert.equal(win.urls[0], "app://desk/popover.html");
    assert.deepEqual(win.positions.at(-1), [821, 28, false], "centred under the icon (1000 + 11 − 190), just below the menu bar");
    assert.equal(win.options.webPreferences.sandbox, true);
    assert.equal(win.options.webPreferences.contextIsolation, true);
    assert.equal(win.options.webPreferences.nodeIntegration, false);
    await until("ready cleared", () => !/readyTemplate/.test(tray().image));

    // The click that blurs the popover must not reopen it.
    win.blur();
    assert.equal(win.visible, false);
    tray().emit("click");
    assert.equal(win.visible, false, "the blur's own click does not reopen");
    // A later click (the person's clock moves past the guard; the test does not sleep) opens it again.
    f.clock.advance(POPOVER_BLUR_GUARD_MS + 1);
    tray().emit("click");
    await until("reopened", () => win.visible);
    win.blur();
  });

  test("the right click pops up the menu, whose card rows open that card in the popover", async () => {
    tray().emit("right-click");
    const menu = tray().poppedUp.at(-1) as FakeMenu;
    const row = menu.items.find((i) => typeof i.label === "string" && /done \(3\/3\)/.test(i.label));
    assert.ok(row, menu.items.map((i) => i.label).join(" | "));
    (row.click as () => void)();
    const win = popoverWindow()!;
    await until("opened on the card", () => win.visible && win.urls.some((u) => u.includes("#card=")));
    const ref = JSON.parse(decodeURIComponent(win.urls.at(-1)!.split("#card=")[1]!));
    assert.equal(ref.gatewayId, shell.desk.gatewayIds()[0]);
    win.blur();
  });

  test("clicking a notification opens its card (N4); one the OS refuses becomes the tray's attention state (N7)", async () => {
    const key = await agent.createSession();
    let before = f.notifications.length;
    await agent.put(key, { plan: plan("completed", "in_progress") });
    const n = await until("new-card notice", () => f.notifications.slice(before).find((x) => x.shown));
    n.emit("click");
    const win = popoverWindow()!;
    const opened = (): string | null => {
      const hash = win.urls.at(-1)?.split("#card=")[1];
      return hash ? (JSON.parse(decodeURIComponent(hash)) as { sessionKey: string }).sessionKey : null;
    };
    await until("opened on the card", () => win.visible && opened() === key);
    win.blur();

    // Everything is seen now (the popover showed every card), so nothing asks for a look.
    await until("nothing asks", () => model().icon !== "attention" && model().badge === 0);

    // A finished card makes the icon "ready" (not attention) and is told by a notification.
    const key2 = await agent.createSession();
    before = f.notifications.length;
    await agent.put(key2, { plan: plan("completed", "completed") });
    const refused = await until("the completion notice", () =>
      f.notifications.slice(before).find((x) => x.shown && /^Completed/.test(x.options.body ?? "")),
    );
    await until("ready", () => model().icon === "ready");
    assert.equal(model().badge, 0, "a finished card alone is no badge");
    // The OS refuses it: the milestone must not be lost, the tray asks for a look instead.
    refused.emit("failed", fakeEvent(), "not authorized");
    await until("attention", () => model().icon === "attention");
    assert.equal(model().badge, 1);
    assert.match(tray().image, /attentionTemplate\.png$/);
    assert.match(model().tooltip, /1 item needs a look/);
  });
});

describe("open the session (issue 12) from the tray, a notice and a page", () => {
  test("each opens the session's Control UI link in the system browser, with no secret in it", async () => {
    const key = await agent.createSession();
    const link = sessionLink(gw.url, key)!;
    assert.ok(link, key);
    const before = f.notifications.length;
    await agent.put(key, { plan: plan("in_progress", "pending") });
    const notice = await until("its notice", () => f.notifications.slice(before).find((x) => x.shown && x.options.actions !== undefined));
    const opened = f.opened.length;
    // The notice's Open Session button (macOS is the fake's platform).
    notice.emit("action", fakeEvent(), 0);
    await until("opened from the notice", () => f.opened.length === opened + 1);
    // The tray's Open Session submenu.
    await until("its Open Session row", () => model().cards.some((r) => r.ref.sessionKey === key && r.hasSession));
    tray().emit("right-click");
    const menu = tray().poppedUp.at(-1) as FakeMenu;
    const sub = menu.items.find((i) => i.label === "Open Session")?.submenu as { label?: string; click?: () => void }[] | undefined;
    const row = sub?.find((i) => i.label === model().cards.find((r) => r.ref.sessionKey === key)!.label);
    assert.ok(row?.click, menu.items.map((i) => i.label).join(" | "));
    row.click();
    await until("opened from the tray", () => f.opened.length === opened + 2);
    // The verb from a page.
    await shell.openPage("popover");
    const win = popoverWindow()!;
    const ref: CardRef = { gatewayId: shell.desk.gatewayIds()[0]!, sessionKey: key, agentId: null };
    assert.equal(await f.invoke(win, "openSession", [ref]), true);
    assert.equal(await f.invoke(win, "openSession", [{ ...ref, gatewayId: "elsewhere" }]), false);
    win.blur();
    assert.deepEqual(f.opened.slice(opened), [link, link, link]);
    assert.ok(!f.opened.some((u) => u.includes(gw.token!)), "no token in any opened link");
  });
});

describe("pages over IPC", () => {
  test("a trusted page gets the snapshot; another frame, origin or window is refused and the service never runs", async () => {
    const win = popoverWindow()!;
    const snap = (await f.invoke(win, "snapshot", [])) as { gateways: unknown[] };
    assert.equal(snap.gateways.length, 1);
    await assert.rejects(f.invoke(win, "snapshot", [], { url: "https://evil.example/", parent: null }), /untrusted|Refused/i);
    await assert.rejects(f.invoke(win, "snapshot", [], { url: "app://desk/popover.html", parent: {} }), /Refused/);
    await assert.rejects(f.invoke(win, "snapshot", [], null), /Refused/);
    const { FakeWebContents } = await import("./fake-electron.ts");
    await assert.rejects(f.invoke(new FakeWebContents(), "snapshot", []), /Refused/);
    assert.ok(f.warnings.some((w) => /refused "snapshot"/.test(w)));
    await assert.rejects(
      f.invoke(win, "dismiss", [{ gatewayId: 1 }, 0, "x"]),
      /dismiss\(card, revision, confirmed\)/,
      "arguments are checked against the contract",
    );
  });

  test("events reach every open window; a Gateway token saved from Settings never reaches the store, the disk in clear, or a page", async () => {
    await f.invoke(popoverWindow()!, "openPage", ["settings"]);
    const win = f.windows.find((w) => w.urls[0]?.startsWith("app://desk/settings.html"))!;
    const sentBefore = win.webContents.sent.length;
    await f.invoke(win, "saveGateway", [{ label: "Work", color: "#0a84ff", url: "ws://127.0.0.1:1", token: "s3cret-token-value" }]);
    await until("settings event", () =>
      win.webContents.sent
        .slice(sentBefore)
        .some((m) => m.channel === "progress-desk:event" && (m.payload as { type: string }).type === "settings"),
    );
    const everything = JSON.stringify([...f.store.entries()]) + JSON.stringify(win.webContents.sent);
    assert.ok(!everything.includes("s3cret-token-value"));
    await shell.settings.flush();
    const file = join(home, "credentials.json");
    assert.ok(!readFileSync(file, "utf8").includes("s3cret-token-value"), "encrypted at rest");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const s = (await f.invoke(win, "getSettings", [])) as { gateways: { hasToken: boolean; id: string }[]; credentialStorage: string };
    assert.equal(s.gateways[0]!.hasToken, true);
    assert.equal(s.credentialStorage, "os-keychain", "safeStorage protects them here");
    // Back to the local Gateway for the rest of the file.
    await f.invoke(win, "removeGateway", [s.gateways[0]!.id]);
    await until("reconnected", () => shell.desk.snapshot().gateways[0]?.connection.state === "connected", 30_000);
  });

  test("links from a page open only in the system browser, and only http, https, mailto; windows never navigate", async () => {
    const win = popoverWindow()!;
    assert.equal(win.webContents.navigate("https://openclaw.ai/"), true, "no page navigates its window");
    assert.equal(win.webContents.navigate("https://openclaw.ai/", "will-redirect"), true);
    assert.equal(win.webContents.openHandler!({ url: "https://openclaw.ai/docs" }).action, "deny");
    assert.equal(win.webContents.openHandler!({ url: "javascript:alert(1)" }).action, "deny");
    assert.ok(f.opened.includes("https://openclaw.ai/docs"));
    assert.ok(!f.opened.some((u) => u.startsWith("javascript:")));
    assert.equal(await f.invoke(win, "openExternal", ["file:///etc/passwd"]), false);
    assert.equal(await f.invoke(win, "openExternal", ["mailto:team@example.com"]), true);
    assert.ok(f.opened.includes("mailto:team@example.com"));
  });
});

describe("dashboard, settings and the app (P3, S3)", () => {
  test("the dashboard opens at its saved frame, pins on top from Settings, and saves where it is moved", async () => {
    f.store.set("windows", { dashboard: { x: 100, y: 120, width: 700, height: 500 } });
    await shell.openPage("dashboard");
    const dash = f.windows.find((w) => w.urls[0] === "app://desk/dashboard.html")!;
    assert.deepEqual(dash.getBounds(), { x: 100, y: 120, width: 700, height: 500 });
    assert.equal(dash.onTop, false);
    shell.settings.update({ dashboardOnTop: true });
    assert.equal(dash.onTop, true);
    dash.moveTo({ x: 300, y: 200, width: 640, height: 480 });
    await until("frame saved", () => (f.store.get("windows") as Record<string, { x: number }>).dashboard?.x === 300);
    // Closing hides (the app keeps running); it is not destroyed.
    assert.equal(dash.userClose(), true, "the close is prevented");
    assert.equal(dash.visible, false);
    assert.equal(dash.destroyed, false);
  });

  test("shortcut and login item follow Settings; a taken shortcut is reported", async () => {
    shell.settings.update({ popoverShortcut: "CommandOrControl+Shift+P" });
    assert.ok(f.shortcuts.has("CommandOrControl+Shift+P"));
    f.takenShortcuts.add("Alt+Shift+K");
    shell.settings.update({ popoverShortcut: "Alt+Shift+K" });
    assert.equal(f.shortcuts.size, 0, "the old one is released");
    assert.ok(f.warnings.some((w) => /Alt\+Shift\+K is taken/.test(w)));
    shell.settings.update({ launchAtLogin: true });
    assert.deepEqual(f.loginItem, [false, true]);
  });

  test("waking from sleep reconnects at once (G3)", async () => {
    const id = shell.desk.gatewayIds()[0]!;
    const attempts = shell.desk.stats(id).attempts;
    f.power.emit("suspend");
    f.power.emit("resume");
    await until("a new attempt", () => shell.desk.stats(id).attempts > attempts);
    await until("connected again", () => shell.desk.snapshot().gateways[0]?.connection.state === "connected", 30_000);
  });

  test("Quit from the tray menu saves, closes every window for real, stops the core and quits", async () => {
    tray().emit("right-click");
    const menu = tray().poppedUp.at(-1) as FakeMenu;
    const quit = menu.items.find((i) => i.label === "Quit Progress Desk")!;
    assert.equal(quit.accelerator, "CommandOrControl+Q");
    (quit.click as () => void)();
    await until("quit", () => f.quits === 1);
    assert.ok(f.windows.every((w) => w.destroyed));
    assert.equal(tray().destroyed, true);
    assert.equal(f.ipc.size, 0, "IPC handlers removed");
    assert.ok(f.store.get("settings"), "settings saved through electron-store");
  });
});

describe("tray glyphs and the OS appearance", () => {
  // Its own shell with no Gateway listening (a closed port); which state the icon shows does
  // not matter here, only which set of glyphs it comes from.
  async function shellOn(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, dark: boolean) {
    const dir = mkdtempSync(join(tmpdir(), "pd-shell-theme-"));
    const fe = fakeElectron({
      dataDir: dir,
      platform,
      env: { OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", OPENCLAW_GATEWAY_TOKEN: "x".repeat(32), HOME: dir, ...env },
    });
    fe.theme.shouldUseDarkColors = dark;
    const s = await startShell(fe.deps);
    return {
      fe,
      s,
      stop: async () => {
        await s.shutdown();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  test("Linux (KDE): black glyphs on a light theme, white after a switch to dark, and back", async () => {
    const { fe, stop } = await shellOn("linux", { XDG_CURRENT_DESKTOP: "KDE" }, false);
    try {
      const t = fe.trays[0]!;
      assert.match(t.image, /Template\.png$/);
      fe.theme.set(true);
      assert.match(t.image, /White\.png$/);
      const calls = t.count("setImage");
      fe.theme.set(true); // "updated" fires for other reasons too: nothing changes, nothing is set
      assert.equal(t.count("setImage"), calls);
      fe.theme.set(false);
      assert.match(t.image, /Template\.png$/);
    } finally {
      await stop();
    }
  });

  test("GNOME's top bar is dark whatever the theme: white glyphs from the start", async () => {
    const { fe, stop } = await shellOn("linux", { XDG_CURRENT_DESKTOP: "ubuntu:GNOME" }, false);
    try {
      assert.match(fe.trays[0]!.image, /White\.png$/);
    } finally {
      await stop();
    }
  });

  test("macOS: always the template image, which the system tints; a theme switch sets nothing", async () => {
    const { fe, stop } = await shellOn("darwin", {}, true);
    try {
      const t = fe.trays[0]!;
      assert.match(t.image, /Template\.png$/);
      const calls = t.count("setImage");
      fe.theme.set(false);
      assert.equal(t.count("setImage"), calls);
      assert.match(t.image, /Template\.png$/);
    } finally {
      await stop();
    }
  });
});
