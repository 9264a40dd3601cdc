// The core benchmark's section of docs/benchmarks.md (tables, targets, a history of earlier
// runs on this machine) and its summary on the console.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { OPENCLAW_VERSION } from "../../test/harness/install-openclaw.ts";
import { ms, type Summary } from "../stats.ts";
import { QUICK, recordTargets, writeDocSection } from "../harness.ts";
import type { BurstResult } from "./burst.ts";
import type { LatencyResult } from "./latency.ts";
import {
  BURST,
  ELD_RESOLUTION_MS,
  GATEWAY_WARMUP,
  HARD_LIMIT_MS,
  IDLE_SESSIONS,
  ITERATIONS,
  SETTLE_MS,
  TARGETS,
  WARMUP,
} from "./params.ts";
import { trafficText } from "./readings.ts";

const SECTION_START = "<!-- core-bench:start -->";
const SECTION_END = "<!-- core-bench:end -->";
const HISTORY_RUNS = 6;
const HISTORY_MARK = "bench-history";
type HistoryEntry = {
  date: string;
  machine: string;
  load1: number;
  r50: number;
  r95: number;
  r95held: number;
  rate: number;
  correct: number;
  lag99: number;
  rss: number;
};

function machineId(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? "?"} x${cpus.length} ${process.version}`;
}

/** Headline figures of earlier runs on this machine, carried in a comment of the page itself. */
function readHistory(file: string): HistoryEntry[] {
  try {
    const text = readFileSync(file, "utf8");
    const m = new RegExp(`<!-- ${HISTORY_MARK} (.*?) -->`).exec(text);
    const list = m ? (JSON.parse(m[1]!) as HistoryEntry[]) : [];
    return Array.isArray(list) ? list.filter((h) => h && h.machine === machineId()) : [];
  } catch {
    return [];
  }
}

function historyEntry(r: Report): HistoryEntry {
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    date: r.startedAt.toISOString(),
    machine: machineId(),
    load1: round(r.loadAvg[0] ?? 0),
    r50: round(r.lat1.ratioP50),
    r95: round(r.lat1.ratioP95),
    r95held: round(r.lat3.ratioP95),
    rate: Math.round(r.burst.achievedRate),
    correct: r.burst.sessionsCorrect,
    lag99: round(r.burst.eld.p99),
    rss: round(r.burst.rss1 - r.burst.rss0),
  };
}

function historyTable(history: HistoryEntry[]): string {
  const lines = [
    "| Run (UTC) | load 1 min | p50 ratio | p95 ratio | p95 ratio, cards held | puts/s | sessions correct | lag p99 ms | RSS growth MB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const h of history) {
    lines.push(
      `| ${h.date.slice(0, 16).replace("T", " ")} | ${h.load1.toFixed(2)} | ${h.r50.toFixed(2)} | ${h.r95.toFixed(2)} | ${h.r95held.toFixed(2)} | ${h.rate} | ${h.correct}/${BURST.sessions} | ${ms(h.lag99)} | ${h.rss >= 0 ? "+" : ""}${ms(h.rss, 1)} |`,
    );
  }
  return lines.join("\n");
}

export type Report = {
  startedAt: Date;
  loadAvg: number[];
  totalS: number;
  serverVersion: string;
  control: Summary;
  lat1: LatencyResult;
  /** The same puts, timed to the desk's emit and to a subscribed bare reader's get reply. */
  same: { desk: Summary; bare: Summary; deskFirst: number };
  lat3: LatencyResult;
  heldCards: number;
  burst: BurstResult;
};

const verdict = (ok: boolean) => (ok ? "**PASS**" : "**MISS**");
const pct = (x: number) => `${x.toFixed(0)} %`;

function targets(r: Report) {
  const b = r.burst;
  const rssGrowth = b.rss1 - b.rss0;
  return [
    {
      name: `Latency, same puts: p95 core/bare reader ≤ ${TARGETS.p95Ratio}`,
      value: `${(r.same.desk.p95 / r.same.bare.p95).toFixed(2)} (vs quiet control ${(r.same.desk.p95 / r.control.p95).toFixed(2)})`,
      ok: r.same.desk.p95 / r.same.bare.p95 <= TARGETS.p95Ratio,
    },
    {
      name: `Latency, p95 core/baseline ≤ ${TARGETS.p95Ratio} (2 cards held)`,
      value: r.lat1.ratioP95.toFixed(2),
      ok: r.lat1.ratioP95 <= TARGETS.p95Ratio,
    },
    {
      name: `Latency, p95 core/baseline ≤ ${TARGETS.p95Ratio} (${r.heldCards} cards held)`,
      value: r.lat3.ratioP95.toFixed(2),
      ok: r.lat3.ratioP95 <= TARGETS.p95Ratio,
    },
    {
      name: `Burst: every session ends on its last revision (${BURST.sessions}/${BURST.sessions})`,
      value: `${b.sessionsCorrect}/${BURST.sessions}`,
      ok: b.sessionsCorrect === BURST.sessions,
    },
    { name: "Burst: at most 1 read in flight per session", value: String(b.maxInFlightPerSession), ok: b.maxInFlightPerSession === 1 },
    { name: `Burst: desk event-loop lag p99 ≤ ${TARGETS.eldP99Ms} ms`, value: `${ms(b.eld.p99)} ms`, ok: b.eld.p99 <= TARGETS.eldP99Ms },
    {
      name: `Burst: desk RSS growth ≤ ${TARGETS.rssGrowthMb} MB`,
      value: `${rssGrowth >= 0 ? "+" : ""}${ms(rssGrowth, 1)} MB`,
      ok: rssGrowth <= TARGETS.rssGrowthMb,
    },
  ];
}

function latencyTable(res: LatencyResult): string {
  const row = (name: string, s: Summary) =>
    `| ${name} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.mean)} | ${ms(s.max)} |`;
  return [
    "| | n | p50 ms | p95 ms | p99 ms | mean ms | max ms |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row("Baseline (bare put → changed → get)", res.baseline),
    row("Core (put → card emitted by the desk)", res.core),
    `| **Ratio core/baseline** | | **${res.ratioP50.toFixed(2)}** | **${res.ratioP95.toFixed(2)}** | ${(res.core.p99 / res.baseline.p99).toFixed(2)} | ${(res.core.mean / res.baseline.mean).toFixed(2)} | |`,
  ].join("\n");
}

function partsTable(res: LatencyResult): string {
  const lines = ["| Path | Segment | p50 ms | p95 ms |", "|---|---|---:|---:|"];
  for (const [k, v] of Object.entries(res.baselineParts)) lines.push(`| Baseline | ${k} | ${ms(v.p50)} | ${ms(v.p95)} |`);
  for (const [k, v] of Object.entries(res.coreParts)) lines.push(`| Core | ${k} | ${ms(v.p50)} | ${ms(v.p95)} |`);
  return lines.join("\n");
}

function renderMarkdown(r: Report, history: HistoryEntry[]): string {
  const cpus = os.cpus();
  const b = r.burst;
  const t = targets(r);
  const rssGrowth = b.rss1 - b.rss0;
  const missNotes: string[] = [];
  for (const [label, res] of [
    ["2 cards held", r.lat1],
    [`${r.heldCards} cards held`, r.lat3],
  ] as const) {
    if (res.ratioP95 > TARGETS.p95Ratio) {
      const c = res.coreParts;
      const own = (c["event → get sent"]?.p95 ?? Number.NaN) + (c["get reply → card emitted"]?.p95 ?? Number.NaN);
      missNotes.push(
        `- Latency (${label}) missed: the core's p95 is ${ms(res.core.p95)} ms against ${ms(res.baseline.p95)} ms. ` +
          `Segment p95s: the get round trip is ${ms(c["get round trip"]?.p95 ?? Number.NaN)} ms for the desk against ${ms(res.baselineParts["then get reply"]?.p95 ?? Number.NaN)} ms for the baseline's get, ` +
          `the change event reaches the desk by ${ms(c["changed event at desk"]?.p95 ?? Number.NaN)} ms against the baseline's put reply by ${ms(res.baselineParts["put reply"]?.p95 ?? Number.NaN)} ms, ` +
          `and the core's own work (event → read sent, reply → card emitted) is ${ms(own)} ms. ` +
          (own < 1
            ? "So the tail sits in the Gateway round trips, not in the store; see the segment table below."
            : "The core's own work is a visible part of it; see the segment table below."),
      );
    }
  }
  if (b.eld.p99 > TARGETS.eldP99Ms)
    missNotes.push(
      `- Event-loop lag missed: p99 ${ms(b.eld.p99)} ms, max ${ms(b.eld.max)} ms (desk CPU ${pct(b.deskCpuPct)}, Gateway ${b.gatewayCpuPct === null ? "n/a" : pct(b.gatewayCpuPct)}, writers ${pct(b.writerCpuPct)} on ${cpus.length} CPUs; an idle canary process saw p99 ${b.canary ? ms(b.canary.p99) : "n/a"} ms over the same window).`,
    );
  if (rssGrowth > TARGETS.rssGrowthMb) {
    const [ns0, ns1] = b.spaces["new_space"] ?? [0, 0];
    missNotes.push(
      `- RSS growth missed: +${ms(rssGrowth, 1)} MB. Heap used after a full GC went ${ms(b.heap0, 1)} → ${ms(b.heap1, 1)} MB (${b.heap1 - b.heap0 >= 0 ? "+" : ""}${ms(b.heap1 - b.heap0, 1)} MB retained), ` +
        `while V8's young generation (new_space) grew its reservation ${ms(ns0, 1)} → ${ms(ns1, 1)} MB under the allocation rate of the burst; a full GC does not give that back. ` +
        "The RSS samples in the burst table show whether it levels off.",
    );
  }
  if (b.sessionsCorrect !== BURST.sessions)
    missNotes.push(`- ${BURST.sessions - b.sessionsCorrect} sessions did not end on their last revision within ${SETTLE_MS / 1000} s.`);

  return `# Benchmarks

Generated by \`npm run bench\` (\`bench/run.ts\`) on ${r.startedAt.toISOString()}${QUICK ? " — **reduced sizes (PD_BENCH_QUICK=1): a check that it works, not a recorded figure**" : ""} — one run, one real isolated OpenClaw Gateway on loopback, ${r.totalS.toFixed(0)} s in all. Each benchmark script rewrites only its own section of this page; figures move by several percent between runs on a shared machine, so read the ratios first and the absolute numbers beside them.

## Machine

| | |
|---|---|
| CPU | ${cpus[0]?.model ?? "unknown"} × ${cpus.length} |
| Memory | ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB |
| OS | ${os.type()} ${os.release()} (${process.arch}) |
| Load average (1/5/15 min) | at start ${r.loadAvg.map((x) => x.toFixed(2)).join(" / ")}, at end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ")} (other work on the machine shows up here) |
| Node | ${process.version} (native type stripping; \`--expose-gc\`: ${b.gcUsed ? "yes" : "no"}) |
| OpenClaw Gateway | ${OPENCLAW_VERSION} (hello-ok \`server.version\`: ${r.serverVersion}) |

## Targets

| Target | Measured | Result |
|---|---:|:---:|
${t.map((x) => `| ${x.name} | ${x.value} | ${verdict(x.ok)} |`).join("\n")}
${missNotes.length ? `\n${missNotes.join("\n")}\n` : ""}
${history.length > 1 ? `## Run-to-run spread\n\nThe headline figures of this run (last row) and the previous ones on this machine (CPU, count and Node version alike; kept in a comment at the end of this page). The latency tails move with whatever else the machine is doing.\n\n${historyTable(history)}\n\n` : ""}## 1. Latency: put → card in the core's store

