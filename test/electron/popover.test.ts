// The tray popover's lifecycle (main/electron/popover.ts): created on first open, placed under the tray icon, hidden on blur with a click guard, destroyed after ten idle minutes. FAKE windows and a FAKE screen stand in for Electron; time is a manual scheduler.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Screen } from "electron";
import {
  POPOVER_BLUR_GUARD_MS,
  POPOVER_IDLE_DESTROY_MS,
  PopoverController,
  type PopoverDeps,
  type PopoverWindow,
} from "../../main/electron/popover.ts";
import type { Rect } from "../../main/electron/window-geometry.ts";
import type { CardRef } from "../../common/contract.ts";
import { FakeClock } from "../unit/fake-clock.ts";
import { FakeWindow } from "./fake-electron.ts";

const MAC: Rect = { x: 0, y: 25, width: 1440, height: 875 };
const TRAY: Rect = { x: 1000, y: 0, width: 24, height: 22 };
const card: CardRef = { gatewayId: "home", sessionKey: "agent:main:main#1", agentId: "main" };

/** Lets the awaited loadURL inside show() finish. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(opts: Partial<PopoverDeps> & { workArea?: Rect; cursor?: { x: number; y: number } } = {}) {
  const clock = new FakeClock();
  const windows: FakeWindow[] = [];
  const matched: Rect[] = [];
  const events: string[] = [];
  const state = { tray: { ...TRAY }, keepOpen: false, size: [380, 560] as [number, number], failLoad: false };
  // A FAKE screen: one display whose work area is given.
  const screen = {
    getDisplayMatching: (rect: Rect) => {
      matched.push(rect);
      return { workArea: opts.workArea ?? MAC };
    },
    getDisplayNearestPoint: () => ({ workArea: opts.workArea ?? MAC }),
    getCursorScreenPoint: () => opts.cursor ?? { x: 0, y: 0 },
  };
  const popover = new PopoverController({
    createWindow: () => {
      const w = new FakeWindow({ x: 0, y: 0, width: state.size[0], height: state.size[1] });
      w.failLoad = state.failLoad;
      windows.push(w);
      return w as unknown as PopoverWindow;
    },
    screen: screen as unknown as Pick<Screen, "getDisplayMatching" | "getDisplayNearestPoint" | "getCursorScreenPoint">,
    trayBounds: () => state.tray,
    schedule: clock.schedule,
    now: () => clock.now,
    onShow: () => events.push("onShow"),
    onHide: () => events.push("onHide"),
    keepOpenOnBlur: () => state.keepOpen,
    ...opts,
  });
  const last = (): FakeWindow => {
    const w = windows.at(-1);
    assert.ok(w, "a window was created");
    return w;
  };
  return { popover, clock, windows, matched, events, state, last };
}

describe("PopoverController: creation and placement", () => {
  test("no window exists before the first show", async () => {
    const { popover, windows } = setup();
    assert.equal(windows.length, 0);
    assert.equal(popover.window(), null);
    assert.equal(popover.isVisible(), false);
    assert.equal(popover.isFocused(), false);
    popover.hide();
    popover.destroy();
    assert.equal(windows.length, 0);
  });

  test("the first show creates the window, loads the popover page, places, shows and focuses it", async () => {
    const { popover, windows, events, matched, last } = setup();
    await popover.show();
    assert.equal(windows.length, 1);
    const w = last();
    assert.deepEqual(w.calls, ["setVisibleOnAllWorkspaces", "loadURL", "setPosition", "show", "focus"]);
    assert.deepEqual(w.workspaces, [[true, { skipTransformProcessType: true }]]);
    assert.deepEqual(w.urls, ["app://desk/popover.html"]);
    assert.deepEqual(matched, [TRAY]);
    assert.deepEqual(w.positions, [[822, 26, false]]);
    assert.deepEqual(events, ["onShow"]);
    assert.equal(popover.window(), w);
    assert.equal(popover.isVisible(), true);
    assert.equal(popover.isFocused(), true);
  });

  test("the position is clamped into the display's work area", async () => {
    const { popover, state, last } = setup();
    state.tray = { x: 1420, y: 0, width: 24, height: 22 };
    await popover.show();
    assert.deepEqual(last().positions, [[1052, 26, false]]);
  });

  test("the window's own size is used for placement", async () => {
    const { popover, state, last } = setup();
    state.size = [400, 300];
    await popover.show();
    // 1000 + 12 - 200
    assert.deepEqual(last().positions, [[812, 26, false]]);
  });

  test("a bottom taskbar icon puts the popover above it", async () => {
    const { popover, state, last } = setup({ workArea: { x: 0, y: 0, width: 1920, height: 1040 } });
    state.tray = { x: 900, y: 1040, width: 24, height: 40 };
    await popover.show();
    assert.deepEqual(last().positions, [[722, 476, false]]);
  });

  test("zero tray bounds (some Linux panels) open at the pointer", async () => {
    const { popover, state, matched, last } = setup({ workArea: { x: 0, y: 0, width: 1920, height: 1080 }, cursor: { x: 500, y: 300 } });
    state.tray = { x: 0, y: 0, width: 0, height: 0 };
    await popover.show();
    assert.deepEqual(matched, [{ x: 500, y: 300, width: 1, height: 1 }]);
    // x = 500 + 0.5 - 190 = 310.5 → 311; y = 300 + 1 + 4
    assert.deepEqual(last().positions, [[311, 305, false]]);
  });

  test("showing again reuses the window without reloading, placed under the tray's current position", async () => {
    const { popover, windows, state, last } = setup();
    await popover.show();
    popover.hide();
    state.tray = { x: 400, y: 0, width: 24, height: 22 };
    await popover.show();
    assert.equal(windows.length, 1);
    const w = last();
    assert.deepEqual(w.urls, ["app://desk/popover.html"]);
    assert.deepEqual(w.workspaces.length, 1);
    assert.deepEqual(w.positions, [
      [822, 26, false],
      [222, 26, false],
    ]);
  });

  test("show(card) on a fresh window loads the page with the card in the hash, once", async () => {
    const { popover, last } = setup();
    await popover.show(card);
    assert.deepEqual(last().urls, [`app://desk/popover.html#card=${encodeURIComponent(JSON.stringify(card))}`]);
    assert.equal(popover.isVisible(), true);
  });

  test("show(card) on an open window loads the card URL into it", async () => {
    const { popover, windows, last } = setup();
    await popover.show();
    await popover.show(card);
    assert.equal(windows.length, 1);
    assert.deepEqual(last().urls, ["app://desk/popover.html", `app://desk/popover.html#card=${encodeURIComponent(JSON.stringify(card))}`]);
  });

  test("a page that fails to load still opens the window (the page shows its own error)", async () => {
    const { popover, last, state, events } = setup();
    state.failLoad = true;
    await popover.show();
    assert.deepEqual(last().calls, ["setVisibleOnAllWorkspaces", "loadURL", "setPosition", "show", "focus"]);
    assert.equal(popover.isVisible(), true);
    assert.deepEqual(events, ["onShow"]);
  });

  test("a window destroyed while loading is not shown", async () => {
    const { popover, last, events } = setup();
    const shown = popover.show();
    last().destroy();
    await shown;
    assert.deepEqual(last().calls, ["setVisibleOnAllWorkspaces", "loadURL", "destroy"]);
    assert.deepEqual(events, []);
    assert.equal(popover.window(), null);
  });
});

describe("PopoverController: blur, toggle and the click guard", () => {
  test("losing focus hides it", async () => {
    const { popover, events, last } = setup();
    await popover.show();
    last().emit("blur");
    assert.equal(popover.isVisible(), false);
    assert.equal(last().calls.at(-1), "hide");
    assert.deepEqual(events, ["onShow", "onHide"]);
  });

  test("keepOpenOnBlur keeps it open", async () => {
    const { popover, state, last, events } = setup();
    state.keepOpen = true;
    await popover.show();
    last().emit("blur");
    assert.equal(popover.isVisible(), true);
    assert.deepEqual(events, ["onShow"]);
    // No guard was armed: a toggle now closes it, and the next one reopens at once.
    popover.toggle();
    assert.equal(popover.isVisible(), false);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), true);
  });

  test("the tray click that caused the blur does not reopen it; a later click does", async () => {
    const { popover, clock, last, events } = setup();
    await popover.show();
    last().emit("blur");
    clock.advance(POPOVER_BLUR_GUARD_MS - 1);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), false);
    assert.deepEqual(events, ["onShow", "onHide"]);
    clock.advance(1);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), true);
    assert.deepEqual(events, ["onShow", "onHide", "onShow"]);
  });

  test("the guard is 300 ms by default and can be changed", async () => {
    assert.equal(POPOVER_BLUR_GUARD_MS, 300);
    const { popover, clock, last } = setup({ blurGuardMs: 50 });
    await popover.show();
    last().emit("blur");
    clock.advance(49);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), false);
    clock.advance(1);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), true);
  });

  test("toggle closes an open popover, and reopens at once when it was not closed by blur", async () => {
    const { popover, events, windows } = setup();
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), true);
    popover.toggle();
    assert.equal(popover.isVisible(), false);
    popover.toggle();
    await settle();
    assert.equal(popover.isVisible(), true);
    assert.equal(windows.length, 1);
    assert.deepEqual(events, ["onShow", "onHide", "onShow"]);
  });

  test("show() itself is not guarded (a notification click opens it right after a blur)", async () => {
    const { popover, last } = setup();
    await popover.show();
    last().emit("blur");
    await popover.show(card);
    assert.equal(popover.isVisible(), true);
  });

  test("hide() on a hidden popover does nothing", async () => {
    const { popover, events, clock, last } = setup();
    await popover.show();
    popover.hide();
    const pending = clock.pending;
    popover.hide();
    assert.deepEqual(events, ["onShow", "onHide"]);
    assert.equal(last().calls.filter((c) => c === "hide").length, 1);
    assert.equal(clock.pending, pending);
  });
});

describe("PopoverController: idle destruction", () => {
  test("ten minutes hidden destroys the window; the next show creates a new one", async () => {
    assert.equal(POPOVER_IDLE_DESTROY_MS, 600_000);
    const { popover, clock, windows } = setup();
    await popover.show();
    popover.hide();
    assert.deepEqual(clock.requested, [600_000]);
    clock.advance(POPOVER_IDLE_DESTROY_MS - 1);
    assert.equal(windows[0]?.destroyed, false);
    clock.advance(1);
    assert.equal(windows[0]?.destroyed, true);
    assert.equal(popover.window(), null);
    assert.equal(popover.isVisible(), false);

    await popover.show();
    assert.equal(windows.length, 2);
    const fresh = windows[1]!;
    assert.deepEqual(fresh.calls, ["setVisibleOnAllWorkspaces", "loadURL", "setPosition", "show", "focus"]);
    assert.deepEqual(fresh.urls, ["app://desk/popover.html"]);
    assert.equal(popover.window(), fresh);
  });

  test("blur-hiding also starts the idle timer", async () => {
    const { popover, clock, windows } = setup();
    await popover.show();
    windows[0]!.emit("blur");
    clock.advance(POPOVER_IDLE_DESTROY_MS);
    assert.equal(windows[0]?.destroyed, true);
  });

  test("showing again before the timer fires cancels it", async () => {
    const { popover, clock, windows } = setup();
    await popover.show();
    popover.hide();
    clock.advance(9 * 60_000);
    await popover.show();
    assert.equal(clock.pending, 0);
    clock.advance(2 * 60_000);
    assert.equal(windows[0]?.destroyed, false);
    assert.equal(popover.isVisible(), true);
    assert.equal(windows.length, 1);
  });

  test("each hide restarts the ten minutes, with one timer at a time", async () => {
    const { popover, clock, windows } = setup();
    await popover.show();
    popover.hide();
    clock.advance(5 * 60_000);
    await popover.show();
    popover.hide();
    assert.equal(clock.pending, 1);
    clock.advance(9 * 60_000);
    assert.equal(windows[0]?.destroyed, false);
    clock.advance(60_000);
    assert.equal(windows[0]?.destroyed, true);
  });

  test("the idle delay can be changed", async () => {
    const { popover, clock, windows } = setup({ idleDestroyMs: 1000 });
    await popover.show();
    popover.hide();
    assert.deepEqual(clock.requested, [1000]);
    clock.advance(1000);
    assert.equal(windows[0]?.destroyed, true);
  });

  test("a window closed from outside is forgotten and re-created on the next show", async () => {
    const { popover, windows } = setup();
    await popover.show();
    windows[0]!.destroy();
    assert.equal(popover.window(), null);
    await popover.show();
    assert.equal(windows.length, 2);
    assert.equal(popover.isVisible(), true);
  });

  test("destroy() closes the window and cancels the timer", async () => {
    const { popover, clock, windows } = setup();
    await popover.show();
    popover.hide();
    popover.destroy();
    assert.equal(windows[0]?.destroyed, true);
    assert.equal(clock.pending, 0);
    assert.equal(popover.window(), null);
  });
});
