// `node bench/watch-cli.ts` (part of `npm run bench`): `progress-desk watch --json` as a process. One writer
// puts on one session; the spawned CLI and a bare reader (both subscribed to sessions, each on its own
// connection) follow it. Each put is timed from just before it to each side's own result: the CLI's JSON line
// with that revision arriving on its stdout pipe, and the bare reader's `progressCard.get` reply with that
// revision (it reads on its `progressCard.changed`). Both react to the same event, so which read reaches the
// Gateway first is left to chance. Also a quiet baseline: the bare reader alone before the CLI starts.
// Target: p95 CLI ≤ 1.25× p95 bare (same puts). Writes its section of docs/benchmarks.md.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { spawnCli, type Spawned } from "./cli-process.ts";
import { startHostedGateway, withTimeout, type HostedGateway } from "./gateway-process.ts";
import { bareResult, generatedLine, recordTargets, runBounded, size, verdictCell, writeDocSection } from "./harness.ts";
import { ms, summarize, type Summary } from "./stats.ts";

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- watch-bench:start -->";
const END = "<!-- watch-bench:end -->";

const WARMUP = size(30, 10);
const ITERATIONS = size(300, 60);
const QUIET = size(150, 30);
const STEP_TIMEOUT_MS = 10_000;
const HARD_LIMIT_MS = 2 * 60_000 - 10_000;
const TARGET_P95_RATIO = 1.25;

