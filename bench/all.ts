// `npm run bench` (after the build): every benchmark part, one after the other, each in a process of its
// own with a hard stop; then one table of every target with PASS/MISS, and exit status 1 on any MISS
// (a part that fails, overruns or reports nothing counts as a MISS). Not part of `npm test`.
// Each part writes its own section of docs/benchmarks.md. PD_BENCH_QUICK=1 runs reduced sizes;
// `node bench/all.ts startup cost` runs only the named parts.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { QUICK, type TargetRow } from "./harness.ts";

type Part = { name: string; file: string; limitMs: number };

// Hard stops per part (each part also stops itself a little earlier); the whole run stays under TOTAL_MS.
const PARTS: Part[] = [
  { name: "core", file: "run.ts", limitMs: 4 * 60_000 },
  // One-line and realistic notes, popover and dashboard: about 7 min at full size on 2 cores.
  { name: "startup", file: "startup.ts", limitMs: 7.5 * 60_000 },
  { name: "startup-multi", file: "startup-multi.ts", limitMs: 6.5 * 60_000 },
  { name: "cost", file: "cost.ts", limitMs: 3 * 60_000 },
  { name: "watch", file: "watch-cli.ts", limitMs: 2 * 60_000 },
  // Markdown, then put → visible with no load and with one core busy.
  { name: "renderer", file: "renderer.ts", limitMs: 5.5 * 60_000 },
  { name: "activity", file: "activity.ts", limitMs: 3 * 60_000 },
  // Three Gateway restarts with outages of 10–40 s, each start taking up to a minute on a loaded machine.
  { name: "reconnect", file: "reconnect.ts", limitMs: 9.5 * 60_000 },
  // 1,000 cards put and pinned, two pages loading all of them, then passes of flings on each and its static twin.
  { name: "scroll", file: "scroll.ts", limitMs: 13.5 * 60_000 },
];
const TOTAL_MS = 40 * 60_000;
const KILL_GRACE_MS = 10_000;

/** Ctrl-C / SIGTERM: stop the running part (its whole group) and start no more. */
let aborted = false;
let stopCurrent: (() => void) | null = null;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    aborted = true;
    stopCurrent?.();
  });
}

async function runPart(
  part: Part,
  resultsFile: string,
  limitMs: number,
): Promise<{ code: number | null; overran: boolean; seconds: number }> {
  const t0 = performance.now();
  // Its own process group, so an overrun takes the part's Gateway host, writers and browser with it.
  const child = spawn(process.execPath, [path.join(import.meta.dirname, part.file)], {
    stdio: "inherit",
    detached: true,
    env: { ...process.env, PD_BENCH_RESULTS: resultsFile },
  });
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  stopCurrent = () => killGroup("SIGTERM");
  let overran = false;
  const limit = setTimeout(() => {
    overran = true;
    console.error(`bench: ${part.name} still running after ${(limitMs / 1000).toFixed(0)} s: stopping it`);
    killGroup("SIGTERM");
    setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
  }, limitMs);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(limit);
  killGroup("SIGKILL"); // anything the part left behind in its group
  stopCurrent = null;
  return { code, overran, seconds: (performance.now() - t0) / 1000 };
}

async function main(): Promise<number> {
  const only = process.argv.slice(2);
  const unknown = only.filter((n) => !PARTS.some((p) => p.name === n));
  if (unknown.length) {
    console.error(`bench: unknown part(s) ${unknown.join(", ")}; parts: ${PARTS.map((p) => p.name).join(", ")}`);
    return 2;
  }
  const parts = only.length ? PARTS.filter((p) => only.includes(p.name)) : PARTS;
  const dir = mkdtempSync(path.join(os.tmpdir(), "pd-bench-"));
  const resultsFile = path.join(dir, "results.jsonl");
  const t0 = performance.now();
  const rows: TargetRow[] = [];
  const timing: string[] = [];
  try {
    for (const part of parts) {
      const left = TOTAL_MS - (performance.now() - t0);
      if (aborted || left < 30_000) {
        rows.push({
          part: part.name,
          target: "ran",
          measured: aborted ? "not started: interrupted" : "not started: the whole run's time was used up",
          ok: false,
        });
        continue;
      }
      console.log(`\n=== bench: ${part.name} (bench/${part.file}) ===`);
      const r = await runPart(part, resultsFile, Math.min(part.limitMs, left));
      timing.push(`${part.name} ${r.seconds.toFixed(0)} s`);
      const all = readResults(resultsFile);
      const mine = all.filter((x) => x.part === part.name);
      rows.push(...mine);
      if (r.overran)
        rows.push({
          part: part.name,
          target: "finished within its hard stop",
          measured: `stopped after ${r.seconds.toFixed(0)} s`,
          ok: false,
        });
      else if (r.code !== 0) rows.push({ part: part.name, target: "ran to completion", measured: `exit status ${r.code}`, ok: false });
      else if (mine.length === 0)
        rows.push({ part: part.name, target: "reported its targets", measured: "none reported (skipped?)", ok: false });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(rows);
  const misses = rows.filter((r) => !r.ok).length;
  console.log(
    `\nbench: ${rows.length - misses} PASS, ${misses} MISS in ${((performance.now() - t0) / 1000).toFixed(0)} s (${timing.join(", ")})` +
      `${QUICK ? "; reduced sizes (PD_BENCH_QUICK=1)" : ""}. Figures: docs/benchmarks.md`,
  );
  return misses ? 1 : 0;
}

function readResults(file: string): TargetRow[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as TargetRow);
}

function printTable(rows: TargetRow[]): void {
  const head = ["Result", "Part", "Target", "Measured"];
  const cells = rows.map((r) => [r.ok ? "PASS" : "MISS", r.part, r.target, r.measured]);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(width[i]!))
      .join("  ")
      .trimEnd();
  console.log(`\n${line(head)}\n${width.map((w) => "-".repeat(w)).join("  ")}`);
  for (const c of cells) console.log(line(c));
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
