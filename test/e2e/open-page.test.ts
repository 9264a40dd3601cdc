// Opening the host's page without its secret on any command line (issue 18, item 2). FAKE
// openers (`xdg-open`, `open`, a `$BROWSER`) put first on PATH record the arguments and
// environment they were given and read the file they got, then exit; `npm start`'s fallback
// (scripts/start.ts with no Electron binary) and the module behind it are run for real, and the
// forwarding file a fake got is then opened in real Chromium. No Gateway: opening a page does
// not involve one (the host points at a closed port and stays offline).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, test } from "node:test";
import { FORWARDING_FOLDER, openInBrowser } from "../../main/cli/browser-open.ts";
import { chromiumAvailable, launchChromium } from "../browser/chromium.ts";
import { until } from "../harness/until.ts";

const root = join(import.meta.dirname, "..", "..");
const startScript = join(root, "scripts", "start.ts");
const builtCli = join(root, "dist", "cli", "progress-desk.js");
const chromium = chromiumAvailable();

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "pd-open-"));
  dirs.push(d);
  return d;
};
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** What a FAKE opener saw. */
type Recording = {
  name: string;
  argv: string[];
  env: Record<string, string>;
  file: string;
  mode: number;
  dirMode: number;
  content: string;
};

/** A FAKE opener on `bin`: records its arguments, environment and the file it was given to `records`. */
function fakeOpener(bin: string, name: string, records: string, exitCode = 0): void {
  const script = `#!${process.execPath}
// FAKE ${name} for a test: records what it was given and reads the file, opens nothing.
const fs = require("node:fs");
const path = require("node:path");
const url = require("node:url");
const arg = process.argv.slice(2).find((a) => a.startsWith("file:") || a.startsWith("/"));
const file = arg === undefined ? "" : arg.startsWith("file:") ? url.fileURLToPath(arg) : arg;
const rec = { name: ${JSON.stringify(name)}, argv: process.argv.slice(2), env: process.env, file, mode: -1, dirMode: -1, content: "" };
if (file !== "") {
  rec.mode = fs.statSync(file).mode & 0o777;
  rec.dirMode = fs.statSync(path.dirname(file)).mode & 0o777;
  rec.content = fs.readFileSync(file, "utf8");
}
// Written whole under another name, then renamed: the test polls for *.json and must never read half of one.
const out = path.join(${JSON.stringify(records)}, ${JSON.stringify(name)} + "-" + process.pid + ".json");
fs.writeFileSync(out + ".part", JSON.stringify(rec));
fs.renameSync(out + ".part", out);
process.exit(${exitCode});
`;
  const path = join(bin, name);
  writeFileSync(path, script);
  chmodSync(path, 0o755);
}

function recordings(records: string): Recording[] {
  return readdirSync(records)
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(records, n), "utf8")) as Recording);
}

