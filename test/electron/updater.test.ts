// Issue 22: main/electron/updater.ts, the adapter the shell gets as ShellDeps.updater. It reads
// the facts (app-update.yml, the signing record in package.json, package-type, APPIMAGE) for the
// pure decision, loads electron-updater only when the shell creates the updater, and sets it up
// as the update model drives it. electron-updater itself is stood in for by a FAKE object here;
// test/e2e/update-feed.test.ts runs the real one.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { AppUpdater } from "electron-updater";
import { createLogger, type LogRecord } from "../../main/core/logger.ts";
import { UNAVAILABLE } from "../../main/core/updates/availability.ts";
import { availabilityFacts, buildRecord, electronUpdater, type UpdaterHost } from "../../main/electron/updater.ts";

const RES = "/Applications/Progress Desk.app/Contents/Resources";
const ROOT = join(RES, "app.asar");
const FEED = "provider: generic\nurl: https://updates.example.com/desk/\nupdaterCacheDirName: progress-desk-updater\n";
const SIGNED = JSON.stringify({ name: "progress-desk", version: "0.1.0", progressDeskBuild: { signing: "identity", notarized: true } });

function host(files: Record<string, string>, over: Partial<UpdaterHost> = {}) {
  const records: LogRecord[] = [];
  const reads: string[] = [];
  let loads = 0;
  const fakeUpdater = {
    autoDownload: true,
    allowDowngrade: true,
    allowPrerelease: false,
    autoInstallOnAppQuit: true,
    logger: null as unknown,
  };
  const h: UpdaterHost = {
    platform: "darwin",
    env: {},
    isPackaged: true,
    resourcesPath: RES,
    appRoot: ROOT,
    logger: createLogger({ sink: (r) => records.push(r), level: "debug" }),
    readText: (path) => {
      reads.push(path);
      return files[path] ?? null;
    },
    loadAutoUpdater: () => {
      loads += 1;
      return fakeUpdater as unknown as AppUpdater;
    },
    ...over,
  };
  return { h, records, reads, fakeUpdater, loads: () => loads };
}

describe("availabilityFacts", () => {
  test("reads app-update.yml and package-type from the resources and the signing record from package.json", () => {
    const { h, reads } = host({
      [join(RES, "app-update.yml")]: FEED,
      [join(ROOT, "package.json")]: SIGNED,
      [join(RES, "package-type")]: "deb\n",
    });
    assert.deepEqual(availabilityFacts({ ...h, platform: "linux", env: { APPIMAGE: "/home/someone/Progress-Desk.AppImage" } }), {
      platform: "linux",
      isPackaged: true,
      updateConfig: FEED,
      build: { signing: "identity", notarized: true },
      appImage: "/home/someone/Progress-Desk.AppImage",
      linuxPackageType: "deb",
    });
    assert.ok(reads.includes(join(RES, "app-update.yml")));
  });

  test("a source checkout reads no resources (Electron's own folder has none of ours)", () => {
    const { h, reads } = host({ [join(RES, "app-update.yml")]: FEED });
    const facts = availabilityFacts({ ...h, isPackaged: false });
    assert.equal(facts.updateConfig, null);
    assert.equal(facts.linuxPackageType, null);
    assert.ok(!reads.some((p) => p.startsWith(RES + "/app-update")), reads.join());
  });

  test("buildRecord: the progressDeskBuild object, or null for none, another type or broken JSON", () => {
    assert.deepEqual(buildRecord(SIGNED), { signing: "identity", notarized: true });
    assert.equal(buildRecord(JSON.stringify({ name: "progress-desk" })), null);
    assert.equal(buildRecord(JSON.stringify({ progressDeskBuild: "ad-hoc" })), null);
    assert.equal(buildRecord("{"), null);
    assert.equal(buildRecord(null), null);
  });
});

describe("electronUpdater", () => {
  test("a signed macOS build with a feed: enabled; create() loads electron-updater once asked, set up for the model", () => {
    const { h, fakeUpdater, loads } = host({ [join(RES, "app-update.yml")]: FEED, [join(ROOT, "package.json")]: SIGNED });
    const updater = electronUpdater(h);
    assert.deepEqual(updater.availability, { enabled: true, feed: "https://updates.example.com/desk/" });
    assert.equal(loads(), 0, "nothing is loaded before the shell asks");
    const created = updater.create();
    assert.equal(loads(), 1);
    assert.equal(created, fakeUpdater as unknown);
    assert.equal(created.autoDownload, false, "the model asks for the download");
    assert.equal(created.allowDowngrade, false, "an older feed version is never installed");
    assert.equal(created.autoInstallOnAppQuit, true, "left as electron-updater has it");
  });

  test("electron-updater's lines go to our log, marked as the updater's", () => {
    const { h, records, fakeUpdater } = host({ [join(RES, "app-update.yml")]: FEED, [join(ROOT, "package.json")]: SIGNED });
    electronUpdater(h).create();
    const log = fakeUpdater.logger as { info(m: unknown): void; error(m: unknown): void };
    log.info("Checking for update");
    log.error(new Error("sha512 checksum mismatch"));
    assert.deepEqual(
      records.map((r) => [r.level, r.message.split("\n")[0]]),
      [
        ["info", "updater: Checking for update"],
        ["error", "updater: Error: sha512 checksum mismatch"],
      ],
    );
  });

  test("an ad hoc signed macOS build is off with the reason, logged once, and create() refuses without loading anything", () => {
    const adHoc = JSON.stringify({ name: "progress-desk", progressDeskBuild: { signing: "ad-hoc" } });
    const { h, records, loads } = host({ [join(RES, "app-update.yml")]: FEED, [join(ROOT, "package.json")]: adHoc });
    const updater = electronUpdater(h);
    assert.deepEqual(updater.availability, { enabled: false, reason: UNAVAILABLE.unsigned });
    assert.throws(() => updater.create(), /Updates need a signed build/);
    assert.equal(loads(), 0);
    assert.deepEqual(
      records.map((r) => [r.message, r.fields]),
      [["updates off", { reason: "Updates need a signed build" }]],
    );
  });

  test("a build without app-update.yml has no feed; an AppImage with one updates", () => {
    const { h } = host({ [join(ROOT, "package.json")]: SIGNED });
    assert.deepEqual(electronUpdater(h).availability, { enabled: false, reason: UNAVAILABLE.noFeed });
    const linux = host({ [join(RES, "app-update.yml")]: FEED }, { platform: "linux", env: { APPIMAGE: "/opt/Progress-Desk.AppImage" } });
    assert.equal(electronUpdater(linux.h).availability.enabled, true);
  });
});
