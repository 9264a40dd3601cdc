// The dashboard and Settings windows (main/electron/page-window.ts): created on first open at a restored frame, closing hides (quitting closes), hidden ones destroyed after ten minutes, frames saved after a debounce, always-on-top applied only on change. FAKE windows stand in for Electron; time is a FakeClock.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PageWindowController, type PageWindow, type PageWindowDeps } from "../../main/electron/page-window.ts";
import type { Rect } from "../../main/electron/window-geometry.ts";
import { FakeClock } from "../unit/fake-clock.ts";
import { FakeWindow } from "./fake-electron.ts";

const A: Rect = { x: 0, y: 0, width: 1440, height: 900 };
const PREFERRED = { width: 900, height: 640 };
const TEN_MINUTES = 10 * 60_000;

function setup(opts: Partial<PageWindowDeps> & { saved?: Rect | null; noSave?: boolean } = {}) {
  const clock = new FakeClock();
  const windows: FakeWindow[] = [];
  const created: Rect[] = [];
  const saved: Rect[] = [];
  const state = { quitting: false, onTop: false, saved: opts.saved ?? null };
  const { saved: _s, noSave, ...rest } = opts;
  const controller = new PageWindowController({
    page: "dashboard",
    createWindow: (bounds) => {
      created.push(bounds);
      const w = new FakeWindow(bounds);
      windows.push(w);
      return w as unknown as PageWindow;
    },
    workAreas: () => [A],
    preferred: PREFERRED,
    loadBounds: () => state.saved,
    ...(noSave ? {} : { saveBounds: (b: Rect) => void saved.push(b) }),
    onTop: () => state.onTop,
    quitting: () => state.quitting,
    schedule: clock.schedule,
    ...rest,
  });
  const win = (i = 0): FakeWindow => {
    const w = windows[i];
    assert.ok(w, `window ${i} exists`);
    return w;
  };
  return { controller, clock, windows, created, saved, state, win };
}

describe("PageWindowController: creating and opening", () => {
  test("nothing is created before open; the idle calls are harmless", () => {
    const { controller, windows, saved, clock } = setup();
    assert.equal(controller.window(), null);
    assert.equal(controller.isFocused(), false);
    controller.applyOnTop(true);
    controller.destroy();
    assert.equal(windows.length, 0);
    assert.deepEqual(saved, []);
    assert.equal(clock.pending, 0);
  });

  test("open creates the window at the saved frame, loads the page, shows and focuses it", async () => {
    const { controller, created, win } = setup({ saved: { x: 100, y: 120, width: 800, height: 600 } });
    await controller.open();
    assert.deepEqual(created, [{ x: 100, y: 120, width: 800, height: 600 }]);
    assert.deepEqual(win().calls, ["loadURL", "show", "focus"]);
    assert.deepEqual(win().urls, ["app://desk/dashboard.html"]);
    assert.equal(controller.window(), win());
    assert.equal(controller.isFocused(), true);
  });

  test("the Settings page loads its own URL", async () => {
    const { controller, win } = setup({ page: "settings" });
    await controller.open();
    assert.deepEqual(win().urls, ["app://desk/settings.html"]);
  });

  test("without a saved frame it is centred at the preferred size", async () => {
    const { controller, created } = setup();
    await controller.open();
    assert.deepEqual(created, [{ x: 270, y: 130, width: 900, height: 640 }]);
  });

  test("a frame saved on a display that is gone is brought back onto the primary", async () => {
    const { controller, created } = setup({ saved: { x: 3000, y: 200, width: 800, height: 600 } });
    await controller.open();
    assert.deepEqual(created, [{ x: 320, y: 150, width: 800, height: 600 }]);
  });

  test("opening again reuses the window without reloading it", async () => {
    const { controller, windows, win } = setup();
    await controller.open();
    await controller.open();
    assert.equal(windows.length, 1);
    assert.deepEqual(win().calls, ["loadURL", "show", "focus", "show", "focus"]);
  });

  test("a pinned dashboard is created floating on top", async () => {
    const { controller, state, win } = setup();
    state.onTop = true;
    await controller.open();
    assert.deepEqual(win().onTopCalls, [[true, "floating"]]);
    assert.deepEqual(win().calls, ["setAlwaysOnTop", "loadURL", "show", "focus"]);
  });

  test("an unpinned one never touches always-on-top", async () => {
    const { controller, win } = setup();
    await controller.open();
    assert.deepEqual(win().onTopCalls, []);
  });

  test("a window destroyed while loading is not shown", async () => {
    const { controller, windows } = setup();
    const opening = controller.open();
    windows[0]!.destroy();
    await opening;
    assert.deepEqual(windows[0]!.calls, ["loadURL", "destroy"]);
    assert.equal(controller.window(), null);
  });
});

