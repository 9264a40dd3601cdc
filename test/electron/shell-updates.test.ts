// The shell's updates (U1–U7): the real shell around a FAKE Electron (fake-electron.ts) and a FAKE
// updater (test/unit/fake-updater.ts), its timers on a fake clock. The one Gateway it knows listens
// nowhere (port 9): it goes offline at once, which is not a reconnect the update must wait for.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import type { MenuItemConstructorOptions } from "electron";
import type { DeskEvent } from "../../common/contract.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import { readyLine, type UpdateView } from "../../common/updates.ts";
import { BUSY_RETRY_MS, CHECK_EVERY_MS } from "../../main/core/updates/update-model.ts";
import type { UpdateAvailability } from "../../main/core/updates/updater-port.ts";
import { startShell, type Shell } from "../../main/electron/shell.ts";
import { updateBusyReason } from "../../main/electron/setup/updates.ts";
import { REDRAW_COALESCE_MS } from "../../main/electron/setup/tray-presenter.ts";
import { until } from "../harness/until.ts";
import { FakeClock } from "../unit/fake-clock.ts";
import { checksumError, FakeUpdater } from "../unit/fake-updater.ts";
import { need } from "../renderer/fixtures.ts";
import { createLogger } from "../../main/core/logger.ts";
import { fakeElectron, type FakeElectron } from "./fake-electron.ts";
import { FakeDesk } from "./setup-support.ts";

const FEED: UpdateAvailability = { enabled: true, feed: "https://updates.example.invalid/" };

/** A FAKE updater that notes whether the shell had saved and stopped when it was told to install. */
class RecordingUpdater extends FakeUpdater {
  quittingAtInstall: boolean[] = [];
  shell: Shell | null = null;
  failInstall = false;
  override quitAndInstall(): void {
    super.quitAndInstall();
    if (this.failInstall) throw new Error("no downloaded file");
    this.quittingAtInstall.push(this.shell?.isQuitting() ?? false);
  }
}

let running: { shell: Shell; home: string } | null = null;

afterEach(async () => {
  await running?.shell.shutdown();
  if (running) rmSync(running.home, { recursive: true, force: true });
  running = null;
});

