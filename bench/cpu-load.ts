// A CPU load generator for the benchmarks (issue 21): a process of its own that keeps one core busy with
// the kind of work a desktop neighbour does, building ~10 KB objects shaped like a Gateway reply (sessions
// with their progress cards and notes) and running JSON.stringify + JSON.parse on them, without pause.
//   node bench/cpu-load.ts <max seconds>   prints {"type":"started",...} once working; exits by itself
//   after the maximum, when its stdin closes (the parent stopped it or died) or when its parent changes.
// On a stdin close it prints {"type":"stopped", cpuMs, wallMs, rounds} first, so the parent can say how
// much of a core it really got. `startCpuLoad()` spawns it for a benchmark.
import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { realisticNote } from "./realistic-note.ts";

const DEFAULT_MAX_SECONDS = 120;
/** Work between two turns of the event loop: short, so a closed stdin or a dead parent is noticed at once. */
const SLICE_MS = 20;
const STOP_GRACE_MS = 5000;

export type CpuLoadReport = { cpuMs: number; wallMs: number; rounds: number; bytes: number };

export type CpuLoad = {
  description: string;
  /** Stops it and waits for its exit; its report (null if it exited without one). */
  stop(): Promise<CpuLoadReport | null>;
};

/** One reply-shaped object of about 10 KB; `i` varies every field, so nothing can be cached. */
export function loadObject(i: number): unknown {
  return {
    type: "res",
    id: `req-${i}`,
    ok: true,
    payload: {
      ts: 1_780_000_000_000 + i,
      sessions: Array.from({ length: 6 }, (_, s) => ({
        key: `agent:main:session-${(i * 6 + s) % 9973}`,
        label: `Session ${s} of round ${i}`,
        updatedAt: 1_780_000_000_000 + i * 10 + s,
        tokens: { input: (i * 31 + s) % 50_000, output: (i * 17 + s) % 9_000 },
        card: {
          revision: i + s,
          markdown: realisticNote(i + s),
          plan: [
            { step: "Fetch sources", status: "completed" },
            { step: "Run the tests", status: (i + s) % 2 ? "in_progress" : "completed" },
            { step: "Write the report", status: "pending" },
          ],
        },
      })),
    },
  };
}

/** The generator itself (this file run as a script). */
function runGenerator(maxSeconds: number): void {
  const parent = process.ppid;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let rounds = 0;
  let sink = 0; // read after the loop, so the work cannot be dropped as unused
  const bytes = Buffer.byteLength(JSON.stringify(loadObject(0)));
  let finishing = false;
  const finish = (report: boolean) => {
    if (finishing) return;
    finishing = true;
    if (report) {
      const c = process.cpuUsage(cpu0);
      const out: CpuLoadReport = { cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0, rounds, bytes };
      process.stdout.write(JSON.stringify({ type: "stopped", ...out, sink: sink % 7 }) + "\n", () => process.exit(0));
    } else process.exit(0);
  };
  process.stdin.on("end", () => finish(true));
  process.stdin.on("close", () => finish(true));
  process.stdin.on("error", () => finish(false));
  process.stdin.resume();
  const slice = () => {
    const until = performance.now() + SLICE_MS;
    while (performance.now() < until) {
      const text = JSON.stringify(loadObject(rounds));
      const back = JSON.parse(text) as { payload: { sessions: { card: { revision: number } }[] } };
      sink += back.payload.sessions.length + back.payload.sessions[5]!.card.revision;
      rounds++;
    }
    // A parent that died without closing our stdin (SIGKILL of a group with another holder) still ends us.
    if (process.ppid !== parent || performance.now() - t0 > maxSeconds * 1000) finish(false);
    else setImmediate(slice);
  };
  process.stdout.write(JSON.stringify({ type: "started", pid: process.pid, bytes, maxSeconds }) + "\n");
  setImmediate(slice);
}

/** Children still running: killed when this process exits, however it exits. */
const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

/** Spawns the generator and resolves once it is working (its "started" line). */
export async function startCpuLoad(maxSeconds = DEFAULT_MAX_SECONDS): Promise<CpuLoad> {
  const child = spawn(process.execPath, [import.meta.filename, String(maxSeconds)], { stdio: ["pipe", "pipe", "inherit"] });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => live.delete(child));
  child.stdin!.on("error", () => {});
  let report: CpuLoadReport | null = null;
  const started = Promise.withResolvers<{ bytes: number }>();
  void exited.then(() => started.reject(new Error("the CPU load generator exited before it started")));
  let buffered = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const m = JSON.parse(buffered.slice(0, nl)) as { type: string } & CpuLoadReport;
      buffered = buffered.slice(nl + 1);
      if (m.type === "started") started.resolve(m);
      if (m.type === "stopped") report = { cpuMs: m.cpuMs, wallMs: m.wallMs, rounds: m.rounds, bytes: m.bytes };
    }
  });
  const startTimer = setTimeout(() => started.reject(new Error("the CPU load generator did not start within 10 s")), 10_000);
  const stop = async (): Promise<CpuLoadReport | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
    }
    return report;
  };
  try {
    const { bytes } = await started.promise;
    return {
      description: `one core kept busy by a separate Node process building ${(bytes / 1024).toFixed(1)} KB reply-shaped objects (6 sessions with a progress card and a 1–2 KB note each) and running JSON.stringify + JSON.parse on them in a loop without pause`,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(startTimer);
  }
}

if (import.meta.main) runGenerator(Number(process.argv[2] ?? DEFAULT_MAX_SECONDS));
