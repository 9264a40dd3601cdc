// The built `progress-desk` command (or another script) as a child process for the benchmarks: spawned
// with its own data folder (fresh, or prepared by the caller) and the token on stdin, every stdout line timestamped the moment it arrives.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

/** Children still running: killed when this process exits, however it exits (a hard stop included). */
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

export const CLI = path.join(import.meta.dirname, "..", "dist", "cli", "progress-desk.js");

export type Spawned = {
  child: ChildProcess;
  /** performance.now() just before spawn. */
  spawnedAt: number;
  /** Called with each stdout line and the performance.now() it arrived. */
  onLine: ((line: string, at: number) => void) | null;
  /** Resident set size of the child now (MB, Linux /proc), or null. */
  rssMb(): number | null;
  stop(): Promise<void>;
};

export type SpawnOptions = {
  /** A data folder the caller prepared (settings, credentials); removed on stop like a fresh one. */
  home?: string;
  /** Fills the data folder before the process starts (e.g. a settings file); a failure removes it. */
  prepareHome?: (home: string) => void;
};

/** A fresh, empty data folder for one child (what spawnWithToken uses unless given one). */
export function freshDataFolder(): string {
  return mkdtempSync(path.join(os.tmpdir(), "pd-bench-home-"));
}

/** Spawns `node <script> ...args`, writes `token` (if any) to its stdin and closes it. */
export function spawnWithToken(script: string, args: string[], token: string | null, opts: SpawnOptions = {}): Spawned {
  const home = opts.home ?? freshDataFolder();
  try {
    opts.prepareHome?.(home);
  } catch (err) {
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, PROGRESS_DESK_HOME: home },
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.stdin!.on("error", () => {}); // a child that exits early closes its stdin
  child.stdin!.end(token === null ? "" : token + "\n");
  const out: Spawned = {
    child,
    spawnedAt,
    onLine: null,
    rssMb: () => procRssMb(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once("exit", () => r()));
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
  let buffered = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    const at = performance.now();
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      out.onLine?.(line, at);
    }
  });
  return out;
}

/**
 * `progress-desk <args> --url <url> --token-file -`; with no Gateway, `progress-desk <args>` alone, which
 * uses the Gateways saved in the data folder (`opts.home`, see startup-shared.ts prepareDataFolder).
 */
export function spawnCli(args: string[], gw: { url: string; token: string } | null, opts: SpawnOptions = {}): Spawned {
  if (!gw) return spawnWithToken(CLI, args, null, opts);
  return spawnWithToken(CLI, [...args, "--url", gw.url, "--token-file", "-"], gw.token, opts);
}

export function procRssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}