/** Resolves with the performance.now() at which the CLI printed a card line for (key, rev). */
class CliLines {
  private readonly waiters = new Map<string, (at: number) => void>();
  private readonly seen = new Map<string, number>();
  constructor(proc: Spawned) {
    proc.onLine = (line, at) => {
      let m: { type?: string; sessionKey?: string; revision?: number | null };
      try {
        m = JSON.parse(line);
      } catch {
        return;
      }
      if (m.type !== "card" || !m.sessionKey || m.revision == null) return;
      const id = `${m.sessionKey}#${m.revision}`;
      if (this.seen.has(id)) return;
      this.seen.set(id, at);
      this.waiters.get(id)?.(at);
      this.waiters.delete(id);
    };
  }
  when(key: string, rev: number): Promise<number> {
    const id = `${key}#${rev}`;
    const got = this.seen.get(id);
    if (got !== undefined) return Promise.resolve(got);
    return withTimeout(new Promise<number>((resolve) => this.waiters.set(id, resolve)), STEP_TIMEOUT_MS, `watch --json line ${id}`);
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  let gw: HostedGateway | null = null;
  let cli: Spawned | null = null;
  const clients: BareClient[] = [];
  try {
    gw = await startHostedGateway();
    const W = await connectBareClient(gw);
    clients.push(W);
    const R = await connectBareClient(gw);
    clients.push(R);
    await R.request("sessions.subscribe", { limit: 100, excludeSubagents: true });
    const key = await W.createSession();
    let rev = (await W.put(key, { markdown: "watch bench: starting" })).card!.revision;

    const put = (i: number) =>
      W.put(key, { markdown: `watch bench put ${i}: checking the build`, plan: [{ step: "Run the tests", status: "in_progress" }] });

    console.log(`bench/watch: quiet baseline, the bare reader alone: ${QUIET} puts…`);
    const quiet: number[] = [];
    for (let i = 0; i < WARMUP + QUIET; i++) {
      const bare = bareResult(R, key, rev + 1, STEP_TIMEOUT_MS);
      const start = performance.now();
      rev = (await put(i)).card!.revision;
      const b = await bare;
      if (b.rev < rev) throw new Error(`bare reader got revision ${b.rev}, expected ${rev}`);
      if (i >= WARMUP) quiet.push(b.at - start);
    }

    cli = spawnCli(["watch", "--json"], gw);
    const lines = new CliLines(cli);
    await lines.when(key, rev).catch(() => {
      throw new Error("watch --json never printed the session's card");
    });
    console.log(`bench/watch: CLI and bare reader on the same puts: ${WARMUP} + ${ITERATIONS}…`);
    const cliMs: number[] = [];
    const bareMs: number[] = [];
    let cliFirst = 0;
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const bare = bareResult(R, key, rev + 1, STEP_TIMEOUT_MS);
      const start = performance.now();
      rev = (await put(WARMUP + QUIET + i)).card!.revision;
      const [c, b] = await Promise.all([lines.when(key, rev), bare]);
      if (b.rev < rev) throw new Error(`bare reader got revision ${b.rev}, expected ${rev}`);
      if (i < WARMUP) continue;
      cliMs.push(c - start);
      bareMs.push(b.at - start);
      if (c < b.at) cliFirst += 1;
    }
    const r = { quiet: summarize(quiet), cli: summarize(cliMs), bare: summarize(bareMs), cliFirst };
    const ratio = r.cli.p95 / r.bare.p95;
    const rows = [
      {
        target: `watch --json: put → JSON line on stdout, p95 ≤ ${TARGET_P95_RATIO}× bare reader (same puts)`,
        measured: `${ratio.toFixed(2)}× (${ms(r.cli.p95)} vs ${ms(r.bare.p95)} ms; vs quiet bare ${(r.cli.p95 / r.quiet.p95).toFixed(2)}×)`,
        ok: ratio <= TARGET_P95_RATIO,
      },
    ];
    recordTargets("watch", rows);
    const seconds = (performance.now() - t0) / 1000;
    writeDocSection(DOC, START, END, section(rows, r, startedAt, seconds));
    console.log(`bench/watch: wrote its section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await cli?.stop();
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await gw?.dispose().catch(() => {});
  }
}

function section(
  rows: { target: string; measured: string; ok: boolean }[],
  r: { quiet: Summary; cli: Summary; bare: Summary; cliFirst: number },
  startedAt: Date,
  seconds: number,
): string {
  const row = (name: string, s: Summary) => `| ${name} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} |`;
  return [
    START,
    "## `watch --json` as a process",
    "",
    generatedLine("bench/watch-cli.ts", startedAt, seconds, "one real isolated OpenClaw Gateway on loopback, the built CLI spawned"),
    "",
    "| Target | Measured | Result |",
    "|---|---:|:---:|",
    ...rows.map((x) => `| ${x.target} | ${x.measured} | ${verdictCell(x.ok)} |`),
    "",
    "| put → result (ms) | n | p50 | p95 | p99 | max |",
    "|---|---:|---:|---:|---:|---:|",
    row("Quiet baseline: bare reader alone (put → changed → get)", r.quiet),
    row("Bare reader, same puts as the CLI", r.bare),
    row("`watch --json`: put → its JSON line on the stdout pipe", r.cli),
    `| **Ratio CLI / bare (same puts)** | | **${(r.cli.p50 / r.bare.p50).toFixed(2)}** | **${(r.cli.p95 / r.bare.p95).toFixed(2)}** | ${(r.cli.p99 / r.bare.p99).toFixed(2)} | |`,
    `| Ratio CLI / quiet baseline | | ${(r.cli.p50 / r.quiet.p50).toFixed(2)} | ${(r.cli.p95 / r.quiet.p95).toFixed(2)} | ${(r.cli.p99 / r.quiet.p99).toFixed(2)} | |`,
    "",
    `Method. A writer bare client puts a new revision on one session, one put at a time; the spawned \`progress-desk watch --json\` (the built CLI, its own data folder, token on stdin) ` +
      "and a bare reader on its own connection (subscribed with `sessions.subscribe`, as the desk is) both follow it: each put is timed from just before the put to each side's own result — " +
      "the CLI's JSON card line with that revision arriving on the stdout pipe (timestamped on `data` in this process), and the bare reader's `progressCard.get` reply after its `progressCard.changed`. " +
      `Both react to the same event, so which read reaches the Gateway first is left to chance (the CLI's line came first in ${r.cliFirst} of ${r.cli.n}). ` +
      `${WARMUP} warm-up puts before each series are not counted. The quiet baseline is the bare reader alone, before the CLI started.`,
    END,
  ].join("\n");
}

runBounded("bench/watch", main, HARD_LIMIT_MS, "the Gateway host stops when this process exits");
