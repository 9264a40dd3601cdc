// The update model (U1–U5) on a fake clock and a FAKE updater (fake-updater.ts): when it checks,
// what it downloads, what it refuses and what it tells the person.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BUSY_RETRY_MS,
  CHECK_EVERY_MS,
  classifyUpdateError,
  forwardUpdaterEvents,
  INSTALL_RETRY_MS,
  MANUAL_CHECK_MIN_MS,
  RESULT_SHOWN_MS,
  UpdateModel,
  WAKE_MIN_MS,
  type UpdatePrefs,
} from "../../main/core/updates/update-model.ts";
import type { UpdateAvailability } from "../../main/core/updates/updater-port.ts";
import { compareVersions, isNewer } from "../../main/core/updates/version.ts";
import { CHECK_FOR_UPDATES, updateMenu } from "../../main/core/updates/update-menu.ts";
import { FakeClock } from "./fake-clock.ts";
import { checksumError, FakeUpdater, offlineError } from "./fake-updater.ts";

const FEED: UpdateAvailability = { enabled: true, feed: "https://updates.example.invalid/" };

function setup(opts: { prefs?: Partial<UpdatePrefs>; availability?: UpdateAvailability; current?: string; start?: boolean } = {}) {
  const clock = new FakeClock();
  const updater = new FakeUpdater();
  const prefs: UpdatePrefs = { automatic: true, beta: false, ...opts.prefs };
  const busy: { reason: string | null } = { reason: null };
  const warnings: string[] = [];
  const saved: string[] = [];
  const ended = { count: 0 };
  const model = new UpdateModel({
    currentVersion: opts.current ?? "1.0.0",
    availability: opts.availability ?? FEED,
    createUpdater: () => updater,
    prefs: () => prefs,
    busy: () => busy.reason,
    beforeInstall: async () => {
      saved.push(`saved before ${updater.installs} installs`);
    },
    installFailed: () => void ended.count++,
    now: () => clock.now,
    schedule: clock.schedule,
    random: () => 0.5,
    log: { info: () => undefined, warn: (m) => void warnings.push(m) },
  });
  if (model.updater) forwardUpdaterEvents(model.updater, model);
  let changes = 0;
  model.subscribe(() => changes++);
  if (opts.start !== false) model.start();
  return { clock, updater, prefs, busy, warnings, saved, ended, model, changes: () => changes };
}

describe("version order (U4)", () => {
  test("semver order, prerelease aware; build metadata ignored; not a version is unknown", () => {
    assert.equal(compareVersions("1.2.3", "1.2.4"), -1);
    assert.equal(compareVersions("1.10.0", "1.9.9"), 1);
    assert.equal(compareVersions("2.0.0", "2.0.0+build.5"), 0);
    assert.equal(compareVersions("1.0.0-beta.2", "1.0.0"), -1, "a prerelease comes before its release");
    assert.equal(compareVersions("1.0.0-beta.10", "1.0.0-beta.2"), 1, "numeric identifiers compare as numbers");
    assert.equal(compareVersions("1.0.0-alpha", "1.0.0-alpha.1"), -1);
    assert.equal(compareVersions("1.0.0-rc.1", "1.0.0-beta.9"), 1);
    assert.equal(compareVersions("1.0.0-1", "1.0.0-alpha"), -1, "numeric before alphanumeric");
    assert.equal(compareVersions("v1.2.3", "1.2.3"), 0);
    assert.equal(compareVersions("latest", "1.0.0"), null);
    assert.equal(isNewer("1.0.1-beta.1", "1.0.0"), true);
    assert.equal(isNewer("1.0.0", "1.0.0"), false);
    assert.equal(isNewer("garbage", "1.0.0"), false);
  });
});