async function start(opts: { availability?: UpdateAvailability; withUpdater?: boolean } = {}) {
  const home = mkdtempSync(join(tmpdir(), "pd-updates-"));
  const clock = new FakeClock(Date.now());
  const updater = new RecordingUpdater();
  let made = 0;
  const warnings: string[] = [];
  const f: FakeElectron = fakeElectron({
    dataDir: home,
    env: { OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", HOME: home },
    clientVersion: "1.0.0",
    now: () => clock.now,
    schedule: clock.schedule,
    logger: createLogger({ sink: (r) => void (r.level === "warn" && warnings.push(r.message)), level: "debug" }),
    ...(opts.withUpdater === false
      ? {}
      : {
          updater: {
            availability: opts.availability ?? FEED,
            create: () => {
              made++;
              return updater;
            },
          },
        }),
  });
  const shell = await startShell(f.deps);
  running = { shell, home };
  // The Gateway is connecting: the start's check waits (U3).
  const checksAtStart = updater.checks;
  updater.shell = shell;
  const events: DeskEvent[] = [];
  shell.service.subscribe((e) => events.push(e));
  await until("the Gateway offline", () => shell.desk.snapshot().gateways[0]?.connection.state === "offline");
  // The start's check waited for the connection to settle; now it runs.
  clock.advance(BUSY_RETRY_MS);
  const menu = (): MenuItemConstructorOptions[] => {
    shell.redraw();
    return f.menus.at(-1)?.items ?? [];
  };
  const labels = (): string[] => menu().map((i) => String(i.label ?? (i.type === "separator" ? "—" : "")));
  const snapshotUpdates = async (): Promise<UpdateView> =>
    ((await shell.service.call("snapshot", [], "popover")) as DeskSnapshot).updates as UpdateView;
  return { f, clock, updater, shell, events, menu, labels, snapshotUpdates, warnings, made: () => made, checksAtStart };
}

describe("updates in the menu-bar app (U1, U5, U6)", () => {
  test("a downloaded update puts Restart to Update at the top of the menu and a ready line in the popover's state", async () => {
    const { updater, events, labels, menu, snapshotUpdates, f, checksAtStart, clock, shell } = await start();
    assert.equal(checksAtStart, 0, "not while the Gateway was connecting");
    assert.equal(updater.checks, 1, "checked once the connection settled");
    assert.ok(labels().includes("Checking for updates…"), labels().join(" | "));
    updater.offer("1.2.3");
    assert.equal(updater.downloads, 1, "downloaded in the background");
    updater.emit("download-progress", { percent: 50, transferred: 5, total: 10, bytesPerSecond: 1 });
    updater.emit("update-downloaded", { version: "1.2.3" });
    // Drawn on its own, as any change is (coalesced): no redraw asked for.
    clock.advance(REDRAW_COALESCE_MS);
    assert.equal(f.menus.at(-1)?.items[0]?.label, "Restart to Update (1.2.3)");
    assert.equal(labels()[0], "Restart to Update (1.2.3)");
    assert.deepEqual(shell.tray.menuLabels(), labels(), "what the _electron suite's hook reads is the menu drawn");
    const view = await snapshotUpdates();
    assert.equal(readyLine(view), "Version 1.2.3 is ready");
    const last = events.at(-1);
    assert.equal(last?.type === "change" && last.change.type === "updates" && last.change.updates.state, "ready");
    // The tray's item goes the shell's shutdown way: everything saved, then the updater installs.
    (menu()[0]?.click as () => void)();
    await until("installed", () => updater.installs === 1);
    assert.deepEqual(updater.quittingAtInstall, [true]);
    assert.equal(f.quits, 0, "the updater quits the app itself");
  });

  test("an updater that cannot restart into the update: the shell, already stopped, ends the app", async () => {
    const { updater, shell, f } = await start();
    updater.offer("1.2.3");
    updater.emit("update-downloaded", { version: "1.2.3" });
    updater.failInstall = true;
    assert.equal(await shell.service.call("installUpdate", [], "popover"), true);
    await until("the app ended", () => f.quits === 1);
    assert.equal(shell.isQuitting(), true);
  });

  test("installUpdate does nothing unless an update is ready; checkForUpdates is rate limited", async () => {
    const { updater, shell } = await start();
    assert.equal(await shell.service.call("installUpdate", [], "popover"), false);
    updater.emit("update-not-available", { version: "1.0.0" });
    const first = (await shell.service.call("checkForUpdates", [], "popover")) as UpdateView;
    assert.equal(first.state, "checking");
    updater.emit("update-not-available", { version: "1.0.0" });
    for (let i = 0; i < 10; i++) await shell.service.call("checkForUpdates", [], "dashboard");
    assert.equal(updater.checks, 2, "the start's check and one manual check");
    assert.equal(updater.installs, 0);
  });

  test("the manual check's result shows in the menu; wake checks again", async () => {
    const { updater, labels, f, clock, shell } = await start();
    updater.emit("update-not-available", { version: "1.0.0" });
    const check = (await import("../../main/core/updates/update-menu.ts")).CHECK_FOR_UPDATES;
    const item = (): MenuItemConstructorOptions | undefined => f.menus.at(-1)?.items.find((i) => i.label === check);
    labels();
    (item()?.click as () => void)();
    updater.emit("update-not-available", { version: "1.0.0" });
    const after = labels();
    assert.equal(after[after.indexOf(check) + 1], "Up to date");
    clock.advance(CHECK_EVERY_MS / 2);
    // Waking reconnects the Gateway first: the check waits for that to settle.
    f.power.emit("resume");
    await until("the Gateway offline again", () => shell.desk.snapshot().gateways[0]?.connection.state === "offline");
    clock.advance(BUSY_RETRY_MS);
    assert.equal(updater.checks, 3, "start, manual, wake");
  });

  test("Settings' switches set the updater's flags; automatic off stops the schedule", async () => {
    const { updater, shell, clock } = await start();
    updater.emit("update-not-available", { version: "1.0.0" });
    assert.deepEqual(
      [updater.autoDownload, updater.allowPrerelease, updater.autoInstallOnAppQuit, updater.allowDowngrade],
      [false, false, true, false],
    );
    await shell.service.call("updateSettings", [{ updates: { beta: true, automatic: false } }], "settings");
    assert.deepEqual(
      [updater.autoDownload, updater.allowPrerelease, updater.autoInstallOnAppQuit, updater.allowDowngrade],
      [false, true, false, false],
    );
    clock.advance(2 * CHECK_EVERY_MS);
    assert.equal(updater.checks, 1, "no scheduled check while off");
    assert.equal((await shell.service.call("checkForUpdates", [], "settings")) !== null, true);
    assert.equal(updater.checks, 2, "a manual check still works");
  });
});

describe("what the app refuses (U2, U4, U7)", () => {
  test("a checksum error is reported once and the same version is not fetched again", async () => {
    const { updater, clock, warnings, snapshotUpdates, labels } = await start();
    updater.offer("1.2.3");
    updater.emit("error", checksumError());
    const view = await snapshotUpdates();
    assert.equal(view.state, "error");
    assert.match((view as { reason: string }).reason, /1\.2\.3 was refused/);
    clock.advance(CHECK_EVERY_MS);
    updater.offer("1.2.3");
    clock.advance(CHECK_EVERY_MS);
    updater.offer("1.2.3");
    assert.equal(updater.checks, 3);
    assert.equal(updater.downloads, 1, "not downloaded again");
    assert.equal(warnings.filter((w) => /checksum/.test(w)).length, 1, "told once");
    assert.ok(!labels()[0]?.startsWith("Restart"), "nothing to restart into");
  });

  test("a downgrade is ignored", async () => {
    const { updater, snapshotUpdates } = await start();
    updater.offer("0.9.0");
    assert.equal(updater.downloads, 0);
    assert.equal((await snapshotUpdates()).state, "idle");
  });

  test("disabled shows its reason, and no updater is made", async () => {
    const { labels, snapshotUpdates, made } = await start({ availability: { enabled: false, reason: "Updates need a signed build" } });
    assert.ok(labels().includes("Updates: Updates need a signed build"), labels().join(" | "));
    assert.equal((await snapshotUpdates()).state, "disabled");
    assert.equal(made(), 0);
  });

  test("without an updater (a checkout): 'Updates come with the installed app'", async () => {
    const { labels, snapshotUpdates } = await start({ withUpdater: false });
    assert.ok(labels().includes("Updates: Updates come with the installed app"), labels().join(" | "));
    assert.equal(((await snapshotUpdates()) as { reason: string }).reason, "Updates come with the installed app");
  });
});

describe("when an update must wait (U3)", () => {
  test("a needs-you notice still on screen for a pending entry, or a Gateway reconnecting", () => {
    const desk = new FakeDesk();
    const g = desk.gateway("home");
    const entry = need({ gatewayId: "home", id: "appr-1" });
    g.needs = { ...g.needs, entries: [entry] };
    assert.equal(updateBusyReason(desk.snapshot(), [{ gatewayId: "home", id: "appr-1" }]), "a needs-you notice is open");
    assert.equal(updateBusyReason(desk.snapshot(), []), null, "an entry without its notice on screen");
    g.needs = { ...g.needs, entries: [] };
    assert.equal(updateBusyReason(desk.snapshot(), [{ gatewayId: "home", id: "appr-1" }]), null, "the entry ended");
    g.connection = { state: "connecting", attempt: 1, advice: "" } as never;
    assert.equal(updateBusyReason(desk.snapshot(), []), "a Gateway is reconnecting");
  });
});
