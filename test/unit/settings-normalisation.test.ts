// S1–S3, G5: settings read from disk are normalised value by value. These pin the rules the
// mutation run found unpinned: the full defaults, which accelerators count as shortcuts, the
// bounds of numbers and clock times, which stored Gateways survive and how they are labelled
// and coloured, and which pins are kept.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { defaultSettings, isAccelerator, normalizeSettings } from "../../main/core/settings.ts";

describe("defaults", () => {
  test("every default, as the spec lists them", () => {
    assert.deepEqual(defaultSettings(), {
      showCards: true,
      collapseByDefault: false,
      notifications: {
        enabled: true,
        milestones: {
          newCard: true,
          stepCompleted: true,
          allCompleted: true,
          pausedOrBlocked: true,
          refreshFailed: true,
          noProgress: true,
        },
        quietHours: { enabled: false, start: "22:00", end: "08:00" },
      },
      trayTitle: true,
      launchAtLogin: false,
      popoverShortcut: "",
      dashboardOnTop: false,
      activity: { mode: "all", commandText: "raw" },
      detector: { enabled: true, pollingRepeats: 5, silentMinutes: 10 },
      gateways: [],
      pinned: [],
      localAnswerApprovals: false,
      updates: { automatic: true, beta: false },
    });
  });
});

describe("isAccelerator", () => {
  test("every Electron modifier name is accepted, one modifier is enough", () => {
    for (const mod of [
      "Command",
      "Cmd",
      "Control",
      "Ctrl",
      "CommandOrControl",
      "CmdOrCtrl",
      "Alt",
      "Option",
      "AltGr",
      "Shift",
      "Super",
      "Meta",
    ]) {
      assert.equal(isAccelerator(`${mod}+P`), true, mod);
    }
  });

  test("a modifier that is not one makes the whole shortcut invalid", () => {
    assert.equal(isAccelerator("Ctrl+Foo+P"), false);
  });

  test("the key is one whole key name", () => {
    for (const key of ["A", "7", "F1", "F9", "F10", "F15", "F19", "F20", "F24", "Space", "PageDown", "=", ",", "`"]) {
      assert.equal(isAccelerator(`Ctrl+${key}`), true, key);
    }
    for (const key of ["PP", "xP", "F0", "F25", "F1a", "é"]) {
      assert.equal(isAccelerator(`Ctrl+${key}`), false, key);
    }
  });

  test("at most 64 characters", () => {
    const at64 = "CommandOrControl+CmdOrCtrl+Control+Command+Option+AltGr+Shift+F1";
    assert.equal(at64.length, 64);
    assert.equal(isAccelerator(at64), true);
    assert.equal(isAccelerator(`${at64.slice(0, -2)}F10`), false);
  });
});

describe("normalizeSettings", () => {
  test("the detector's numbers are kept at their bounds and refused past them", () => {
    const detector = (pollingRepeats: number, silentMinutes: number) =>
      normalizeSettings({ detector: { pollingRepeats, silentMinutes } }).detector;
    assert.deepEqual(detector(2, 1), { enabled: true, pollingRepeats: 2, silentMinutes: 1 });
    assert.deepEqual(detector(100, 1440), { enabled: true, pollingRepeats: 100, silentMinutes: 1440 });
    assert.deepEqual(detector(101, 1441), { enabled: true, pollingRepeats: 5, silentMinutes: 10 });
    assert.deepEqual(detector(1, 0), { enabled: true, pollingRepeats: 5, silentMinutes: 10 });
  });

  test("quiet hours take only an HH:MM text", () => {
    const hours = (start: unknown) => normalizeSettings({ notifications: { quietHours: { start } } }).notifications.quietHours.start;
    assert.equal(hours("23:59"), "23:59");
    assert.equal(hours("00:00"), "00:00");
    for (const bad of ["7:30", "07:30x", "x07:30", "24:00", ["07:30"]]) assert.equal(hours(bad), "22:00", JSON.stringify(bad));
  });

  test("a stored Gateway needs a text id and a ws:// or wss:// address; the first of an id wins", () => {
    const n = normalizeSettings({
      gateways: [
        null,
        { url: "ws://no-id:1" },
        { id: 7, url: "ws://numeric-id:1" },
        { id: "no-url" },
        { id: "http", url: "http://gw:1/ws://x" },
        { id: "a", url: "wss://first:1" },
        { id: "a", url: "ws://second:1" },
        { id: "b", url: "WS://upper:2" },
      ],
    });
    assert.deepEqual(
      n.gateways.map((g) => [g.id, g.url]),
      [
        ["a", "wss://first:1"],
        ["b", "WS://upper:2"],
      ],
    );
  });

  test("labels are trimmed and capped at 80; a blank or missing label becomes the host", () => {
    const labels = normalizeSettings({
      gateways: [
        { id: "a", url: "ws://a.example:1", label: "  Studio  " },
        { id: "b", url: "ws://b.example:2", label: "   " },
        { id: "c", url: "ws://c.example:3", label: 5 },
        { id: "d", url: "ws://d.example:4", label: "x".repeat(100) },
      ],
    }).gateways.map((g) => g.label);
    assert.deepEqual(labels, ["Studio", "b.example:2", "c.example:3", "x".repeat(80)]);
  });

  test("a colour is kept only as #rrggbb; otherwise the palette by position, wrapping after six", () => {
    const colors = ["#ABCDEF", "red", 0x0a84ff, "#12345", "#1234567", "x#123456", ["#123456"], "#00ff00"];
    const n = normalizeSettings({ gateways: colors.map((color, i) => ({ id: `g${i}`, url: `ws://h:${i + 1}`, color })) });
    assert.deepEqual(
      n.gateways.map((g) => g.color),
      ["#ABCDEF", "#30d158", "#ff9f0a", "#bf5af2", "#ff375f", "#64d2ff", "#0a84ff", "#00ff00"],
    );
    const plain = normalizeSettings({ gateways: Array.from({ length: 7 }, (_, i) => ({ id: `p${i}`, url: `ws://h:${i + 1}` })) });
    assert.deepEqual(
      plain.gateways.map((g) => g.color),
      ["#0a84ff", "#30d158", "#ff9f0a", "#bf5af2", "#ff375f", "#64d2ff", "#0a84ff"],
    );
  });

  test("pins: text under 2048 characters, each once, at most 200", () => {
    const long = "k".repeat(2047);
    assert.deepEqual(normalizeSettings({ pinned: [long, "k".repeat(2048), ["nested"], 4, long] }).pinned, [long]);
    const many = Array.from({ length: 250 }, (_, i) => `gw\u0000s${i}`);
    const pinned = normalizeSettings({ pinned: many }).pinned;
    assert.equal(pinned.length, 200);
    assert.deepEqual(pinned, many.slice(0, 200));
  });
});
