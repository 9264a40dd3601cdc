// Issue 22: a REAL electron-updater update check against a local feed on loopback, set up by
// the app's own main/electron/updater.ts (configureUpdater). Electron is FAKED for
// electron-updater's files only (test/harness/fake-electron-for-updater.ts); the feed fetch,
// the latest*.yml parse, the version comparison, the download with its progress and the sha512
// check are electron-updater's own code reading a real socket (test/harness/update-feed.ts).
// The last test runs the app's whole adapter (electronUpdater) on electron-updater's autoUpdater.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createLogger } from "../../main/core/logger.ts";
import { electronUpdater } from "../../main/electron/updater.ts";
import { fakeAppState } from "../harness/fake-electron-for-updater.ts";
import {
  channelFileName,
  closedFeedUrl,
  createRealUpdater,
  fakeAppImageProcess,
  fakeElectronForUpdater,
  recordUpdaterEvents,
  startLocalFeed,
  type LocalFeed,
  type RealUpdater,
} from "../harness/update-feed.ts";

const opened: Array<LocalFeed | RealUpdater> = [];
after(async () => {
  for (const o of opened.reverse()) await o.close();
});
async function feed(options: Parameters<typeof startLocalFeed>[0]): Promise<LocalFeed> {
  const f = await startLocalFeed(options);
  opened.push(f);
  return f;
}
function updaterFor(url: string, version: string): RealUpdater {
  const u = createRealUpdater(url, version);
  opened.push(u);
  return u;
}
/** Files electron-updater left in its cache's pending folder (a verified download lands there). */
function pending(u: RealUpdater): string[] {
  const dir = join(u.cacheDir, "pending");
  return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith("temp-") && name !== "update-info.json") : [];
}