describe("when it checks (U1)", () => {
  test("at start, then every six hours, and on wake unless a check ran within the hour", () => {
    const { updater, clock, model } = setup();
    assert.equal(updater.checks, 1, "a check at start");
    updater.emit("update-not-available", { version: "1.0.0" });
    clock.advance(CHECK_EVERY_MS - 1);
    assert.equal(updater.checks, 1);
    clock.advance(1);
    assert.equal(updater.checks, 2, "again after six hours");
    updater.emit("update-not-available", { version: "1.0.0" });
    clock.advance(WAKE_MIN_MS - 1);
    model.wake();
    assert.equal(updater.checks, 2, "not on a wake (an unlock) right after a check");
    clock.advance(1);
    model.wake();
    assert.equal(updater.checks, 3, "on wake");
  });

  test("automatic updates off: no check at start, on schedule or on wake; a manual check still works", () => {
    const { updater, clock, model, prefs } = setup({ prefs: { automatic: false } });
    clock.advance(3 * CHECK_EVERY_MS);
    model.wake();
    assert.equal(updater.checks, 0);
    model.checkNow();
    assert.equal(updater.checks, 1);
    // An automatic find while off is not downloaded; the manual check's find is.
    updater.emit("update-available", { version: "1.1.0" });
    assert.equal(updater.downloads, 1, "the person asked: it downloads");
    assert.equal(clock.pending, 1, "only the result's timer; no scheduled check");
    // Turned off during the six hours: the scheduled check is dropped.
    prefs.automatic = true;
    model.applyPrefs();
    prefs.automatic = false;
    model.applyPrefs();
    assert.equal(clock.pending, 1, "the scheduled check is cancelled, not only skipped");
    clock.advance(2 * CHECK_EVERY_MS);
    assert.equal(updater.checks, 1);
  });

  test("never while the person is answering a notice or a Gateway reconnects: tried again a minute later", () => {
    const { updater, clock, busy, model } = setup({ start: false });
    busy.reason = "a needs-you notice is open";
    model.start();
    assert.equal(updater.checks, 0);
    clock.advance(BUSY_RETRY_MS);
    assert.equal(updater.checks, 0, "still busy");
    busy.reason = null;
    clock.advance(BUSY_RETRY_MS);
    assert.equal(updater.checks, 1);
  });

  test("a manual check is rate limited: calls within the window only read the state", () => {
    const { updater, clock, model } = setup({ prefs: { automatic: false } });
    model.checkNow();
    updater.emit("update-not-available", { version: "1.0.0" });
    for (let i = 0; i < 20; i++) model.checkNow();
    assert.equal(updater.checks, 1);
    clock.advance(MANUAL_CHECK_MIN_MS);
    model.checkNow();
    assert.equal(updater.checks, 2);
  });
});

describe("what it downloads and refuses (U2, U4)", () => {
  test("a newer version is downloaded in the background, with its progress, then ready", () => {
    const { updater, model } = setup();
    updater.emit("update-available", { version: "1.2.3" });
    assert.equal(updater.downloads, 1);
    updater.emit("download-progress", { percent: 41.6, transferred: 416, total: 1000, bytesPerSecond: 10 });
    assert.deepEqual(
      { ...model.view(), result: null },
      {
        state: "downloading",
        version: "1.2.3",
        percent: 42,
        transferred: 416,
        total: 1000,
        currentVersion: "1.0.0",
        channel: "stable",
        automatic: true,
        result: null,
        quietError: null,
      },
    );
    updater.emit("update-downloaded", { version: "1.2.3" });
    assert.equal(model.view().state, "ready");
    assert.equal((model.view() as { version: string }).version, "1.2.3");
  });

  test("a downgrade or the same version is never offered, a prerelease of the running version neither", () => {
    for (const offered of ["0.9.0", "1.0.0", "1.0.0-beta.3"]) {
      const { updater, model } = setup();
      updater.emit("update-available", { version: offered });
      assert.equal(updater.downloads, 0, offered);
      assert.equal(model.view().state, "idle", offered);
    }
  });

  test("a checksum mismatch refuses that version, told once; the next check does not fetch it again", () => {
    const { updater, clock, model, warnings } = setup();
    updater.emit("update-available", { version: "1.2.3" });
    updater.emit("error", checksumError());
    const refused = model.view();
    assert.equal(refused.state, "error");
    assert.match((refused as { reason: string }).reason, /1\.2\.3 was refused: its checksum did not match/);
    assert.equal(warnings.length, 1);
    // No retry loop: nothing before the regular check, and that one's offer of the same version is not fetched.
    assert.deepEqual(clock.requested.at(-1), CHECK_EVERY_MS);
    clock.advance(CHECK_EVERY_MS);
    assert.equal(updater.checks, 2);
    updater.offer("1.2.3");
    assert.equal(updater.downloads, 1, "not downloaded again");
    assert.equal(warnings.length, 1, "told once");
    // A different version is.
    clock.advance(CHECK_EVERY_MS);
    updater.offer("1.2.4");
    assert.equal(updater.downloads, 2);
  });

  test("the person's Check for Updates gives a refused version another chance", () => {
    const { updater, model } = setup();
    updater.emit("update-available", { version: "1.2.3" });
    updater.emit("error", checksumError());
    model.checkNow();
    updater.offer("1.2.3");
    assert.equal(updater.downloads, 2);
  });

  test("the updater's flags: model-driven downloads, no downgrade, beta is prerelease, install on quit while automatic", () => {
    const { updater, prefs, model } = setup();
    assert.deepEqual(
      [updater.autoDownload, updater.allowDowngrade, updater.allowPrerelease, updater.autoInstallOnAppQuit],
      [false, false, false, true],
    );
    prefs.beta = true;
    prefs.automatic = false;
    model.applyPrefs();
    assert.deepEqual(
      [updater.autoDownload, updater.allowDowngrade, updater.allowPrerelease, updater.autoInstallOnAppQuit],
      [false, false, true, false],
    );
    assert.equal(model.view().channel, "beta");
  });
});