/** The address a forwarding page sends the browser to, as its script says it. */
function forwardedTo(content: string): string | undefined {
  const m = /location\.replace\(("[^"]*")\)/.exec(content);
  return m ? (JSON.parse(m[1]!) as string) : undefined;
}

function secretsOf(...urls: string[]): string[] {
  return urls.map((u) => new URL(u).pathname.split("/")[1]!).filter((s) => s.length >= 16);
}

function assertNoSecret(where: string, text: string, secrets: string[]): void {
  for (const s of secrets) assert.ok(!text.includes(s), `${where} carries the page's secret`);
}

/**
 * A process's arguments and environment as every local user's `ps` (and /proc) would show them;
 * undefined when it has exited meanwhile (a short-lived child such as the opener).
 */
function procView(pid: number): { argv: string; env: string } | undefined {
  try {
    return {
      argv: readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "),
      env: readFileSync(`/proc/${pid}/environ`, "utf8").replaceAll("\0", "\n"),
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH" || (e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of stat is the parent's pid; the command name before it may hold spaces.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent) pids.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

type Started = {
  child: ChildProcess;
  home: string;
  records: string;
  url: string;
  settingsUrl: string;
  stderr(): string;
  stop(): Promise<void>;
};

/** `npm start` (scripts/start.ts) where no Electron binary exists: the browser host, with FAKE openers first on PATH. */
async function npmStart(opts: { fakes: string[]; browser?: string }): Promise<Started> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`npm run build\` first`);
  const base = tempDir();
  const bin = join(base, "bin");
  const records = join(base, "records");
  const home = join(base, "pd");
  const noElectron = join(base, "no-electron");
  for (const d of [bin, records, noElectron]) mkdirSync(d);
  for (const name of opts.fakes) fakeOpener(bin, name, records);
  const child = spawn(process.execPath, [startScript], {
    cwd: root,
    env: {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      HOME: base,
      PROGRESS_DESK_HOME: home,
      DISPLAY: ":0",
      ELECTRON_OVERRIDE_DIST_PATH: noElectron,
      OPENCLAW_GATEWAY_URL: "ws://127.0.0.1:9",
      ...(opts.browser ? { BROWSER: opts.browser } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const url = await until(
    "the host's first stdout line",
    () => {
      if (exited()) throw new Error(`npm start exited: ${err}`);
      return out.includes("\n") ? out.split("\n")[0]! : null;
    },
    60_000,
  );
  const settingsUrl = await until("the Settings address on stderr", () => /^progress-desk: settings: (\S+)$/m.exec(err)?.[1], 20_000);
  return {
    child,
    home,
    records,
    url,
    settingsUrl,
    stderr: () => err,
    async stop() {
      if (!exited()) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await gone;
      }
    },
  };
}

/** The checks every opener must pass: no secret in its arguments or environment; a 0600 file in a 0700 folder forwarding to the page. */
function checkRecording(rec: Recording, url: string, dataDir: string, secrets: string[]): void {
  assertNoSecret(`${rec.name}'s arguments`, rec.argv.join(" "), secrets);
  assertNoSecret(`${rec.name}'s environment`, Object.values(rec.env).join("\n"), secrets);
  assert.equal(rec.file.startsWith(join(dataDir, FORWARDING_FOLDER)), true, `the file is in the data folder: ${rec.file}`);
  assert.equal(rec.mode.toString(8), "600", "only the person can read the forwarding file");
  assert.equal(rec.dirMode.toString(8), "700", "nor list its folder");
  assert.equal(forwardedTo(rec.content), url, "the file forwards to the page");
}

const forwardingFiles = (dataDir: string): string[] => {
  const dir = join(dataDir, FORWARDING_FOLDER);
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe(
  "opening the page: the secret never on a command line (FAKE openers that record)",
  { skip: process.platform === "linux" ? false : "reads other processes' arguments and environment from Linux's /proc" },
  () => {
    test("npm start without Electron: xdg-open gets a 0600 forwarding file, never the address; no process carries the secret; the file is gone at exit", async () => {
      const s = await npmStart({ fakes: ["xdg-open"] });
      try {
        const secrets = secretsOf(s.url, s.settingsUrl);
        assert.equal(secrets.length, 2);
        const [rec] = await until("xdg-open to be run", () => {
          const r = recordings(s.records);
          return r.length > 0 ? r : null;
        });
        checkRecording(rec!, s.url, s.home, secrets);
        assert.deepEqual(rec!.argv, [rec!.file], "xdg-open is given the file's path and nothing else");
        await until("start to say it opened the page", () => s.stderr().includes("Opened Progress Desk in your default browser."));
        // npm start itself and the host it started: arguments and environment, as `ps` shows them.
        // A child that exits while we look (the opener, whose own view the recording checked) is skipped;
        // npm start and at least one child (the host, which runs until stopped) must be read.
        const seen: number[] = [];
        for (const pid of [s.child.pid!, ...childPids(s.child.pid!)]) {
          const view = procView(pid);
          if (!view) continue;
          seen.push(pid);
          assertNoSecret(`process ${pid}'s arguments (${view.argv})`, view.argv, secrets);
          assertNoSecret(`process ${pid}'s environment`, view.env, secrets);
        }
        assert.equal(seen[0], s.child.pid, "npm start itself was read");
        assert.equal(seen.length >= 2, true, "the host runs as start's child and was read");
        assert.equal(existsSync(rec!.file), true, "the file waits for the browser to read it");
        await s.stop();
        assert.equal(existsSync(rec!.file), false, "removed when npm start exits");
        assert.deepEqual(forwardingFiles(s.home), []);
      } finally {
        await s.stop();
      }
    });

    test("$BROWSER (with %s, and several commands of which the first is missing) gets the file's file:// URL, never the address", async () => {
      const s = await npmStart({ fakes: ["xdg-open", "fake-browser"], browser: "no-such-browser-here:fake-browser --new-window %s" });
      try {
        const secrets = secretsOf(s.url, s.settingsUrl);
        const recs = await until("the browser to be run", () => {
          const r = recordings(s.records);
          return r.length > 0 ? r : null;
        });
        assert.deepEqual(
          recs.map((r) => r.name),
          ["fake-browser"],
          "$BROWSER wins over xdg-open",
        );
        const rec = recs[0]!;
        checkRecording(rec, s.url, s.home, secrets);
        assert.deepEqual(rec.argv, ["--new-window", pathToFileURL(rec.file).href]);
      } finally {
        await s.stop();
      }
    });

    test("macOS open gets the file's path; the file is removed after its lifetime; the process never got the address as an argument", async () => {
      const base = tempDir();
      const bin = join(base, "bin");
      const records = join(base, "records");
      const dataDir = join(base, "pd");
      mkdirSync(bin);
      mkdirSync(records);
      fakeOpener(bin, "open", records);
      const url = "http://127.0.0.1:4321/Yw3Fr8qJn2KsDc5mQp7Tx9Lb4Hv6Ng1Z/popover.html";
      const r = await openInBrowser(url, { dataDir, env: { PATH: bin }, platform: "darwin", lifetimeMs: 2_000 });
      assert.deepEqual(r, { opened: true, opener: "open" });
      const [rec] = await until("open to be run", () => {
        const got = recordings(records);
        return got.length > 0 ? got : null;
      });
      checkRecording(rec!, url, dataDir, secretsOf(url));
      assert.deepEqual(rec!.argv, [rec!.file]);
      await until("the forwarding file to be removed after its lifetime", () => !existsSync(rec!.file), 20_000);
      assert.deepEqual(forwardingFiles(dataDir), []);
    });

    test("an opener that fails removes its file at once; no opener, no file; a folder made 0755 earlier is tightened", async () => {
      const base = tempDir();
      const bin = join(base, "bin");
      const records = join(base, "records");
      const dataDir = join(base, "pd");
      mkdirSync(bin);
      mkdirSync(records);
      mkdirSync(join(dataDir, FORWARDING_FOLDER), { recursive: true, mode: 0o755 });
      chmodSync(join(dataDir, FORWARDING_FOLDER), 0o755);
      fakeOpener(bin, "xdg-open", records, 4);
      const url = "http://127.0.0.1:4321/Yw3Fr8qJn2KsDc5mQp7Tx9Lb4Hv6Ng1Z/popover.html";
      const r = await openInBrowser(url, { dataDir, env: { PATH: bin, DISPLAY: ":0" }, platform: "linux" });
      assert.equal(r.opened, true);
      const [rec] = await until("xdg-open to be run", () => {
        const got = recordings(records);
        return got.length > 0 ? got : null;
      });
      assert.equal(rec!.dirMode.toString(8), "700", "the folder was tightened before the file was written");
      await until("the file of a failed opener to be removed", () => !existsSync(rec!.file), 20_000);
      assert.equal(statSync(join(dataDir, FORWARDING_FOLDER)).mode & 0o777, 0o700);
      const none = await openInBrowser(url, { dataDir, env: { PATH: bin }, platform: "linux" });
      assert.equal(none.opened, false, "no display: no xdg-open");
      assert.deepEqual(forwardingFiles(dataDir), []);
    });

    test(
      "in Chromium, the forwarding file an opener got replaces itself with the page (the file is not left in the history)",
      { skip: chromium.ok ? false : chromium.reason },
      async () => {
        const s = await npmStart({ fakes: ["xdg-open"] });
        const browser = await launchChromium();
        try {
          const [rec] = await until("xdg-open to be run", () => {
            const r = recordings(s.records);
            return r.length > 0 ? r : null;
          });
          // The fake read the file; Chromium gets the same bytes from a file of its own.
          const copy = join(tempDir(), "forward.html");
          writeFileSync(copy, rec!.content, { mode: 0o600 });
          const context = await browser.newContext();
          const page = await context.newPage();
          await page.goto(pathToFileURL(copy).href);
          await page.waitForURL(s.url, { timeout: 20_000 });
          await page.getByRole("button", { name: "Open Settings" }).waitFor({ timeout: 20_000 });
          await page.goBack();
          assert.equal(page.url(), "about:blank", "back goes to where the tab was, not to the forwarding file");
          await context.close();
        } finally {
          await browser.close();
          await s.stop();
        }
      },
    );
  },
);