describe("a real electron-updater against a local feed", () => {
  test("a newer version is found, and downloaded only when asked, with progress, verified, as update-downloaded", async () => {
    const f = await feed({ version: "0.2.0", size: 1536 * 1024 });
    const u = updaterFor(f.url, "0.1.0");
    const events = recordUpdaterEvents(u.updater);

    const check = (await u.updater.checkForUpdates()) as { isUpdateAvailable: boolean; downloadPromise: Promise<unknown> | null };
    assert.equal(check.isUpdateAvailable, true);
    assert.equal(check.downloadPromise, null, "no download started by the check: autoDownload is off, the model asks");
    const [info] = await events.waitFor("update-available");
    assert.equal(info.version, "0.2.0");
    assert.deepEqual(info.files, [{ url: f.fileName, sha512: f.sha512, size: f.size }]);
    assert.deepEqual(events.names(), ["checking-for-update", "update-available"]);
    assert.deepEqual(f.requests, [`/${channelFileName()}`], "the check reads the feed file and downloads nothing (autoDownload is off)");

    const files = (await u.updater.downloadUpdate()) as string[];
    const [downloaded] = await events.waitFor("update-downloaded");
    assert.equal(downloaded.version, "0.2.0");
    assert.deepEqual(files, [downloaded.downloadedFile]);
    assert.equal(
      downloaded.downloadedFile,
      join(u.cacheDir, "pending", f.fileName),
      "in electron-updater's cache, where the tamper case looks too",
    );
    assert.deepEqual(pending(u), [f.fileName]);
    assert.equal(
      createHash("sha512").update(readFileSync(downloaded.downloadedFile!)).digest("base64"),
      f.sha512,
      "the file on disk is the one the feed describes",
    );
    assert.deepEqual(f.requests, [`/${channelFileName()}`, `/${f.fileName}`]);

    const progress = events.events.flatMap((e) => (e.event === "download-progress" ? [e.args[0]] : []));
    assert.ok(progress.length >= 2, `progress while downloading, not only at the end: ${JSON.stringify(progress)}`);
    assert.ok(progress[0]!.transferred > 0 && progress[0]!.transferred < f.size && progress[0]!.percent < 100, JSON.stringify(progress[0]));
    assert.deepEqual(
      progress.map((p) => p.transferred),
      [...progress.map((p) => p.transferred)].sort((a, b) => a - b),
      "transferred only grows",
    );
    assert.equal(progress.at(-1)!.transferred, f.size);
    assert.equal(progress.at(-1)!.percent, 100);
    assert.ok(progress.every((p) => p.total === f.size));
    assert.deepEqual(
      events.names().filter((n) => n !== "download-progress"),
      ["checking-for-update", "update-available", "update-downloaded"],
    );
    assert.ok(!events.names().includes("error"));
    assert.ok(
      u.log.some((r) => r.message === "updater: Checking for update"),
      "electron-updater logs through the app's logger",
    );
  });

  test("a file changed after the feed described it is refused by its sha512: an error, nothing downloaded", async () => {
    const f = await feed({ version: "0.2.0", tamper: true, chunks: 2, chunkDelayMs: 10 });
    const u = updaterFor(f.url, "0.1.0");
    const events = recordUpdaterEvents(u.updater);
    await u.updater.checkForUpdates();
    await events.waitFor("update-available");

    await assert.rejects(u.updater.downloadUpdate(), (e: Error & { code?: string }) => {
      assert.equal(e.code, "ERR_CHECKSUM_MISMATCH");
      assert.match(e.message, /sha512 checksum mismatch, expected /);
      assert.ok(e.message.includes(f.sha512), "names the checksum the feed promised");
      return true;
    });
    const [error] = await events.waitFor("error");
    assert.match(error.message, /sha512 checksum mismatch/);
    assert.deepEqual(f.requests, [`/${channelFileName()}`, `/${f.fileName}`], "the whole file was fetched, then refused");
    assert.ok(!events.names().includes("update-downloaded"), events.names().join());
    assert.deepEqual(pending(u), [], "no refused file is left where an install would take it from");
  });

  test("a feed that is down is an error naming the refused connection, after electron-updater's retries", async () => {
    const u = updaterFor(await closedFeedUrl(), "0.1.0");
    const events = recordUpdaterEvents(u.updater);
    await assert.rejects(u.updater.checkForUpdates(), /ECONNREFUSED/);
    const [error, message] = await events.waitFor("error");
    assert.equal((error as Error & { code?: string }).code, "ECONNREFUSED");
    assert.match(message ?? "", /^Cannot check for updates: .*ECONNREFUSED/);
    assert.deepEqual(events.names(), ["checking-for-update", "error"]);
  });

  test("an older version in the feed is update-not-available: no downgrade, nothing downloaded", async () => {
    const f = await feed({ version: "0.0.9" });
    const u = updaterFor(f.url, "0.1.0");
    const events = recordUpdaterEvents(u.updater);
    const check = (await u.updater.checkForUpdates()) as { isUpdateAvailable: boolean };
    assert.equal(check.isUpdateAvailable, false);
    const [info] = await events.waitFor("update-not-available");
    assert.equal(info.version, "0.0.9");
    assert.deepEqual(events.names(), ["checking-for-update", "update-not-available"]);
    assert.deepEqual(f.requests, [`/${channelFileName()}`]);
    assert.equal(u.updater.allowDowngrade, false);
  });

  test("the recorded events replay in order onto a stand-in updater, for an update model's listeners", async () => {
    const f = await feed({ version: "0.3.0-beta.1" });
    const u = updaterFor(f.url, "0.3.0-alpha.2");
    const events = recordUpdaterEvents(u.updater);
    await u.updater.checkForUpdates();
    await events.waitFor("update-available");
    const { EventEmitter } = await import("node:events");
    const stand = new EventEmitter();
    const seen: string[] = [];
    for (const name of ["checking-for-update", "update-available"])
      stand.on(name, (...args: unknown[]) => seen.push(`${name}${args.length ? ` ${(args[0] as { version: string }).version}` : ""}`));
    events.replay(stand);
    assert.deepEqual(seen, ["checking-for-update", "update-available 0.3.0-beta.1"]);
  });

  const notLinux = process.platform !== "linux" && "electron-updater's autoUpdater is its AppImage updater on Linux only";
  test(
    "the app's own adapter, in an AppImage's layout, creates electron-updater's autoUpdater, which finds the feed in resources/app-update.yml",
    { skip: notLinux },
    async () => {
      // Last in this file: electron-updater's autoUpdater is one per process, and this test gives
      // the process an Electron-like process.resourcesPath.
      const f = await feed({ version: "0.2.0", chunks: 1 });
      const resources = mkdtempSync(join(tmpdir(), "pd-updater-resources-"));
      const appRoot = join(resources, "app.asar");
      mkdirSync(appRoot);
      writeFileSync(join(appRoot, "package.json"), JSON.stringify({ name: "progress-desk", version: "0.1.0" }));
      writeFileSync(
        join(resources, "app-update.yml"),
        `provider: generic\nurl: ${f.url}\nupdaterCacheDirName: progress-desk-updater-own\n`,
      );
      mkdirSync(join(resources, "user-data"));
      fakeElectronForUpdater();
      fakeAppImageProcess();
      Object.assign(fakeAppState, { version: "0.1.0", isPackaged: true, appPath: appRoot, userData: join(resources, "user-data") });
      Object.assign(process, { resourcesPath: resources });
      try {
        const records: string[] = [];
        const host = {
          platform: process.platform,
          env: process.env,
          isPackaged: fakeAppState.isPackaged,
          resourcesPath: resources,
          appRoot,
          logger: createLogger({ sink: (r) => records.push(r.message), level: "debug" }),
        };
        const updater = electronUpdater(host);
        assert.deepEqual(updater.availability, { enabled: true, feed: f.url });
        const real = updater.create();
        assert.equal(real.constructor.name, "AppImageUpdater", "electron-updater picks the AppImage updater on Linux");
        assert.equal(real.autoDownload, false);
        const events = recordUpdaterEvents(real);
        await real.checkForUpdates();
        const [info] = await events.waitFor("update-available");
        assert.equal(info.version, "0.2.0");
        assert.deepEqual(f.requests, [`/${channelFileName()}`]);
        assert.ok(records.includes("updater: Checking for update"), records.join("\n"));
      } finally {
        rmSync(resources, { recursive: true, force: true });
      }
    },
  );
});
