// The app's log: electron-log configured for one size-rotated file under the logs folder (a
// FAKE electron-log for the settings and calls, electron-log's own Node entry for real files:
// no Electron binary runs here), and the shell's "Show Logs" and "Copy diagnostics" wiring
// with the FAKE Electron kit. Only app.ts may load electron-log's Electron entry.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import electronLogNode from "electron-log/node";
import { fileLogger, LOG_FILE_NAME, MAX_LOG_BYTES, type ElectronLogLike } from "../../main/electron/log-file.ts";
import { startShell } from "../../main/electron/shell.ts";
import { createLogger, type LogRecord } from "../../main/core/logger.ts";
import { REDACTED } from "../../main/core/log-redaction.ts";
import { fakeElectron, type FakeMenu } from "./fake-electron.ts";
import { until } from "../harness/until.ts";

const root = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "pd-logfile-"));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A FAKE electron-log: its settings as set, and each call as made. */
function fakeElectronLog() {
  const calls: [string, string][] = [];
  const log: ElectronLogLike = {
    transports: { file: { level: "silly", maxSize: 0, format: "", resolvePathFn: () => "default.log" }, console: { level: "silly" } },
    debug: (t) => void calls.push(["debug", t]),
    info: (t) => void calls.push(["info", t]),
    warn: (t) => void calls.push(["warn", t]),
    error: (t) => void calls.push(["error", t]),
  };
  return { log, calls };
}

const SECRET = "Yw3-Fr8q.Jn2Ks-Dc5m";

describe("fileLogger (electron-log)", () => {
  test("one file in the logs folder, rotated by size; lower levels are not written; lines are redacted, one per record", () => {
    const { log, calls } = fakeElectronLog();
    const logsDir = join(tempDir(), "Progress Desk");
    const { logger, file } = fileLogger(log, { logsDir, level: "info" });
    assert.equal(file, join(logsDir, LOG_FILE_NAME));
    assert.equal(log.transports.file.resolvePathFn(), file);
    assert.equal(log.transports.file.maxSize, MAX_LOG_BYTES);
    assert.equal(log.transports.console.level, false, "a packaged app prints nothing");
    logger.protect(SECRET);
    logger.debug("not written");
    logger.info("connected", { gateway: "home", token: "t-1" });
    logger.error(`failed with ${SECRET}\nsecond line`);
    assert.deepEqual(calls, [
      ["info", `connected gateway=home token=${REDACTED}`],
      ["error", `failed with ${REDACTED}\\nsecond line`],
    ]);
    const dev = fakeElectronLog();
    fileLogger(dev.log, { logsDir: tempDir(), console: true });
    assert.equal(dev.log.transports.console.level, "warn", "npm start shows warnings on the terminal");
  });

  test("with electron-log's real file transport: lines land in the file, which rotates to main.old.log past the size", () => {
    const dir = tempDir();
    const real = electronLogNode.create({ logId: `pd-test-${Date.now()}` });
    const { logger, file } = fileLogger(real as unknown as ElectronLogLike, { logsDir: dir, level: "debug", maxBytes: 2_000 });
    logger.protect(SECRET);
    for (let i = 0; i < 60; i++) logger.info(`line ${i} with ${SECRET}`, { i });
    assert.ok(existsSync(file));
    assert.deepEqual(readdirSync(dir).sort(), ["main.log", "main.old.log"]);
    const text = readFileSync(file, "utf8") + readFileSync(join(dir, "main.old.log"), "utf8");
    assert.match(readFileSync(file, "utf8"), /\[info\]\s+line 59 with \[redacted\] i=59\n$/);
    assert.ok(readFileSync(join(dir, "main.old.log"), "utf8").length <= 2_000 + 200, "rotated near the limit");
    assert.doesNotMatch(text, /Fr8q/);
  });

  test(
    "the log is private: main.log and main.old.log are 0600 in a 0700 folder, also after a rotation and when an earlier version made them 0644",
    { skip: process.platform === "win32" ? "Windows has no POSIX file modes" : false },
    () => {
      const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
      // A fresh folder: made 0700, the file created 0600 by electron-log's real file transport.
      const fresh = join(tempDir(), "logs");
      const real = electronLogNode.create({ logId: `pd-test-mode-${Date.now()}` });
      const { logger, file } = fileLogger(real as unknown as ElectronLogLike, { logsDir: fresh, level: "info", maxBytes: 1_000 });
      for (let i = 0; i < 40; i++) logger.info(`line ${i}: session agent:main:s${i} at ws://gateway.example:18789`);
      assert.deepEqual(readdirSync(fresh).sort(), ["main.log", "main.old.log"], "rotated at least once");
      assert.equal(mode(fresh), "700");
      assert.equal(mode(file), "600", "the new file after a rotation");
      assert.equal(mode(join(fresh, "main.old.log")), "600");
      // Files and a folder left open by an earlier version are tightened at start.
      const old = join(tempDir(), "logs");
      mkdirSync(old, { mode: 0o755 });
      chmodSync(old, 0o755);
      for (const name of ["main.log", "main.old.log"]) {
        writeFileSync(join(old, name), "[old line]\n", { mode: 0o644 });
        chmodSync(join(old, name), 0o644);
      }
      fileLogger(fakeElectronLog().log, { logsDir: old });
      assert.equal(mode(old), "700");
      assert.equal(mode(join(old, "main.log")), "600");
      assert.equal(mode(join(old, "main.old.log")), "600");
      assert.equal(readFileSync(join(old, "main.log"), "utf8"), "[old line]\n", "nothing in them is lost");
    },
  );

  test("only main/electron/app.ts imports electron-log (its Electron entry); everything else gets the logger injected", () => {
    const importers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (!/\.(ts|svelte)$/.test(entry.name)) continue;
        else if (/from\s+["']electron-log/.test(readFileSync(p, "utf8"))) importers.push(relative(root, p));
      }
    };
    for (const top of ["main", "preload", "renderer"]) walk(join(root, top));
    assert.deepEqual(importers, [join("main", "electron", "app.ts")]);
    assert.match(readFileSync(join(root, "main", "electron", "app.ts"), "utf8"), /from "electron-log\/main"/);
  });
});

