// The operating system's side (main/electron/setup/system-hooks.ts): the idle poller that
// says away after five idle minutes and back on activity, sleep and the lock screen, the
// global shortcut and the login item following Settings. The FAKE Electron kit's power
// monitor and shortcuts, FAKE settings, ManualTimers for the poll: no Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AWAY_IDLE_SECONDS, DEFAULT_IDLE_POLL_MS, setupSystemHooks } from "../../main/electron/setup/system-hooks.ts";
import { ManualTimers } from "../unit/manual-timers.ts";
import { fakeElectron } from "./fake-electron.ts";
import { FakeSettings } from "./setup-support.ts";

function setup(opts: { idlePollMs?: number; shortcut?: string } = {}) {
  const f = fakeElectron({ dataDir: "unused", env: {} });
  const settings = new FakeSettings({ popoverShortcut: opts.shortcut ?? "" });
  const timers = new ManualTimers();
  const said: string[] = [];
  const { idlePollMs: _unused, ...deps } = f.deps;
  const hooks = setupSystemHooks({
    ...deps,
    ...("idlePollMs" in opts ? { idlePollMs: opts.idlePollMs } : {}),
    settings,
    togglePopover: () => void said.push("toggle"),
    presence: { away: () => void said.push("away"), back: () => void said.push("back") },
    wake: () => void said.push("wake"),
    schedule: timers.schedule,
  });
  return { f, settings, timers, said, hooks };
}

describe("system hooks: the idle poller (N6)", () => {
  test("reads the idle time every interval; five idle minutes is away once, activity again is back once", () => {
    const { f, timers, said } = setup({ idlePollMs: 40 });
    assert.deepEqual(timers.pending(), [40], "the first read is one interval away");
    assert.equal(f.power.idleQueries, 0);

    f.power.idleSeconds = AWAY_IDLE_SECONDS - 1;
    assert.equal(timers.fireNext(), 40);
    assert.equal(f.power.idleQueries, 1);
    assert.deepEqual(said, [], "idle, but not long enough");
    assert.deepEqual(timers.pending(), [40], "and it reads again");

    f.power.idleSeconds = AWAY_IDLE_SECONDS;
    timers.fireNext();
    assert.deepEqual(said, ["away"]);
    f.power.idleSeconds = AWAY_IDLE_SECONDS + 120;
    timers.fireNext();
    assert.deepEqual(said, ["away"], "still away: not told twice");

    f.power.idleSeconds = 0;
    timers.fireNext();
    assert.deepEqual(said, ["away", "back"], "back without a wake: the machine never slept");
    timers.fireNext();
    assert.deepEqual(said, ["away", "back"]);
    assert.equal(f.power.idleQueries, 5);
  });

  test("reads once a minute unless told otherwise; 0 turns it off", () => {
    assert.deepEqual(setup({}).timers.pending(), [DEFAULT_IDLE_POLL_MS]);
    const off = setup({ idlePollMs: 0 });
    assert.deepEqual(off.timers.pending(), []);
    assert.equal(off.f.power.idleQueries, 0);
  });

  test("dispose stops the poller", () => {
    const { timers, hooks } = setup({ idlePollMs: 40 });
    timers.fireNext();
    hooks.dispose();
    assert.deepEqual(timers.pending(), []);
  });
});

describe("system hooks: sleep and the lock screen", () => {
  test("sleep or locking is away; waking or unlocking reconnects, then is back", () => {
    const { f, said } = setup({ idlePollMs: 0 });
    f.power.emit("suspend");
    f.power.emit("resume");
    f.power.emit("lock-screen");
    f.power.emit("unlock-screen");
    assert.deepEqual(said, ["away", "wake", "back", "away", "wake", "back"]);
  });
});

describe("system hooks: shortcut and login item from Settings", () => {
  test("the shortcut saved in Settings is registered at start and opens the popover", () => {
    const { f, said, hooks } = setup({ idlePollMs: 0, shortcut: "CommandOrControl+Shift+P" });
    assert.equal(hooks.shortcut(), "CommandOrControl+Shift+P");
    f.shortcuts.get("CommandOrControl+Shift+P")!();
    assert.deepEqual(said, ["toggle"]);
  });

  test("a new shortcut releases the old; one another app holds is reported and none is kept; clearing releases it", () => {
    const { f, settings, hooks } = setup({ idlePollMs: 0, shortcut: "CommandOrControl+Shift+P" });
    settings.update({ popoverShortcut: "Alt+Shift+P" });
    assert.deepEqual([...f.shortcuts.keys()], ["Alt+Shift+P"]);
    f.takenShortcuts.add("Alt+Shift+K");
    settings.update({ popoverShortcut: "Alt+Shift+K" });
    assert.equal(f.shortcuts.size, 0, "the old one is released");
    assert.equal(hooks.shortcut(), "");
    assert.ok(f.warnings.some((w) => /Alt\+Shift\+K is taken/.test(w)));
    settings.update({ popoverShortcut: "Alt+Shift+P" });
    settings.update({ popoverShortcut: "" });
    assert.equal(f.shortcuts.size, 0);
  });

  test("the login item is set at start and then only when it changes", () => {
    const { f, settings } = setup({ idlePollMs: 0 });
    assert.deepEqual(f.loginItem, [false]);
    settings.update({ trayTitle: false });
    settings.update({ launchAtLogin: true });
    settings.update({ launchAtLogin: true });
    assert.deepEqual(f.loginItem, [false, true]);
  });

  test("dispose releases the shortcut and stops following Settings", () => {
    const { f, settings, hooks } = setup({ idlePollMs: 0, shortcut: "CommandOrControl+Shift+P" });
    hooks.dispose();
    assert.equal(f.shortcuts.size, 0);
    assert.equal(settings.listenerCount(), 0);
  });
});
