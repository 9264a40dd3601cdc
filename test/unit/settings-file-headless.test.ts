// The headless settings file (jsonFileBackend: `progress-desk host`) is never written over
// when it cannot be read: kept beside it under a dated name, what could be read in use.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createLogger, type LogRecord } from "../../main/core/logger.ts";
import { jsonFileBackend, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

const HOME = { label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" };
const LAB = { label: "Lab", color: "#30d158", url: "wss://lab.example:443" };
const AT = new Date("2026-12-04T15:30:00Z");
const COPY_NAME = "settings.corrupt-2026-12-04T15-30-00Z.json";

async function inDir(fn: (dir: string, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "pd-headless-settings-"));
  try {
    await fn(dir, join(dir, "settings.json"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openSettings(path: string): Promise<{ settings: SettingsStore; records: LogRecord[] }> {
  const records: LogRecord[] = [];
  const logger = createLogger({ sink: (r) => records.push(r), level: "debug" });
  const backend = jsonFileBackend(path, { logger, now: () => AT });
  return { settings: new SettingsStore(backend, await CredentialVault.open(memoryStorage()), logger), records };
}

async function seed(path: string): Promise<string> {
  const { settings } = await openSettings(path);
  settings.update({ trayTitle: false });
  settings.saveGateway(HOME);
  settings.saveGateway(LAB);
  await settings.flush();
  return readFileSync(path, "utf8");
}

const copies = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes(".corrupt-"));

describe("jsonFileBackend: a damaged settings file", () => {
  test("truncated: the Gateways before the cut are kept, the bytes are kept, and saving later does not touch the copy", async () => {
    await inDir(async (dir, path) => {
      const file = await seed(path);
      const cut = Buffer.from(file).subarray(0, file.indexOf(LAB.url) + 4);
      writeFileSync(path, cut);
      const { settings, records } = await openSettings(path);
      assert.deepEqual(
        settings.view().gateways.map((g) => g.url),
        [HOME.url],
      );
      assert.equal(settings.view().trayTitle, false);
      assert.equal(settings.view().damagedFileCopy, join(dir, COPY_NAME));
      assert.deepEqual(
        records.filter((r) => r.level === "warn").map((r) => r.fields.copy),
        [join(dir, COPY_NAME)],
      );
      settings.update({ showCards: false });
      await settings.flush();
      assert.deepEqual(readFileSync(join(dir, COPY_NAME)), cut, "byte for byte");
      assert.equal(JSON.parse(readFileSync(path, "utf8")).gateways.length, 1, "the live file holds what was read");
    });
  });

  test("garbage or JSON that is no object: defaults, and the bytes kept byte for byte", async () => {
    for (const bytes of [Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x7b]), Buffer.from("[1, 2]")]) {
      await inDir(async (dir, path) => {
        writeFileSync(path, bytes);
        const { settings } = await openSettings(path);
        assert.deepEqual(settings.view().gateways, []);
        assert.deepEqual(readFileSync(join(dir, COPY_NAME)), bytes);
      });
    }
  });

  test("a sound file and a missing one: no copy, nothing to tell", async () => {
    await inDir(async (dir, path) => {
      assert.equal((await openSettings(path)).settings.view().damagedFileCopy, undefined);
      await seed(path);
      const { settings, records } = await openSettings(path);
      assert.equal(settings.view().gateways.length, 2);
      assert.deepEqual([settings.view().damagedFileCopy, copies(dir), records.length], [undefined, [], 0]);
    });
  });

  test("when no copy can be kept, the file is never written over: changes stay in memory, and the log says why", async () => {
    await inDir(async (dir, path) => {
      writeFileSync(path, '{"gateways": [{"id": "home", "url": "ws://127.0.0.1:18789"}], "tray');
      // Every name a copy could take this second is taken: the copy cannot be written.
      writeFileSync(join(dir, COPY_NAME), "earlier");
      for (let n = 2; n <= 100; n++) writeFileSync(join(dir, `settings.corrupt-2026-12-04T15-30-00Z-${n}.json`), "earlier");
      const before = readFileSync(path);
      const { settings, records } = await openSettings(path);
      assert.equal(settings.view().gateways.length, 1, "what could be read is in use");
      settings.update({ showCards: false });
      await settings.flush();
      assert.deepEqual(readFileSync(path), before);
      assert.deepEqual(
        records.filter((r) => r.level !== "debug").map((r) => r.message),
        [
          "A settings file could not be read in full, nor a copy of it saved: it is left as it is, and changes are not saved this run.",
          "could not save settings",
        ],
      );
    });
  });
});
