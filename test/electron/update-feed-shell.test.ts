// Issue 22, end to end on this machine: the real shell around a FAKE Electron (fake-electron.ts),
// with a REAL electron-updater (test/harness/update-feed.ts: AppImageUpdater set up by the app's
// configureUpdater, Electron faked for electron-updater's files) reading a local feed on loopback.
// The update model's timers run on a fake clock; the feed, the download and the sha512 check are
// real I/O, waited for as events. The Gateway it knows listens nowhere (port 9): it goes offline at
// once, which is not a reconnect the update must wait for.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import type { DeskEvent } from "../../common/contract.ts";
import type { DeskSnapshot } from "../../common/model.ts";
import type { UpdateView } from "../../common/updates.ts";
import { silentLogger } from "../../main/core/logger.ts";
import { BUSY_RETRY_MS } from "../../main/core/updates/update-model.ts";
import { REDRAW_COALESCE_MS } from "../../main/electron/setup/tray-presenter.ts";
import { startShell, type Shell } from "../../main/electron/shell.ts";
import { createRealUpdater, startLocalFeed, type LocalFeed, type RealUpdater } from "../harness/update-feed.ts";
import { until } from "../harness/until.ts";
import { FakeClock } from "../unit/fake-clock.ts";
import { fakeElectron, type FakeElectron } from "./fake-electron.ts";

const CURRENT = "1.0.0";
let opened: { shell: Shell; home: string; feed: LocalFeed; real: RealUpdater } | null = null;

afterEach(async () => {
  if (!opened) return;
  await opened.shell.shutdown();
  opened.real.close();
  await opened.feed.close();
  rmSync(opened.home, { recursive: true, force: true });
  opened = null;
});

async function start(feedOptions: Parameters<typeof startLocalFeed>[0]) {
  const feed = await startLocalFeed(feedOptions);
  const real = createRealUpdater(feed.url, CURRENT, { logger: silentLogger });
  const home = mkdtempSync(join(tmpdir(), "pd-update-feed-shell-"));
  const clock = new FakeClock(Date.now());
  const f: FakeElectron = fakeElectron({
    dataDir: home,
    env: { OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", HOME: home },
    clientVersion: CURRENT,
    now: () => clock.now,
    schedule: clock.schedule,
    updater: { availability: { enabled: true, feed: feed.url }, create: () => real.updater },
  });
  const shell = await startShell(f.deps);
  opened = { shell, home, feed, real };
  const states: string[] = [];
  shell.service.subscribe((e: DeskEvent) => {
    if (e.type === "change" && e.change.type === "updates" && states.at(-1) !== e.change.updates.state) states.push(e.change.updates.state);
  });
  await until("the Gateway offline", () => shell.desk.snapshot().gateways[0]?.connection.state === "offline");
  // The start's check waited for the connection to settle; now it runs, against the feed.
  clock.advance(BUSY_RETRY_MS);
  const view = async (): Promise<UpdateView> =>
    ((await shell.service.call("snapshot", [], "popover")) as DeskSnapshot).updates as UpdateView;
  const topItem = (): string => {
    clock.advance(REDRAW_COALESCE_MS);
    return String(f.menus.at(-1)?.items[0]?.label ?? "");
  };
  return { feed, view, states, topItem };
}

describe("the menu-bar app updating from a local feed (real electron-updater, FAKE Electron; U1, U2, U5)", () => {
  test("a newer version: checking, downloading with progress, then ready with its version and Restart to Update atop the menu", async () => {
    const { feed, view, states, topItem } = await start({ version: "1.2.0", size: 1536 * 1024 });
    await until("the update downloaded and ready", async () => ((await view()).state === "ready" ? true : null), 30_000);
    const ready = await view();
    assert.equal(ready.state === "ready" && ready.version, "1.2.0");
    assert.deepEqual(
      states.filter((s) => s !== "available"),
      ["checking", "downloading", "ready"],
    );
    assert.equal(topItem(), "Restart to Update (1.2.0)");
    assert.equal(feed.requests.length, 2, `the feed file, then the update once: ${feed.requests.join(", ")}`);
  });

  test("a file changed after the feed described it: refused, no Restart to Update, not fetched again", async () => {
    const { feed, view, states, topItem } = await start({ version: "1.2.0", tamper: true, chunks: 2, chunkDelayMs: 10 });
    await until("the download refused", async () => ((await view()).state === "error" ? true : null), 30_000);
    const refused = await view();
    assert.match((refused as { reason: string }).reason, /1\.2\.0 was refused/);
    assert.ok(!states.includes("ready"), states.join(" → "));
    assert.ok(!topItem().startsWith("Restart"), "nothing to restart into");
    assert.equal(feed.requests.filter((r) => r.endsWith(".AppImage")).length, 1, "downloaded once");
  });

  test("an older version in the feed is never offered: up to date, nothing downloaded", async () => {
    const { feed, view, states, topItem } = await start({ version: "0.9.0" });
    await until("the check done", () => (states.includes("checking") && states.at(-1) !== "checking" ? true : null), 30_000);
    assert.equal((await view()).state, "idle");
    assert.ok(!topItem().startsWith("Restart"));
    assert.equal(feed.requests.filter((r) => r.endsWith(".AppImage")).length, 0);
  });
});