Both paths run against the same Gateway in the same run, interleaved A B A B … (the side that goes first alternates per pair), ${ITERATIONS} measured iterations each after ${WARMUP} warm-up iterations each; \`performance.now()\` from just before the put.

- **Baseline** (docs/gateway.md §8.2): a bare client on its own connection puts on its session, waits for \`progressCard.changed\` with that revision on the same connection, then \`progressCard.get\`; timed to the get's reply.
- **Core**: a separate writer connection puts on another session; a \`ProgressDesk\` on its own connection is timed to the moment it emits the card change carrying that revision (event → coalesced read → parse/derive → emit).

Each side uses one session throughout. Load is kept symmetric. Every \`operator.read\` connection gets every card event, so the desk also reads the baseline's session the moment that event reaches it, racing the baseline's own get; to match, the baseline client also reads the core's session in every core iteration. Whichever read of a pair reaches the Gateway second waits a little behind the first, so the mirror read is timed to lose or win that race as often as the desk's read does on the baseline side: the other read went out after the timed one in ${ms(r.lat1.otherAfterPct.baseline, 0)} % of baseline and ${ms(r.lat1.otherAfterPct.core, 0)} % of core iterations (${ms(r.lat3.otherAfterPct.baseline, 0)} % and ${ms(r.lat3.otherAfterPct.core, 0)} % in section 3). Each iteration waits for the other read to finish before the next starts. (With no mirror only the baseline's get has company, which flatters the core; with a mirror that always reads on its own event, it goes first in nearly every core iteration, because the baseline client's connection is older and gets the event first, which penalises the core.)

${latencyTable(r.lat1)}

Desk connection traffic during the measured iterations: ${trafficText(r.lat1.traffic)}.

On the same puts (a writer connection puts on the core's session; the desk and the baseline client, subscribed with \`sessions.subscribe\` as the desk is, both react to the same \`progressCard.changed\`, so which read reaches the Gateway first is left to chance — the desk's card came first in ${r.same.deskFirst} of ${r.same.desk.n}), each put timed from just before it to each side's own result, ${WARMUP} warm-up + ${ITERATIONS} puts:

| | n | p50 ms | p95 ms | p99 ms | mean ms | max ms |
|---|---:|---:|---:|---:|---:|---:|
| Bare reader (changed → get), same puts | ${r.same.bare.n} | ${ms(r.same.bare.p50)} | ${ms(r.same.bare.p95)} | ${ms(r.same.bare.p99)} | ${ms(r.same.bare.mean)} | ${ms(r.same.bare.max)} |
| Core (card emitted by the desk), same puts | ${r.same.desk.n} | ${ms(r.same.desk.p50)} | ${ms(r.same.desk.p95)} | ${ms(r.same.desk.p99)} | ${ms(r.same.desk.mean)} | ${ms(r.same.desk.max)} |
| **Ratio core/bare** | | **${(r.same.desk.p50 / r.same.bare.p50).toFixed(2)}** | **${(r.same.desk.p95 / r.same.bare.p95).toFixed(2)}** | ${(r.same.desk.p99 / r.same.bare.p99).toFixed(2)} | ${(r.same.desk.mean / r.same.bare.mean).toFixed(2)} | |

Control, not interleaved: the baseline alone before the desk connected (after ${GATEWAY_WARMUP} untimed cycles to warm the Gateway up), ${r.control.n} iterations, no other reader: p50 ${ms(r.control.p50)} ms, p95 ${ms(r.control.p95)} ms, p99 ${ms(r.control.p99)} ms, mean ${ms(r.control.mean)} ms. (Spec reference on its own machine: p50 13.7 ms, p95 20 ms.) Core p95 against this control: ${(r.lat1.core.p95 / r.control.p95).toFixed(2)}.

Where the time goes (per segment; the core's segments come from timestamps on the desk's own GatewayClient, passed in through the core's \`createClient\` hook — the real client, only timestamped):

${partsTable(r.lat1)}

## 3. Latency with ${IDLE_SESSIONS} more sessions holding cards

The same interleaved comparison after ${IDLE_SESSIONS} more sessions were created and each given a card the desk loaded (${r.heldCards} cards in the store).

${latencyTable(r.lat3)}

Desk connection traffic during the measured iterations: ${trafficText(r.lat3.traffic)}.

Core against the 2-card run: p50 ${ms(r.lat1.core.p50)} → ${ms(r.lat3.core.p50)} ms, p95 ${ms(r.lat1.core.p95)} → ${ms(r.lat3.core.p95)} ms.

## 2. Burst: ${BURST.sessions} sessions × ${BURST.perSessionPerSecond} puts/s for ${BURST.durationMs / 1000} s

${b.rate} puts/s offered in all: ticks paced by a 5 ms timer against the clock, round-robin over the sessions and ${BURST.connections} writer connections, in a **child process** (\`bench/burst-writer.ts\`), so the lag, CPU and RSS below are the desk's process alone. Like an agent awaiting its tool call, a session has at most one put in flight: a tick that finds its session's put unanswered is sent when the reply arrives (further ticks meanwhile fold into it), so an overloaded Gateway slows the writers down instead of queueing without bound, and the achieved rate is what the Gateway answers. A ${BURST.warmupMs / 1000} s warm-up at the full rate comes first and is not counted. The desk holds ${r.heldCards} other cards meanwhile.

| | |
|---|---|
| Window | ${ms(b.windowMs / 1000, 1)} s: ${b.ticks} ticks, ${b.issued} puts sent, ${b.answered} replies received |
| Achieved put rate (replies in the window) | **${b.achievedRate.toFixed(0)} /s** of ${b.rate} /s offered (sent ${b.issuedRate.toFixed(0)} /s) |
| Ticks that found their session busy | ${b.deferred} sent on the reply, ${b.dropped} folded into one already owed; last replies ${ms(b.drainMs, 0)} ms after the window |
| Put errors | ${b.errors}${b.firstError ? ` (first: ${b.firstError})` : ""} |
| Put round trip at the writers | p50 ${ms(b.putLatency.p50)} ms, p99 ${ms(b.putLatency.p99)} ms, max ${ms(b.putLatency.max)} ms; at most ${b.maxInFlightPuts} puts in flight |
| Sessions on their last revision after settling | **${b.sessionsCorrect} / ${BURST.sessions}** ${b.convergedMs === null ? `(not all within ${SETTLE_MS / 1000} s)` : `(all within ${ms(b.convergedMs, 0)} ms of the writers finishing)`} |
| Last put's revision = Gateway's final \`get\` / = highest returned | ${b.lastVsGateway} / ${BURST.sessions}, ${b.lastVsMax} / ${BURST.sessions} |
| Max reads in flight per session | **${b.maxInFlightPerSession}** |
| Desk reads vs puts (coalescing) | **${b.reads} reads for ${b.issued} puts** (${((b.reads / Math.max(1, b.issued)) * 100).toFixed(0)} %); ${b.cardChanges} card changes emitted for the burst sessions (warm-up included), ${b.regressions} went back a revision |
| Desk event-loop lag (\`monitorEventLoopDelay\`) | p50 ${ms(b.eld.p50)} ms, **p99 ${ms(b.eld.p99)} ms**, max ${ms(b.eld.max)} ms (${b.eld.samples} samples) |
| Same, in an idle canary process over the same window (machine noise) | ${b.canary ? `p50 ${ms(b.canary.p50)} ms, p99 ${ms(b.canary.p99)} ms, max ${ms(b.canary.max)} ms` : "n/a"} |
| Desk RSS, after warm-up → end (both after \`gc()\`) | ${ms(b.rss0, 1)} → ${ms(b.rss1, 1)} MB (**${rssGrowth >= 0 ? "+" : ""}${ms(rssGrowth, 1)} MB**) |
| Desk heap used / heap total / external | ${ms(b.heap0, 1)} → ${ms(b.heap1, 1)} MB / ${ms(b.heapTotal0, 1)} → ${ms(b.heapTotal1, 1)} MB / ${ms(b.external0, 1)} → ${ms(b.external1, 1)} MB |
| V8 space sizes reserved, after warm-up → end | ${Object.entries(b.spaces)
    .filter(([, [a, c]]) => Math.abs(c - a) >= 0.5 || c >= 5)
    .map(([k, [a, c]]) => `${k} ${ms(a, 1)} → ${ms(c, 1)}`)
    .join(", ")} MB |
| Desk connection traffic (window and settle) | ${trafficText(b.traffic)} |
| Desk RSS each 5 s of the window (no gc) | ${b.rssSeries
    .filter((_, i) => i % 5 === 4)
    .map((v) => ms(v, 0))
    .join(" → ")} MB |
| CPU during the window (100 % = one core) | desk ${pct(b.deskCpuPct)}, writers ${pct(b.writerCpuPct)}, Gateway ${b.gatewayCpuPct === null ? "n/a" : pct(b.gatewayCpuPct)} |
| Desk connection attempts (whole run) | ${b.attempts} |

Notes: lag is the histogram's timer interval minus its ${ELD_RESOLUTION_MS} ms resolution (the histogram records the whole interval), measured over the window only. Both RSS readings follow a full \`global.gc()\` (the benchmark re-runs itself with \`--expose-gc\`); the end reading is taken after the desk has settled. "Last revision" compares \`desk.entry()\` per session with the revision the writers' last put returned, after the writers finished and waited for every reply, polling for up to ${SETTLE_MS / 1000} s. The Gateway's CPU figure is its main process from \`/proc\` (Linux only). The Gateway is started by the test harness from a helper process (\`bench/gateway-host.ts\`), because the harness keeps the Gateway's last 20,000 log lines in memory in the process that starts it: in the desk's process that showed up as about 9 MB of heap growth under the burst (the Gateway logs per request) plus the CPU to split and store the lines.

## Reproduce

\`\`\`sh
npm ci
npm run gateway:prepare   # installs the pinned OpenClaw ${OPENCLAW_VERSION} (and Node 24 if needed) into .cache/
npm run bench             # builds, then bench/all.ts runs every part (this one, start-up, cost, watch, renderer, activity)
\`\`\`

Node 24 (≥ 24.16) is required. The benchmark starts its own Gateway on a free loopback port with a temporary state directory and removes both when it ends (or after ${HARD_LIMIT_MS / 60_000} minutes at most). Parameters are constants at the top of \`bench/run.ts\`.

<!-- ${HISTORY_MARK} ${JSON.stringify(history)} -->
`;
}

