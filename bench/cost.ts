// `node bench/cost.ts` (part of `npm run bench`): the Gateway's cost of being watched. Writers in a child
// process (bench/burst-writer.ts) offer more puts than the Gateway can answer, so the achieved put rate is
// the Gateway's throughput. Blocks of one run rotate (A B C, B C A, C A B): A with nobody else connected,
// B with the desk core + browser host (in this process) and the popover page open in Chromium, C with a
// bare client that subscribes as the desk does and reads nothing (the floor: what the events alone cost).
// Targets: the writers' achieved rate in B ≥ 0.95× A, and the desk's reads per put in B ≤ 1.0.
import { spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, BrowserContext } from "playwright-core";
import { gatewayIdForUrl } from "../main/core/discovery.ts";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { removeHome, startTestHost, type TestHost } from "../test/e2e/support.ts";
import { openPlainPage } from "./plain-page.ts";
import { connectBareClient } from "../test/harness/bare-client.ts";
import type { DoneMessage, GoMessage } from "./burst-writer.ts";
import { startHostedGateway, withTimeout, type HostedGateway } from "./gateway-process.ts";
import { generatedLine, recordTargets, runBounded, size, verdictCell, writeDocSection } from "./harness.ts";
import { ms } from "./stats.ts";

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- cost-bench:start -->";
const END = "<!-- cost-bench:end -->";

type Kind = "A" | "B" | "C";
const ORDER: Kind[] = size(["A", "B", "C", "B", "C", "A", "C", "A", "B"], ["A", "B", "C"]);
const BURST = { sessions: 50, ratePerSecond: 500, connections: 3, warmupMs: size(2000, 1500), durationMs: size(10_000, 5000) };
const HARD_LIMIT_MS = 3 * 60_000 - 10_000;
const TARGETS = { rateRatio: 0.95, readsPerPut: 1.0 };

type Block = {
  kind: Kind;
  rate: number;
  puts: number;
  windowMs: number;
  reads: number | null;
  errors: number;
  /** B: reads the desk started while it counted the Gateway as busy, and the spells of that. */
  busyReads: number | null;
  busySpells: number | null;
  /** B: card changes the desk emitted (what the popover had to draw) in the window. */
  changes: number | null;
};
const WATCHERS: Record<Kind, string> = { A: "none", B: "desk + host + popover", C: "bare subscriber, no reads" };