describe("the shell's log wiring (FAKE Electron, no Gateway listening)", () => {
  async function shellWith(extra: { openPath?: (p: string) => Promise<string>; withLogs?: boolean }) {
    const dir = tempDir();
    const records: LogRecord[] = [];
    const opened: string[] = [];
    const copied: string[] = [];
    const logger = createLogger({ level: "debug", sink: (r) => void records.push(r) });
    const fe = fakeElectron({
      dataDir: dir,
      env: { OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9", OPENCLAW_GATEWAY_TOKEN: SECRET, HOME: dir },
      logger,
      writeClipboard: (t) => void copied.push(t),
      ...(extra.withLogs === false
        ? {}
        : { logFolder: join(dir, "logs"), openPath: extra.openPath ?? (async (p) => (opened.push(p), "")) }),
    });
    const shell = await startShell(fe.deps);
    const menu = (): FakeMenu => {
      fe.trays[0]!.emit("right-click");
      return fe.trays[0]!.poppedUp.at(-1) as FakeMenu;
    };
    return { fe, shell, records, opened, copied, menu, logsDir: join(dir, "logs") };
  }

  test("Show Logs in the tray menu opens the log folder through the injected shell API", async () => {
    const r = await shellWith({});
    try {
      const item = r.menu().items.find((i) => i.label === "Show Logs");
      assert.ok(item, "the menu has Show Logs");
      (item.click as () => void)();
      await until("the folder opened", () => r.opened.length === 1);
      assert.deepEqual(r.opened, [r.logsDir]);
    } finally {
      await r.shell.shutdown();
    }
  });

  test("a folder the OS cannot open is logged, not thrown", async () => {
    const r = await shellWith({ openPath: async () => "Failed to open path" });
    try {
      (r.menu().items.find((i) => i.label === "Show Logs")!.click as () => void)();
      await until("the warning", () => r.records.some((x) => x.level === "warn" && x.message === "could not open the log folder"));
    } finally {
      await r.shell.shutdown();
    }
  });

  test("without a log file there is no Show Logs", async () => {
    const r = await shellWith({ withLogs: false });
    try {
      assert.equal(
        r.menu().items.find((i) => i.label === "Show Logs"),
        undefined,
      );
    } finally {
      await r.shell.shutdown();
    }
  });

  test("the core logs through the injected logger, redacted; Copy diagnostics from Settings goes to the clipboard", async () => {
    const r = await shellWith({});
    try {
      await until("a connection debug line", () => r.records.some((x) => x.level === "debug" && x.message.startsWith("connection ")));
      assert.doesNotMatch(JSON.stringify(r.records), /Fr8q/, "the discovered token is never logged");
      await r.shell.openPage("settings");
      const win = r.fe.windows.find((w) => w.urls[0]?.startsWith("app://desk/settings.html"))!;
      const result = (await r.fe.invoke(win, "copyDiagnostics", [])) as { text: string; copied: boolean };
      assert.equal(result.copied, true);
      assert.deepEqual(r.copied, [result.text]);
      assert.match(result.text, /Progress Desk 0\.0\.0-test/);
      assert.match(result.text, /ws:\/\/127\.0\.0\.1:9: (connecting|offline)/);
      assert.match(result.text, /debug connection/);
      assert.doesNotMatch(result.text, /Fr8q/);
    } finally {
      await r.shell.shutdown();
    }
  });
});