describe("an unreachable feed (U3)", () => {
  test("an automatic check backs off quietly, doubling up to the regular period", () => {
    const { updater, clock, model } = setup();
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      updater.emit("error", offlineError());
      assert.equal(model.view().state, "idle", "nothing shown for an automatic check");
      assert.match(model.view().quietError ?? "", /could not be reached \(ENOTFOUND\)/);
      assert.equal(model.view().result, null);
      delays.push(clock.requested.at(-1)!);
      clock.advance(delays.at(-1)!);
    }
    assert.deepEqual(
      delays.map((d) => d / 60_000),
      [5, 10, 20, 40, 80, 160, 320, 360],
    );
    updater.emit("update-not-available", { version: "1.0.0" });
    assert.equal(model.view().quietError, null, "a good check clears it");
    assert.equal(clock.requested.at(-1), CHECK_EVERY_MS);
  });

  test("a manual check says it failed and why", () => {
    const { updater, clock, model } = setup({ prefs: { automatic: false } });
    model.checkNow();
    updater.emit("error", Object.assign(new Error("HttpError: 503 Service Unavailable"), { statusCode: 503 }));
    assert.equal(model.view().state, "error");
    assert.equal(model.view().result?.text, "Update failed: the update server answered 503");
    clock.advance(RESULT_SHOWN_MS);
    assert.equal(model.view().result, null, "the result is shown for a while");
  });

  test("errors are told apart", () => {
    assert.equal(classifyUpdateError(new Error("net::ERR_INTERNET_DISCONNECTED")).kind, "network");
    assert.equal(classifyUpdateError(Object.assign(new Error("connect"), { code: "ECONNREFUSED" })).kind, "network");
    assert.equal(classifyUpdateError(new Error("Cannot download, status 502: Bad Gateway")).kind, "network");
    assert.equal(classifyUpdateError(new Error("status 404")).kind, "other");
    assert.equal(classifyUpdateError(checksumError()).kind, "checksum");
    assert.equal(classifyUpdateError(new Error("sha512 checksum mismatch")).kind, "checksum");
  });
});

describe("installing and what the person sees (U5, U7)", () => {
  test("install does nothing unless ready; waits while the person is busy; saves before quitting", async () => {
    const { updater, clock, busy, saved, model } = setup();
    assert.equal(model.install(), false);
    updater.emit("update-available", { version: "1.2.3" });
    assert.equal(model.install(), false, "still downloading");
    updater.emit("update-downloaded", { version: "1.2.3" });
    busy.reason = "a Gateway is reconnecting";
    assert.equal(model.install(), true);
    await Promise.resolve();
    assert.equal(updater.installs, 0, "not while busy");
    busy.reason = null;
    clock.advance(INSTALL_RETRY_MS);
    assert.equal(model.install(), true, "a second press while installing");
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(saved, ["saved before 0 installs"]);
    assert.equal(updater.installs, 1);
  });

  test("an updater that cannot restart into the update: the app still ends (it has already stopped)", async () => {
    const { updater, model, ended } = setup();
    updater.emit("update-available", { version: "1.2.3" });
    updater.emit("update-downloaded", { version: "1.2.3" });
    updater.quitAndInstall = () => {
      throw new Error("no downloaded file");
    };
    assert.equal(model.install(), true);
    await new Promise<void>((r) => setImmediate(r));
    assert.equal(ended.count, 1);
  });

  test("the result of a manual check is in the menu for a minute", () => {
    const { updater, clock, model } = setup({ prefs: { automatic: false } });
    model.checkNow();
    assert.deepEqual(updateMenu(model.view()).rows, [{ label: "Checking for updates…", action: null }]);
    updater.emit("update-not-available", { version: "1.0.0" });
    assert.deepEqual(updateMenu(model.view()).rows, [
      { label: CHECK_FOR_UPDATES, action: "check" },
      { label: "Up to date", action: null },
    ]);
    clock.advance(MANUAL_CHECK_MIN_MS);
    model.checkNow();
    updater.emit("update-available", { version: "1.2.3" });
    assert.equal(updateMenu(model.view()).rows[1]?.label, "Update found: 1.2.3 — downloading");
    clock.advance(RESULT_SHOWN_MS);
    assert.equal(updateMenu(model.view()).rows.length, 1);
    updater.emit("update-downloaded", { version: "1.2.3" });
    assert.deepEqual(updateMenu(model.view()).top, { label: "Restart to Update (1.2.3)", action: "install" });
  });

  test("disabled: no updater, no check, the reason in the menu", () => {
    let made = 0;
    const clock = new FakeClock();
    const model = new UpdateModel({
      currentVersion: "1.0.0",
      availability: { enabled: false, reason: "Updates need a signed build" },
      createUpdater: () => {
        made++;
        return new FakeUpdater();
      },
      prefs: () => ({ automatic: true, beta: false }),
      busy: () => null,
      beforeInstall: async () => undefined,
      now: () => clock.now,
      schedule: clock.schedule,
    });
    model.start();
    model.checkNow();
    assert.equal(made, 0);
    assert.equal(clock.pending, 0);
    assert.deepEqual(updateMenu(model.view()), { top: null, rows: [{ label: "Updates: Updates need a signed build", action: null }] });
    assert.equal(model.install(), false);
  });
});