describe("PageWindowController: closing", () => {
  test("closing while running hides instead, and destroys it after ten minutes hidden", async () => {
    const { controller, clock, windows, win } = setup();
    await controller.open();
    assert.equal(win().userClose(), true, "close prevented");
    assert.equal(win().calls.at(-1), "hide");
    assert.equal(win().destroyed, false);
    assert.equal(controller.window(), win());
    assert.deepEqual(clock.requested, [TEN_MINUTES]);
    clock.advance(TEN_MINUTES - 1);
    assert.equal(win().destroyed, false);
    clock.advance(1);
    assert.equal(win().destroyed, true);
    assert.equal(controller.window(), null);

    await controller.open();
    assert.equal(windows.length, 2);
    assert.deepEqual(win(1).calls, ["loadURL", "show", "focus"]);
  });

  test("reopening within the ten minutes keeps the window", async () => {
    const { controller, clock, windows, win } = setup();
    await controller.open();
    win().userClose();
    clock.advance(5 * 60_000);
    await controller.open();
    assert.equal(clock.pending, 0);
    clock.advance(TEN_MINUTES);
    assert.equal(win().destroyed, false);
    assert.equal(windows.length, 1);
    assert.equal(win().visible, true);
  });

  test("closing again restarts the timer; one timer at a time", async () => {
    const { controller, clock, win } = setup();
    await controller.open();
    win().userClose();
    clock.advance(9 * 60_000);
    await controller.open();
    win().userClose();
    assert.equal(clock.pending, 1);
    clock.advance(9 * 60_000);
    assert.equal(win().destroyed, false);
    clock.advance(60_000);
    assert.equal(win().destroyed, true);
  });

  test("the idle delay can be changed", async () => {
    const { controller, clock, win } = setup({ idleDestroyMs: 500 });
    await controller.open();
    win().userClose();
    assert.deepEqual(clock.requested, [500]);
    clock.advance(500);
    assert.equal(win().destroyed, true);
  });

  test("closing while quitting is not prevented, and the frame is saved once", async () => {
    const { controller, state, saved, clock, win } = setup();
    await controller.open();
    state.quitting = true;
    win().bounds = { x: 10, y: 20, width: 700, height: 500 };
    assert.equal(win().userClose(), false, "close not prevented");
    assert.equal(win().destroyed, true);
    assert.equal(controller.window(), null);
    assert.deepEqual(saved, [{ x: 10, y: 20, width: 700, height: 500 }]);
    assert.equal(clock.pending, 0);
  });

  test("closing saves the frame at once, even within a pending debounce", async () => {
    const { controller, saved, clock, win } = setup();
    await controller.open();
    win().moveTo({ x: 50 });
    win().userClose();
    assert.deepEqual(saved, [{ x: 50, y: 130, width: 900, height: 640 }]);
    clock.advance(400);
    assert.deepEqual(saved, [{ x: 50, y: 130, width: 900, height: 640 }], "the debounced save was folded into the close");
  });

  test("a window closed from outside is forgotten", async () => {
    const { controller, windows, win } = setup();
    await controller.open();
    win().destroy();
    assert.equal(controller.window(), null);
    await controller.open();
    assert.equal(windows.length, 2);
  });

  test("destroy() saves the latest frame, destroys, and leaves no timer behind", async () => {
    const { controller, clock, saved, win } = setup();
    await controller.open();
    win().moveTo({ x: 77, y: 88 }, "move");
    controller.destroy();
    assert.deepEqual(saved, [{ x: 77, y: 88, width: 900, height: 640 }]);
    assert.equal(win().destroyed, true);
    assert.equal(controller.window(), null);
    assert.equal(clock.pending, 0);
  });
});

describe("PageWindowController: saving the frame", () => {
  test("a burst of moves and resizes saves once, 400 ms after the last, with the final frame", async () => {
    const { controller, clock, saved, win } = setup();
    await controller.open();
    win().moveTo({ x: 10 }, "move");
    clock.advance(100);
    win().moveTo({ x: 20 }, "move");
    clock.advance(300);
    win().moveTo({ width: 1000, height: 700 }, "resize");
    clock.advance(399);
    assert.deepEqual(saved, []);
    assert.equal(clock.pending, 1);
    clock.advance(1);
    assert.deepEqual(saved, [{ x: 20, y: 130, width: 1000, height: 700 }]);
    assert.equal(clock.pending, 0);
  });

  test("two bursts apart save twice", async () => {
    const { controller, clock, saved, win } = setup();
    await controller.open();
    win().moveTo({ x: 1 });
    clock.advance(400);
    win().moveTo({ x: 2 }, "resize");
    clock.advance(400);
    assert.deepEqual(
      saved.map((b) => b.x),
      [1, 2],
    );
  });

  test("without saveBounds nothing is scheduled on move", async () => {
    const { controller, clock, win } = setup({ noSave: true });
    await controller.open();
    win().moveTo({ x: 5 });
    win().moveTo({ width: 1000 }, "resize");
    assert.equal(clock.pending, 0);
    assert.equal(win().userClose(), true);
  });
});

describe("PageWindowController: always on top", () => {
  test("setAlwaysOnTop is called only when the state changes, at the floating level", async () => {
    const { controller, win } = setup();
    await controller.open();
    controller.applyOnTop(false);
    assert.deepEqual(win().onTopCalls, []);
    controller.applyOnTop(true);
    controller.applyOnTop(true);
    assert.deepEqual(win().onTopCalls, [[true, "floating"]]);
    controller.applyOnTop(false);
    controller.applyOnTop(false);
    assert.deepEqual(win().onTopCalls, [
      [true, "floating"],
      [false, "floating"],
    ]);
  });

  test("after the window is destroyed applyOnTop does nothing", async () => {
    const { controller, win } = setup();
    await controller.open();
    controller.destroy();
    controller.applyOnTop(true);
    assert.deepEqual(win().onTopCalls, []);
  });
});