function printSummary(r: Report): void {
  const line = (label: string, res: LatencyResult) =>
    `${label}: baseline p50 ${ms(res.baseline.p50)} / p95 ${ms(res.baseline.p95)} ms; core p50 ${ms(res.core.p50)} / p95 ${ms(res.core.p95)} ms; ratio p50 ${res.ratioP50.toFixed(2)}, p95 ${res.ratioP95.toFixed(2)}`;
  const b = r.burst;
  console.log("");
  console.log("=== Progress Desk benchmark ===");
  console.log(line("Latency (2 cards)", r.lat1));
  console.log(line(`Latency (${r.heldCards} cards)`, r.lat3));
  console.log(`Control baseline alone: p50 ${ms(r.control.p50)} / p95 ${ms(r.control.p95)} ms`);
  console.log(
    `Burst: ${b.achievedRate.toFixed(0)}/${b.rate} puts/s, ${b.sessionsCorrect}/${BURST.sessions} sessions on last revision, max in flight/session ${b.maxInFlightPerSession}, ` +
      `${b.reads} reads for ${b.issued} puts, lag p50/p99/max ${ms(b.eld.p50)}/${ms(b.eld.p99)}/${ms(b.eld.max)} ms (idle canary p99 ${b.canary ? ms(b.canary.p99) : "n/a"} ms), RSS ${ms(b.rss0, 1)} → ${ms(b.rss1, 1)} MB`,
  );
  recordTargets(
    "core",
    targets(r).map((x) => ({ target: x.name, measured: x.value, ok: x.ok })),
  );
}

/** Writes the section (and, for a full run, this run into the history) and prints the summary. */
export function publish(report: Report): void {
  const totalS = report.totalS;
  const out = path.join(import.meta.dirname, "..", "..", "docs", "benchmarks.md");
  // A reduced-size check is not a run to remember.
  const history = QUICK ? readHistory(out) : [...readHistory(out), historyEntry(report)].slice(-HISTORY_RUNS);
  // Only this script's section: the renderer and activity benchmarks keep theirs.
  writeDocSection(out, SECTION_START, SECTION_END, `${SECTION_START}\n${renderMarkdown(report, history).trimEnd()}\n${SECTION_END}`);
  printSummary(report);
  console.log(`bench: wrote docs/benchmarks.md (${totalS.toFixed(0)} s in all)`);
}
