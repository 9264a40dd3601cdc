// `npm run bench`: the core against ONE real, isolated Gateway on loopback, in one run.
//   1. Latency put → card in the desk's store, interleaved with the bare-protocol baseline
//      (put → changed → get on one connection, docs/gateway.md §8.2): core/latency.ts.
//   2. Burst: 50 sessions × 10 puts/s for 30 s from writer connections in a child process;
//      last-revision correctness, read coalescing, event-loop lag and RSS of the desk: core/burst.ts.
//   3. Latency again with 50 more sessions holding cards (does the store slow down?).
// Writes its section of docs/benchmarks.md and prints a summary (core/report.ts). Bounded
// (~1.5 min, hard stop at 5), cleans up the Gateway. This file runs the phases in order.
import { spawn } from "node:child_process";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { ProgressDesk } from "../main/core/desk.ts";
import { gatewayIdForUrl } from "../main/core/discovery.ts";
import { CredentialVault, memoryStorage } from "../main/core/vault.ts";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { until } from "../test/harness/until.ts";
import { startHostedGateway, type HostedGateway } from "./gateway-process.ts";
import { runBounded } from "./harness.ts";
import { BurstTracker, runBurst } from "./core/burst.ts";
import { DeskWatch } from "./core/desk-watch.ts";
import { latencyRig } from "./core/latency.ts";
import { card, gc, HARD_LIMIT_MS, IDLE_SESSIONS, STEP_TIMEOUT_MS } from "./core/params.ts";
import { publish } from "./core/report.ts";

// RSS readings want a full GC first: re-run this file with --expose-gc if it was not given.
if (typeof gc !== "function" && process.env.PD_BENCH_REEXEC !== "1") {
  const child = spawn(process.execPath, ["--expose-gc", ...process.execArgv, import.meta.filename, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, PD_BENCH_REEXEC: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  runBounded("bench", main, HARD_LIMIT_MS, "the Gateway is killed on exit");
}

function sleep(msDelay: number): Promise<void> {
  return new Promise((r) => setTimeout(r, msDelay));
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAvg = os.loadavg();
  const t0 = performance.now();
  let gw: HostedGateway | null = null;
  let desk: ProgressDesk | null = null;
  const bare: BareClient[] = [];
  try {
    console.log("bench: starting an isolated Gateway…");
    gw = await startHostedGateway();
    const B = await connectBareClient(gw); // baseline: put → changed → get on its own connection
    bare.push(B);
    const W = await connectBareClient(gw); // the writer whose puts the desk follows
    bare.push(W);
    const serverVersion = (B.hello as { server?: { version?: string } }).server?.version ?? "unknown";
    const sB = await B.createSession();
    const sC = await W.createSession();

    const watch = new DeskWatch();
    watch.tracked = new Set([sB, sC]);
    const latency = latencyRig(B, W, sB, sC, watch);

    // ——— control: the baseline alone, before the desk connects ———
    const control = await latency.control();

    // ——— the desk ———
    const vault = await CredentialVault.open(memoryStorage());
    desk = new ProgressDesk({
      gateways: [{ url: gw.url, token: gw.token }],
      vault,
      clientVersion: "0.1.0-bench",
      createClient: watch.createClient,
    });
    const gatewayId = gatewayIdForUrl(gw.url);
    let connected = false;
    const tracker = new BurstTracker();
    desk.subscribe((change) => {
      if (change.type === "connection" && change.connection.state === "connected") connected = true;
      watch.onChange(change);
      tracker.onChange(change);
    });
    desk.start();
    latency.deskStarted();
    await until("desk connected", () => connected, 45_000, 20);
    await until("desk loaded the baseline session", () => desk!.entry(gatewayId, sB)?.card != null, STEP_TIMEOUT_MS, 20);

    // ——— 1. latency, empty store ———
    const lat1 = await latency.interleaved("latency (store holds 2 cards)");

    // ——— 1b. the same puts: the desk and a subscribed bare reader, each timed to its own result ———
    const same = await latency.samePut();

    // ——— 3. latency with 50 idle sessions holding cards ———
    console.log(`bench: loading ${IDLE_SESSIONS} idle sessions with cards…`);
    const idle = await Promise.all(Array.from({ length: IDLE_SESSIONS }, () => W.createSession()));
    await Promise.all(idle.map((key, i) => W.put(key, card("Idle", i))));
    await until("desk holds the idle cards", () => idle.every((key) => desk!.entry(gatewayId, key)?.card?.revision === 1), 20_000, 20);
    // Session-created events can trail the puts; let them all land before timing.
    await until(
      "desk lists the idle sessions",
      () => idle.every((key) => desk!.snapshot().gateways[0]!.sessions.some((s) => s.key === key)),
      20_000,
      20,
    ).catch(() => 0);
    const heldCards = desk.snapshot().gateways[0]!.cards.length;
    await sleep(1000);
    const lat3 = await latency.interleaved(`latency (store holds ${heldCards} cards)`);

    // The latency clients go away so the burst measures only the desk and its writers.
    await Promise.all(bare.splice(0).map((c) => c.close()));

    // ——— 2. burst ———
    const burst = await runBurst(gw, desk, gatewayId, watch, tracker);

    publish({ startedAt, loadAvg, totalS: (performance.now() - t0) / 1000, serverVersion, control, lat1, same, lat3, heldCards, burst });
  } finally {
    desk?.stop();
    await Promise.all(bare.map((c) => c.close().catch(() => {})));
    await gw?.dispose();
  }
}
