// The settings file is never wiped (main/electron/settings-file.ts): the app's own opening
// code, with the app's own options (settingsStoreOptions), on real files. electron-store
// needs the Electron binary, which tests do not have, so the store here is `conf`, the
// library electron-store extends, given those options the way electron-store hands them on
// (name → configName). No fake store: conf reads, validates and refuses the files itself.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import Conf from "conf";
import { createLogger, type LogRecord } from "../../main/core/logger.ts";
import { normalizeSettings, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { openSettingsFile, settingsFilePath, type OpenStore } from "../../main/electron/settings-file.ts";
import { storeSettingsBackend, storeWindowFrames, type KeyValueStore } from "../../main/electron/store-backend.ts";

/** electron-store's part, without Electron: the options go to conf as electron-store passes them. */
const confStore: OpenStore = ({ name, ...options }) =>
  new Conf<Record<string, unknown>>({ ...options, configName: name, projectName: "progress-desk-test" });

const HOME = { label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" };
const LAB = { label: "Lab", color: "#30d158", url: "wss://lab.example:443" };
const DASHBOARD = { x: 10, y: 20, width: 900, height: 600 };
const SETTINGS_WINDOW = { x: 50, y: 60, width: 500, height: 400 };
const AT = new Date("2026-12-04T15:30:00.123Z");
const COPY_NAME = "settings.corrupt-2026-12-04T15-30-00Z.json";

type Opened = { store: KeyValueStore; warnings: LogRecord[]; errors: LogRecord[] };

function open(dir: string, now: () => Date = () => AT): Opened {
  const records: LogRecord[] = [];
  const logger = createLogger({ sink: (r) => records.push(r), level: "debug" });
  const store = openSettingsFile(confStore, dir, { logger, now });
  return {
    store,
    get warnings() {
      return records.filter((r) => r.level === "warn");
    },
    get errors() {
      return records.filter((r) => r.level === "error");
    },
  };
}

async function settingsOf(store: KeyValueStore): Promise<SettingsStore> {
  return new SettingsStore(storeSettingsBackend(store), await CredentialVault.open(memoryStorage()));
}

/** A settings file as the app writes it: two Gateways, a setting changed, two window frames. */
async function seed(dir: string): Promise<string> {
  const { store } = open(dir);
  const settings = await settingsOf(store);
  settings.update({ showCards: false });
  settings.saveGateway(HOME);
  settings.saveGateway(LAB);
  await settings.flush();
  storeWindowFrames(store).save("dashboard", DASHBOARD);
  storeWindowFrames(store).save("settings", SETTINGS_WINDOW);
  return readFileSync(settingsFilePath(dir), "utf8");
}

async function inDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pd-settings-file-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const copies = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.includes(".corrupt-"))
    .sort();
const urls = async (store: KeyValueStore): Promise<string[]> => (await settingsOf(store)).view().gateways.map((g) => g.url);

describe("a damaged settings file is kept and what can be read is used", () => {
  test("a frame missing a field: every Gateway, every setting and the other frame are kept; that frame alone is dropped", async () => {
    await inDir(async (dir) => {
      const file = await seed(dir);
      const damaged = file.replace(/("dashboard": \{[^}]*?),\s*"height": 600/, "$1");
      assert.notEqual(damaged, file, "the dashboard frame lost its height");
      writeFileSync(settingsFilePath(dir), damaged);

      const { store } = open(dir);
      assert.deepEqual(await urls(store), [HOME.url, LAB.url]);
      assert.equal((await settingsOf(store)).view().showCards, false, "a changed setting is kept");
      const frames = storeWindowFrames(store);
      assert.equal(frames.load("dashboard"), null, "the bad frame is dropped");
      assert.deepEqual(frames.load("settings"), SETTINGS_WINDOW, "the other frame is kept");
      assert.deepEqual(copies(dir), [COPY_NAME]);
      assert.equal(readFileSync(join(dir, COPY_NAME), "utf8"), damaged, "the file as it was, byte for byte");
    });
  });

  test("a truncated file: every Gateway written before the cut is kept, and the file as it was is kept", async () => {
    await inDir(async (dir) => {
      const file = await seed(dir);
      // Cut inside the window frames: both Gateways came before.
      const inFrames = Buffer.from(file).subarray(0, file.indexOf('"width": 500'));
      writeFileSync(settingsFilePath(dir), inFrames);
      const first = open(dir);
      assert.deepEqual(await urls(first.store), [HOME.url, LAB.url]);
      assert.equal((await settingsOf(first.store)).view().showCards, false);
      assert.deepEqual(storeWindowFrames(first.store).load("dashboard"), DASHBOARD, "the frame complete before the cut");
      assert.equal(storeWindowFrames(first.store).load("settings"), null, "the frame the cut fell in");
      assert.deepEqual(readFileSync(join(dir, COPY_NAME)), inFrames);

      // Cut inside the second Gateway, a second later: the first one is kept.
      const inLab = Buffer.from(file).subarray(0, file.indexOf(LAB.url) + 6);
      writeFileSync(settingsFilePath(dir), inLab);
      const second = open(dir, () => new Date(AT.getTime() + 1000));
      assert.deepEqual(await urls(second.store), [HOME.url]);
      assert.deepEqual(copies(dir), [COPY_NAME, "settings.corrupt-2026-12-04T15-30-01Z.json"]);
      assert.deepEqual(readFileSync(join(dir, "settings.corrupt-2026-12-04T15-30-01Z.json")), inLab);
    });
  });

  test("a file of garbage: the app starts from defaults and the bytes are kept, byte for byte", async () => {
    await inDir(async (dir) => {
      const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0x80, 0x0a, 0x1b, 0x5b, 0x32, 0x4a, 0xc3, 0x28]);
      writeFileSync(settingsFilePath(dir), garbage);
      const { store } = open(dir);
      assert.deepEqual(await urls(store), []);
      assert.deepEqual(normalizeSettings(store.get("settings")), normalizeSettings(undefined));
      assert.deepEqual(readFileSync(join(dir, COPY_NAME)), garbage);
    });
  });

  test("garbage in the middle of the file: the Gateways before it are kept", async () => {
    await inDir(async (dir) => {
      const file = await seed(dir);
      const at = file.indexOf("}", file.indexOf(LAB.url)) + 1;
      const damaged = `${file.slice(0, at)}\u0000\u0007 not json ]]]${file.slice(at)}`;
      writeFileSync(settingsFilePath(dir), damaged);
      const { store } = open(dir);
      assert.deepEqual(await urls(store), [HOME.url, LAB.url]);
      assert.equal(readFileSync(join(dir, COPY_NAME), "utf8"), damaged);
    });
  });

  test("JSON that is no object (the store would start empty and write over it) is kept aside too", async () => {
    await inDir(async (dir) => {
      for (const [i, text] of ["[1, 2, 3]", "null", '"settings"', "42"].entries()) {
        writeFileSync(settingsFilePath(dir), text);
        const { store } = open(dir, () => new Date(AT.getTime() + i * 1000));
        assert.deepEqual(await urls(store), [], text);
        const copy = `settings.corrupt-2026-12-04T15-30-0${i}Z.json`;
        assert.equal(readFileSync(join(dir, copy), "utf8"), text, text);
      }
    });
  });

  test("an earlier copy is never written over: a second damaged file in the same second gets its own name", async () => {
    await inDir(async (dir) => {
      writeFileSync(settingsFilePath(dir), "first {");
      open(dir);
      writeFileSync(settingsFilePath(dir), "second {");
      open(dir);
      assert.deepEqual(copies(dir), ["settings.corrupt-2026-12-04T15-30-00Z-2.json", COPY_NAME]);
      assert.equal(readFileSync(join(dir, COPY_NAME), "utf8"), "first {");
      assert.equal(readFileSync(join(dir, "settings.corrupt-2026-12-04T15-30-00Z-2.json"), "utf8"), "second {");
    });
  });

  test("the person is told once: one log warning and the Settings page's damagedFileCopy name the copy", async () => {
    await inDir(async (dir) => {
      await seed(dir);
      writeFileSync(settingsFilePath(dir), "{ oops");
      const opened = open(dir);
      const settings = await settingsOf(opened.store);
      settings.update({ trayTitle: false });
      await settings.flush();
      storeWindowFrames(opened.store).save("dashboard", DASHBOARD);
      assert.equal(opened.warnings.length, 1, "told once, however often the store is used");
      assert.equal(opened.warnings[0]?.fields.copy, join(dir, COPY_NAME));
      assert.equal(settings.view().damagedFileCopy, join(dir, COPY_NAME));
      assert.equal(
        (await settingsOf(open(dir).store)).view().damagedFileCopy,
        undefined,
        "the next run opens a sound file: nothing to tell",
      );
    });
  });

  test("a sound file is used as it is: no copy, no warning, no damagedFileCopy", async () => {
    await inDir(async (dir) => {
      const file = await seed(dir);
      const opened = open(dir);
      assert.deepEqual(await urls(opened.store), [HOME.url, LAB.url]);
      assert.equal((await settingsOf(opened.store)).view().damagedFileCopy, undefined);
      assert.deepEqual([copies(dir), opened.warnings.length], [[], 0]);
      assert.equal(readFileSync(settingsFilePath(dir), "utf8"), file);
    });
  });

  test("a file damaged while the app runs is rescued at the next write, its Gateways kept", async () => {
    await inDir(async (dir) => {
      const file = await seed(dir);
      const { store } = open(dir);
      const damaged = file.slice(0, file.indexOf('"windows"'));
      writeFileSync(settingsFilePath(dir), damaged);
      storeWindowFrames(store).save("dashboard", DASHBOARD);
      assert.deepEqual(await urls(open(dir).store), [HOME.url, LAB.url]);
      assert.deepEqual(storeWindowFrames(store).load("dashboard"), DASHBOARD);
      assert.equal(readFileSync(join(dir, COPY_NAME), "utf8"), damaged);
      assert.equal(store.damagedCopy?.(), join(dir, COPY_NAME));
    });
  });

  test("a value the store refuses is refused, and the sound file is not set aside for it", async () => {
    await inDir(async (dir) => {
      await seed(dir);
      const { store } = open(dir);
      assert.throws(() => store.set("windows", { dashboard: { x: 1 } }), /must have required property/);
      assert.deepEqual(copies(dir), []);
      assert.deepEqual(storeWindowFrames(store).load("dashboard"), DASHBOARD);
    });
  });

  test("when no copy can be kept, the damaged file is left as it is and this run's changes stay in memory", async () => {
    await inDir(async (dir) => {
      writeFileSync(settingsFilePath(dir), "{ damaged");
      // Every name a copy could take this second is taken (a real fault: the copy cannot be written).
      writeFileSync(join(dir, COPY_NAME), "earlier");
      for (let n = 2; n <= 100; n++) writeFileSync(join(dir, `settings.corrupt-2026-12-04T15-30-00Z-${n}.json`), "earlier");
      const opened = open(dir);
      const settings = await settingsOf(opened.store);
      settings.saveGateway(HOME);
      await settings.flush();
      assert.deepEqual(await urls(opened.store), [HOME.url], "this run goes on");
      assert.equal(readFileSync(settingsFilePath(dir), "utf8"), "{ damaged", "the file is untouched");
      assert.equal(readFileSync(join(dir, COPY_NAME), "utf8"), "earlier", "no copy written over");
      assert.equal(opened.errors.length, 1);
      assert.match(opened.errors[0]?.message ?? "", /nor a copy of it saved/);
    });
  });
});
