// Settings and window frames in electron-store (main/electron/store-backend.ts). A FAKE Map-backed store stands in for electron-store.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
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

  test("the schema checks frames as four numbers and leaves settings loose", () => {
    assert.deepEqual(STORE_SCHEMA.settings, { type: "object" });
    assert.equal(STORE_SCHEMA.windows.type, "object");
    assert.deepEqual(STORE_SCHEMA.windows.additionalProperties.required, ["x", "y", "width", "height"]);
    for (const k of ["x", "y", "width", "height"] as const) assert.deepEqual(STORE_SCHEMA.windows.additionalProperties.properties[k], { type: "number" });
  });
});
