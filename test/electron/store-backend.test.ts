// Settings and window frames in electron-store (main/electron/store-backend.ts). A FAKE Map-backed store stands in for electron-store.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import Conf from "conf";
import { defaultSettings, normalizeSettings, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { settingsStoreOptions } from "../../main/electron/settings-file.ts";
import { STORE_SCHEMA, storeSettingsBackend, storeWindowFrames, type KeyValueStore } from "../../main/electron/store-backend.ts";

/** A FAKE electron-store: a Map, with every set recorded. */
function fakeStore(initial: Record<string, unknown> = {}) {
  const map = new Map<string, unknown>(Object.entries(initial));
  const sets: [string, unknown][] = [];
  const store: KeyValueStore = {
    get: (key) => map.get(key),
    set: (key, value) => {
      sets.push([key, value]);
      map.set(key, value);
    },
  };
  return { store, map, sets };
}

describe("storeSettingsBackend", () => {
  test("an empty store reads as null (defaults)", () => {
    const { store } = fakeStore();
    assert.equal(storeSettingsBackend(store).read(), null);
  });

  test("a stored null or undefined also reads as null", () => {
    assert.equal(storeSettingsBackend(fakeStore({ settings: null }).store).read(), null);
    assert.equal(storeSettingsBackend(fakeStore({ settings: undefined }).store).read(), null);
  });

  test("writes go to the settings key and read back as the same document", async () => {
    const { store, sets, map } = fakeStore({ windows: { dashboard: { x: 1, y: 2, width: 300, height: 200 } } });
    const backend = storeSettingsBackend(store);
    const doc = { version: 1, showCards: false, gateways: [{ id: "home" }] };
    await backend.write(doc);
    assert.deepEqual(sets, [["settings", doc]]);
    assert.deepEqual(backend.read(), doc);
    assert.deepEqual(map.get("windows"), { dashboard: { x: 1, y: 2, width: 300, height: 200 } }, "frames untouched");
  });

  test("whatever is stored is handed over as is (normalizeSettings copes with it)", () => {
    for (const v of ["text", 42, [1, 2], { odd: true }, false, 0]) {
      assert.deepEqual(storeSettingsBackend(fakeStore({ settings: v }).store).read(), v);
    }
  });

  test("write returns a promise that resolves", async () => {
    const { store } = fakeStore();
    const p = storeSettingsBackend(store).write({ a: 1 });
    assert.ok(p instanceof Promise);
    assert.equal(await p, undefined);
  });
});

describe("storeWindowFrames", () => {
  test("a saved frame loads back; others are null", () => {
    const { store } = fakeStore();
    const frames = storeWindowFrames(store);
    assert.equal(frames.load("dashboard"), null);
    frames.save("dashboard", { x: 10, y: -20, width: 900, height: 640 });
    assert.deepEqual(frames.load("dashboard"), { x: 10, y: -20, width: 900, height: 640 });
    assert.equal(frames.load("settings"), null);
  });

  test("saving one window keeps the others", () => {
    const { store, map } = fakeStore({ windows: { settings: { x: 1, y: 1, width: 500, height: 400 } } });
    const frames = storeWindowFrames(store);
    frames.save("dashboard", { x: 2, y: 3, width: 800, height: 600 });
    frames.save("dashboard", { x: 4, y: 5, width: 810, height: 610 });
    assert.deepEqual(map.get("windows"), {
      settings: { x: 1, y: 1, width: 500, height: 400 },
      dashboard: { x: 4, y: 5, width: 810, height: 610 },
    });
  });

  test("only the four numbers are stored, whatever else the bounds object carries", () => {
    const { store, sets } = fakeStore();
    const bounds = { x: 1, y: 2, width: 300, height: 200, extra: "nope" };
    storeWindowFrames(store).save("dashboard", bounds);
    assert.deepEqual(sets, [["windows", { dashboard: { x: 1, y: 2, width: 300, height: 200 } }]]);
  });

  test("invalid stored frames load as null", () => {
    const bad: Record<string, unknown> = {
      missingHeight: { x: 0, y: 0, width: 300 },
      stringNumber: { x: "0", y: 0, width: 300, height: 200 },
      nan: { x: Number.NaN, y: 0, width: 300, height: 200 },
      infinite: { x: 0, y: Number.POSITIVE_INFINITY, width: 300, height: 200 },
      nullish: null,
      number: 7,
      text: "0,0,300,200",
      list: [0, 0, 300, 200],
    };
    const frames = storeWindowFrames(fakeStore({ windows: bad }).store);
    for (const name of Object.keys(bad)) assert.equal(frames.load(name), null, name);
  });

  test("a damaged windows entry is treated as empty, and saving repairs it", () => {
    for (const damaged of [null, "text", 5, undefined]) {
      const { store, map } = fakeStore({ windows: damaged });
      const frames = storeWindowFrames(store);
      assert.equal(frames.load("dashboard"), null, String(damaged));
      frames.save("dashboard", { x: 1, y: 2, width: 300, height: 200 });
      assert.deepEqual(map.get("windows"), { dashboard: { x: 1, y: 2, width: 300, height: 200 } }, String(damaged));
    }
  });
});

// The schema's effect, not its shape: `conf`, the library electron-store extends, given the
// app's own options (settingsStoreOptions) the way electron-store hands them on (name →
// configName), validating a real file. electron-store itself needs the Electron binary,
// which tests do not have.
describe("STORE_SCHEMA in the store that enforces it", () => {
  const open = (cwd: string) => {
    const { name, ...options } = settingsStoreOptions(cwd);
    return new Conf<Record<string, unknown>>({ ...options, configName: name, projectName: "progress-desk-test" });
  };
  const withDir = (fn: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), "pd-store-"));
    try {
      fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test("a frame that is not four numbers is refused, and the saved frame stays", () => {
    withDir((dir) => {
      const store = open(dir);
      const frames = storeWindowFrames(store);
      frames.save("dashboard", { x: 1, y: 2, width: 300, height: 200 });
      assert.throws(
        () => store.set("windows", { dashboard: { x: "1", y: 2, width: 300, height: 200 } }),
        /`windows\/dashboard\/x` must be number/,
      );
      assert.throws(() => store.set("windows", { dashboard: { x: 1, y: 2, width: 300 } }), /must have required property 'height'/);
      assert.deepEqual(storeWindowFrames(open(dir)).load("dashboard"), { x: 1, y: 2, width: 300, height: 200 }, "read back from the file");
    });
  });

  test("settings: a bad value is kept for repair on read (not the whole file cleared); a missing one takes the schema's default", async () => {
    await withDirAsync(async (dir) => {
      const store = open(dir);
      const odd = { version: 0, showCards: "yes", gateways: "none", extra: [1, 2] };
      await storeSettingsBackend(store).write(odd);
      const read = storeSettingsBackend(open(dir)).read() as Record<string, unknown>;
      assert.deepEqual([read.version, read.showCards, read.gateways, read.extra], [0, "yes", "none", [1, 2]]);
      assert.equal(read.trayTitle, true, "filled in from the settings schema's default");
      assert.deepEqual(normalizeSettings(read), normalizeSettings(odd), "the same document once repaired");
      assert.throws(() => store.set("settings", "text"), /`settings` must be object/);
    });
  });

  test("settings: every key of the settings document reaches electron-store's schema", () => {
    assert.deepEqual(Object.keys(STORE_SCHEMA.settings.properties as object).sort(), Object.keys(defaultSettings()).sort());
  });

  test("settings: what the settings store writes reads back unchanged", async () => {
    await withDirAsync(async (dir) => {
      const settings = new SettingsStore(storeSettingsBackend(open(dir)), await CredentialVault.open(memoryStorage()));
      settings.update({
        showCards: false,
        detector: { pollingRepeats: 7 },
        notifications: { quietHours: { enabled: true, start: "21:30" } },
      });
      settings.saveGateway({ label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" });
      await settings.flush();
      const again = new SettingsStore(storeSettingsBackend(open(dir)), await CredentialVault.open(memoryStorage()));
      assert.deepEqual(again.view(), settings.view());
      assert.deepEqual(storeSettingsBackend(open(dir)).read(), normalizeSettings(storeSettingsBackend(open(dir)).read()));
    });
  });

  test("the store alone refuses a hand-edited file with a broken frame, and leaves it as it was (settings-file.ts rescues it)", () => {
    withDir((dir) => {
      const text = JSON.stringify({ settings: { showCards: false }, windows: { dashboard: { x: "oops" } } });
      writeFileSync(join(dir, "settings.json"), text);
      assert.throws(() => open(dir), /Config schema violation: .*`windows\/dashboard\/x` must be number/);
      assert.equal(readFileSync(join(dir, "settings.json"), "utf8"), text, "not cleared");
    });
  });
});

async function withDirAsync(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pd-store-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