/** One writer process: warm-up, measured window, done. `onWindow` runs at the window's start and end. */
async function writerBlock(gw: HostedGateway, sessions: string[], onWindow: (edge: "start" | "end") => void): Promise<DoneMessage> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "burst-writer.ts")], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, PD_BENCH_REEXEC: "1" },
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    const done = new Promise<DoneMessage>((resolve, reject) => {
      child.on("message", (m: { type: string; message?: string }) => {
        if (m.type === "measure-start") onWindow("start");
        else if (m.type === "measure-end") onWindow("end");
        else if (m.type === "done") resolve(m as DoneMessage);
        else if (m.type === "error") reject(new Error(`burst writer failed: ${m.message}`));
      });
      void exited.then(() => reject(new Error("burst writer exited before it was done")));
    });
    child.send({
      type: "go",
      url: gw.url,
      token: gw.token,
      sessions,
      connections: BURST.connections,
      ratePerSecond: BURST.ratePerSecond,
      warmupMs: BURST.warmupMs,
      durationMs: BURST.durationMs,
    } satisfies GoMessage);
    return await withTimeout(done, BURST.warmupMs + BURST.durationMs + 60_000, "burst writer block");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await exited;
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const chromium = chromiumAvailable();
  let gw: HostedGateway | null = null;
  let browser: Browser | null = null;
  let th: TestHost | null = null;
  let context: BrowserContext | null = null;
  let subscriber: Awaited<ReturnType<typeof connectBareClient>> | null = null;
  const stopWatchers = async () => {
    await subscriber?.close().catch(() => {});
    subscriber = null;
    await context?.close().catch(() => {});
    context = null;
    if (th) {
      await th.stop().catch(() => {});
      removeHome(th.home);
      th = null;
    }
  };
  try {
    gw = await startHostedGateway();
    const setup = await connectBareClient(gw);
    const sessions = await Promise.all(Array.from({ length: BURST.sessions }, () => setup.createSession()));
    await Promise.all(sessions.map((k, i) => setup.put(k, { markdown: `Cost bench session ${i}: starting` })));
    await setup.close();
    if (chromium.ok) browser = await launchChromium();
    const gatewayId = gatewayIdForUrl(gw.url);
    const blocks: Block[] = [];
    for (const [i, kind] of ORDER.entries()) {
      let reads0 = 0;
      let reads1 = 0;
      let busy0 = { reads: 0, spells: 0 };
      let busy1 = { reads: 0, spells: 0 };
      let changes = 0;
      let counting = false;
      if (kind === "C") {
        subscriber = await connectBareClient(gw);
        await subscriber.request("sessions.subscribe", {});
      }
      if (kind === "B") {
        th = await startTestHost(gw);
        const host = th;
        if (browser) {
          const opened = await openPlainPage(browser, host.host.url);
          context = opened.context;
          // The popover has drawn the sessions' cards: the desk is connected and has read them.
          await opened.page.locator(`article.card[data-key*="${sessions[0]}"]`).waitFor({ timeout: 30_000 });
        } else {
          const want = sessions.length;
          await withTimeout(
            new Promise<void>((resolve) => {
              const check = () => (host.desk.snapshot().gateways[0]?.cards.length ?? 0) >= want && resolve();
              host.desk.subscribe(check);
              check();
            }),
            30_000,
            "desk loaded the cards",
          );
        }
      }
      const desk = th?.desk ?? null;
      const stopCounting = desk?.subscribe((c) => {
        if (counting && c.type === "card") changes += 1;
      });
      const done = await writerBlock(gw, sessions, (edge) => {
        if (!desk) return;
        const st = desk.stats(gatewayId);
        counting = edge === "start";
        if (edge === "start") {
          reads0 = st.reads;
          busy0 = { reads: st.busyReads, spells: st.busySpells };
        } else {
          reads1 = st.reads;
          busy1 = { reads: st.busyReads, spells: st.busySpells };
        }
      });
      stopCounting?.();
      const b: Block = {
        kind,
        rate: done.answered / (done.windowMs / 1000),
        puts: done.answered,
        windowMs: done.windowMs,
        reads: desk ? reads1 - reads0 : null,
        errors: done.errors,
        busyReads: desk ? busy1.reads - busy0.reads : null,
        busySpells: desk ? busy1.spells - busy0.spells : null,
        changes: desk ? changes : null,
      };
      blocks.push(b);
      console.log(
        `  block ${i + 1} ${kind}: ${b.rate.toFixed(0)} puts/s${b.reads !== null ? `, ${b.reads} desk reads for ${b.puts} puts` : ""}${b.errors ? `, ${b.errors} put errors` : ""}`,
      );
      await stopWatchers();
    }
    const mean = (xs: number[]) => xs.reduce((a, v) => a + v, 0) / Math.max(1, xs.length);
    const a = mean(blocks.filter((b) => b.kind === "A").map((b) => b.rate));
    const bRate = mean(blocks.filter((b) => b.kind === "B").map((b) => b.rate));
    const cRate = mean(blocks.filter((b) => b.kind === "C").map((b) => b.rate));
    const bBlocks = blocks.filter((b) => b.kind === "B");
    const reads = bBlocks.reduce((s, b) => s + (b.reads ?? 0), 0);
    const puts = bBlocks.reduce((s, b) => s + b.puts, 0);
    const rows = [
      {
        target: `Watched: writers' put rate with desk + popover ≥ ${TARGETS.rateRatio}× without`,
        measured: `${(bRate / a).toFixed(3)}× (${bRate.toFixed(0)} vs ${a.toFixed(0)} puts/s)${browser ? "" : "; no Chromium: desk + host only"}`,
        ok: bRate / a >= TARGETS.rateRatio && Boolean(browser),
      },
      {
        target: `Watched: desk reads per put under burst ≤ ${TARGETS.readsPerPut.toFixed(1)}`,
        measured: `${(reads / Math.max(1, puts)).toFixed(3)} (${reads} reads, ${puts} puts)`,
        ok: reads / Math.max(1, puts) <= TARGETS.readsPerPut,
      },
    ];
    recordTargets("cost", rows);
    const seconds = (performance.now() - t0) / 1000;
    const floor = `Floor: the bare subscriber that reads nothing (C) left the writers ${(cRate / a).toFixed(3)}× the rate without it (${cRate.toFixed(0)} vs ${a.toFixed(0)} puts/s): what the change events alone cost the Gateway.`;
    writeDocSection(DOC, START, END, section(rows, blocks, startedAt, seconds, floor));
    console.log(`bench/cost: wrote its section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await stopWatchers();
    await browser?.close().catch(() => {});
    await gw?.dispose().catch(() => {});
  }
}

function section(
  rows: { target: string; measured: string; ok: boolean }[],
  blocks: Block[],
  startedAt: Date,
  seconds: number,
  floor: string,
): string {
  return [
    START,
    "## The Gateway's cost of being watched",
    "",
    generatedLine(
      "bench/cost.ts",
      startedAt,
      seconds,
      "one real isolated OpenClaw Gateway on loopback, writers in a child process, headless Chromium",
    ),
    "",
    "| Target | Measured | Result |",
    "|---|---:|:---:|",
    ...rows.map((x) => `| ${x.target} | ${x.measured} | ${verdictCell(x.ok)} |`),
    "",
    "| Block | Watchers | Achieved puts/s | Puts answered | Desk reads | Reads per put | Paced reads (busy spells) | Card changes drawn |",
    "|---:|---|---:|---:|---:|---:|---:|---:|",
    ...blocks.map(
      (b, i) =>
        `| ${i + 1} | ${WATCHERS[b.kind]} | ${b.rate.toFixed(1)} | ${b.puts} | ${b.reads ?? "—"} | ${b.reads === null ? "—" : ms(b.reads / Math.max(1, b.puts), 3)} | ` +
        `${b.busyReads === null ? "—" : `${b.busyReads} (${b.busySpells})`} | ${b.changes ?? "—"} |`,
    ),
    "",
    floor,
    "",
    `Method. ${BURST.sessions} sessions with a card; per block a writer process (\`bench/burst-writer.ts\`, ${BURST.connections} connections) offers ${BURST.ratePerSecond} puts/s round-robin over them, ` +
      `at most one put in flight per session (as an agent awaiting its tool call), so the Gateway is the bottleneck and the achieved rate is what it answers; ` +
      `${BURST.warmupMs / 1000} s warm-up, then a ${BURST.durationMs / 1000} s window. Blocks alternate ${blocks.map((b) => b.kind).join(" ")} in one run on one Gateway: ` +
      "**A** with no other client, **B** with the desk core and browser host (`startTestHost`, in this process) and the popover page open in Chromium, started before the block " +
      "and connected with every card drawn, stopped after it; **C** with one bare client (its own device identity, `sessions.subscribe` as the desk sends) that receives every " +
      "change event and sends nothing more. Reads per put: the desk's `progressCard.get` count between the window's start and end over the puts answered in it. " +
      "Paced reads: reads the desk started while it counted the Gateway as busy (`main/core/gateway-load.ts`: at least 50 change hints a second across at least 5 sessions, " +
      "or its reads coming back far slower than the quickest one on the connection while at least 20 hints arrive a second); then it reads at most 5 cards a second, one at a time, " +
      "the other hints coalescing per session, and every card is read at once when the storm ends. " +
      "Everything shares the machine's CPUs with the Gateway, so the desk's own CPU is part of the cost measured.",
    END,
  ].join("\n");
}

runBounded("bench/cost", main, HARD_LIMIT_MS, "the Gateway host and the writers stop when this process exits");
