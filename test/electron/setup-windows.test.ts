// The shell's windows (main/electron/setup/windows.ts): created hidden and locked down, only
// when opened; the popover under the tray icon; opening a card marks it seen; the dashboard
// follows "keep on top"; which contents are ours. The FAKE Electron kit for windows and
// screen, FAKE settings, ManualTimers for time: no Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { WebContents } from "electron";
import type { CardRef } from "../../common/contract.ts";
import { setupWindows } from "../../main/electron/setup/windows.ts";
import type { Rect } from "../../main/electron/window-geometry.ts";
import { ManualTimers } from "../unit/manual-timers.ts";
import { fakeElectron, FakeWebContents, type FakeWindow } from "./fake-electron.ts";
import { FakeSettings } from "./setup-support.ts";

const CARD: CardRef = { gatewayId: "home", sessionKey: "agent:main:a", agentId: null };

/** Lets the awaited loadURL inside an open finish. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(opts: { onTop?: boolean; platform?: NodeJS.Platform } = {}) {
  const f = fakeElectron({ dataDir: "unused", env: {}, platform: opts.platform ?? "darwin" });
  const settings = new FakeSettings({ dashboardOnTop: opts.onTop ?? false });
  const timers = new ManualTimers();
  const seen: string[] = [];
  const frames = new Map<string, Rect>();
  const state = { quitting: false, tray: { x: 1000, y: 0, width: 22, height: 24 } as Rect };
  const windows = setupWindows({
    ...f.deps,
    settings,
    frames: { load: (name) => frames.get(name) ?? null, save: (name, b) => void frames.set(name, b) },
    attention: {
      seeCards: (refs) => void seen.push(...refs.map((r) => `card ${r.sessionKey}`)),
      seePopover: () => void seen.push("popover"),
    },
    trayBounds: () => state.tray,
    isQuitting: () => state.quitting,
    now: () => 0,
    schedule: timers.schedule,
  });
  const windowOf = (page: string): FakeWindow | undefined => f.windows.find((w) => w.urls[0]?.startsWith(`app://desk/${page}.html`));
  return { f, settings, timers, seen, frames, state, windows, windowOf };
}

describe("windows: created on demand, locked down", () => {
  test("nothing exists before a page is opened", () => {
    const { f } = setup();
    assert.equal(f.windows.length, 0);
  });

  test("every window is created hidden, sandboxed and unable to navigate; links go to the system browser", async () => {
    const { f, windows } = setup();
    await windows.openPage("popover");
    await windows.openPage("dashboard");
    await windows.openPage("settings");
    assert.equal(f.windows.length, 3);
    for (const w of f.windows) {
      assert.equal(w.options.show, false);
      assert.equal(w.options.webPreferences.sandbox, true);
      assert.equal(w.options.webPreferences.contextIsolation, true);
      assert.equal(w.options.webPreferences.nodeIntegration, false);
      assert.equal(w.options.webPreferences.preload, "dist/preload/preload.cjs");
      assert.equal(w.webContents.navigate("https://example.com/"), true, "navigation is prevented");
      assert.deepEqual(w.webContents.open("https://example.com/docs"), { action: "deny" });
    }
    await settle();
    // The window stays put; the link (navigated to or opened) goes to the system browser.
    assert.deepEqual(f.opened, Array(3).fill(["https://example.com/", "https://example.com/docs"]).flat());
  });

  test("the popover is a panel on macOS only, and opens under the tray icon", async () => {
    const mac = setup();
    await mac.windows.openPage("popover");
    const pop = mac.windowOf("popover")!;
    assert.equal(pop.options.type, "panel");
    assert.equal(pop.options.alwaysOnTop, true);
    assert.deepEqual(pop.positions.at(-1), [821, 28, false], "centred under the icon (1000 + 11 − 190), below the menu bar");

    const linux = setup({ platform: "linux" });
    await linux.windows.openPage("popover");
    assert.equal(linux.windowOf("popover")!.options.type, undefined);
  });

  test("the dashboard opens at its saved frame and saves where it is moved", async () => {
    const { windows, frames, windowOf, timers } = setup();
    frames.set("dashboard", { x: 100, y: 120, width: 700, height: 500 });
    await windows.openPage("dashboard");
    const dash = windowOf("dashboard")!;
    assert.deepEqual(dash.getBounds(), { x: 100, y: 120, width: 700, height: 500 });
    dash.moveTo({ x: 300 });
    timers.fireNext();
    assert.equal(frames.get("dashboard")?.x, 300);
  });
});

describe("windows: what the person sees", () => {
  test("opening the popover on a card marks that card seen before it shows; any popover showing is seen", async () => {
    const { windows, seen, windowOf } = setup();
    const shown = windows.openPage("popover", CARD);
    assert.deepEqual(seen, ["card agent:main:a"], "the card is seen at once");
    await shown;
    assert.deepEqual(seen, ["card agent:main:a", "popover"]);
    assert.match(windowOf("popover")!.urls.at(-1)!, /#card=/);
    windowOf("popover")!.blur();
    await windows.openPage("popover");
    assert.deepEqual(seen, ["card agent:main:a", "popover", "popover"]);
  });

  test("a needs-you entry (tray row, notice click) opens the popover at it: #need=<its Gateway and id>", async () => {
    const { windows, windowOf } = setup();
    await windows.openNeed({ gatewayId: "home", id: "appr-1" });
    const win = windowOf("popover")!;
    assert.equal(win.visible, true);
    const hash = win.urls.at(-1)!.split("#need=")[1];
    assert.ok(hash, win.urls.at(-1));
    assert.deepEqual(JSON.parse(decodeURIComponent(hash)), { gatewayId: "home", id: "appr-1" });
  });

  test("the dashboard is kept on top when Settings say so, from creation and on every change", async () => {
    const { windows, settings, windowOf } = setup({ onTop: true });
    await windows.openPage("dashboard");
    const dash = windowOf("dashboard")!;
    assert.equal(dash.onTop, true, "created on top");
    settings.update({ dashboardOnTop: false });
    assert.equal(dash.onTop, false);
    settings.update({ dashboardOnTop: true });
    assert.equal(dash.onTop, true);
    assert.deepEqual(dash.onTopCalls, [
      [true, "floating"],
      [false, "floating"],
      [true, "floating"],
    ]);
  });
});

describe("windows: ours, and quitting", () => {
  test("only the contents of our open windows are ours; a closed window's are not", async () => {
    const { windows, windowOf } = setup();
    await windows.openPage("popover");
    await windows.openPage("settings");
    const pop = windowOf("popover")!;
    const ours = (c: FakeWebContents) => windows.isOurContents(c as unknown as WebContents);
    assert.equal(ours(pop.webContents), true);
    assert.equal(ours(windowOf("settings")!.webContents), true);
    assert.equal(ours(new FakeWebContents()), false);
    assert.equal(windows.contents().length, 2);
    pop.destroy();
    assert.equal(ours(pop.webContents), false);
    assert.equal(windows.contents().length, 1);
  });

  test("closing the dashboard hides it; quitting closes every window for real and stops following Settings", async () => {
    const { windows, settings, state, windowOf, f } = setup();
    await windows.openPage("dashboard");
    const dash = windowOf("dashboard")!;
    assert.equal(dash.userClose(), true, "closing hides");
    assert.equal(dash.destroyed, false);
    await windows.openPage("popover");
    state.quitting = true;
    windows.dispose();
    assert.ok(f.windows.every((w) => w.destroyed));
    assert.equal(settings.listenerCount(), 0);
  });
});
