// The burst: BURST.sessions sessions written at BURST.perSessionPerSecond each from writer
// connections in a child process (burst-writer.ts), while an idle canary process measures its
// own event-loop delay. Read off the desk: last-revision correctness, read coalescing,
// event-loop lag, CPU and memory.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { DeskChange } from "../../common/model.ts";
import type { ProgressDesk } from "../../main/core/desk.ts";
import { connectBareClient } from "../../test/harness/bare-client.ts";
import { until } from "../../test/harness/until.ts";
import type { DoneMessage, GoMessage, MeasureEnd } from "../burst-writer.ts";
import { withTimeout, type HostedGateway } from "../gateway-process.ts";
import type { Summary } from "../stats.ts";
import type { DeskWatch } from "./desk-watch.ts";
import { BURST, ELD_RESOLUTION_MS, gc, SETTLE_MS, STEP_TIMEOUT_MS } from "./params.ts";
import { heapSpaces, mb, procCpuMs } from "./readings.ts";

export type BurstResult = {
  rate: number;
  windowMs: number;
  issued: number;
  answered: number;
  ticks: number;
  deferred: number;
  dropped: number;
  drainMs: number;
  rssSeries: number[];
  errors: number;
  firstError: string | null;
  achievedRate: number;
  issuedRate: number;
  maxInFlightPuts: number;
  putLatency: Summary;
  sessionsCorrect: number;
  convergedMs: number | null;
  lastVsGateway: number;
  lastVsMax: number;
  maxInFlightPerSession: number;
  reads: number;
  attempts: number;
  cardChanges: number;
  regressions: number;
  eld: { p50: number; p99: number; max: number; samples: number };
  canary: { p50: number; p99: number; max: number; samples: number } | null;
  rss0: number;
  rss1: number;
  heap0: number;
  heap1: number;
  heapTotal0: number;
  heapTotal1: number;
  external0: number;
  external1: number;
  spaces: Record<string, [number, number]>;
  traffic: Record<string, number>;
  deskCpuPct: number;
  writerCpuPct: number;
  gatewayCpuPct: number | null;
  gcUsed: boolean;
};

/** The burst sessions' card changes as the desk emits them: how many, and any revision that went back. */
export class BurstTracker {
  readonly keys = new Set<string>();
  readonly #seen = new Map<string, number>();
  regressions = 0;
  cardChanges = 0;

  onChange(change: DeskChange): void {
    if (change.type === "card" && this.keys.has(change.entry.sessionKey) && change.entry.card) {
      this.cardChanges += 1;
      const rev = change.entry.card.revision;
      const before = this.#seen.get(change.entry.sessionKey) ?? 0;
      if (rev < before) this.regressions += 1;
      this.#seen.set(change.entry.sessionKey, Math.max(before, rev));
    }
  }
}

export async function runBurst(
  gw: HostedGateway,
  desk: ProgressDesk,
  gatewayId: string,
  watch: DeskWatch,
  tracker: BurstTracker,
): Promise<BurstResult> {
  let writer: ChildProcess | null = null;
  try {
    const rate = BURST.sessions * BURST.perSessionPerSecond;
    console.log(
      `bench: burst: ${BURST.sessions} sessions × ${BURST.perSessionPerSecond}/s = ${rate} puts/s for ${BURST.durationMs / 1000} s (+${BURST.warmupMs / 1000} s warm-up), writers in a child process…`,
    );
    const setup = await connectBareClient(gw);
    const burstSessions = await Promise.all(Array.from({ length: BURST.sessions }, () => setup.createSession()));
    await setup.close();
    for (const k of burstSessions) tracker.keys.add(k);
    await until("desk saw the burst sessions", () => burstSessions.every((k) => desk.entry(gatewayId, k) !== null), STEP_TIMEOUT_MS, 20);

    writer = spawn(process.execPath, [path.join(import.meta.dirname, "..", "burst-writer.ts")], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, PD_BENCH_REEXEC: "1" },
    });
    const inbox: { type: string }[] = [];
    const inboxWaiters = new Set<() => void>();
    let writerExit: string | null = null;
    writer.on("message", (m: { type: string }) => {
      inbox.push(m);
      for (const w of inboxWaiters) w();
    });
    writer.on("exit", (code, signal) => {
      writerExit = `writer exited (${signal ?? code})`;
      for (const w of inboxWaiters) w();
    });
    const next = async <T extends { type: string }>(type: string, timeoutMs: number): Promise<T> => {
      const found = (): T | undefined => {
        const err = inbox.find((m) => m.type === "error") as { message?: string } | undefined;
        if (err) throw new Error(`burst writer failed: ${err.message}`);
        const i = inbox.findIndex((m) => m.type === type);
        return i >= 0 ? (inbox.splice(i, 1)[0] as T) : undefined;
      };
      const now = found();
      if (now) return now;
      return withTimeout(
        new Promise<T>((resolve, reject) => {
          const check = () => {
            try {
              const m = found();
              if (m) {
                inboxWaiters.delete(check);
                resolve(m);
              } else if (writerExit) {
                inboxWaiters.delete(check);
                reject(new Error(`${writerExit} before "${type}"`));
              }
            } catch (err) {
              inboxWaiters.delete(check);
              reject(err);
            }
          };
          inboxWaiters.add(check);
        }),
        timeoutMs,
        `burst writer "${type}"`,
      );
    };
    writer.send({
      type: "go",
      url: gw.url,
      token: gw.token,
      sessions: burstSessions,
      connections: BURST.connections,
      ratePerSecond: rate,
      warmupMs: BURST.warmupMs,
      durationMs: BURST.durationMs,
    } satisfies GoMessage);
    await next("connected", 60_000);
    // The canary: an idle process measuring its own event-loop delay over the same window.
    const canary = spawn(process.execPath, [path.join(import.meta.dirname, "..", "lag-canary.ts")], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, PD_LAG_RESOLUTION_MS: String(ELD_RESOLUTION_MS) },
    });
    const canaryLag = new Promise<{ p50: number; p99: number; max: number; samples: number } | null>((resolve) => {
      canary.on("message", (m: { type: string; p50: number; p99: number; max: number; samples: number }) => {
        if (m.type === "lag") resolve(m);
      });
      canary.once("exit", () => resolve(null));
    });
    await next("measure-start", BURST.warmupMs + 10_000);
    gc?.();
    const rss0 = process.memoryUsage();
    const spaces0 = heapSpaces();
    const traffic0 = new Map(watch.traffic);
    const stats0 = desk.stats(gatewayId);
    const cpu0 = process.cpuUsage();
    const gwCpu0 = procCpuMs(gw.pid);
    const eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
    eld.enable();
    const tWindow = performance.now();
    const rssSeries: number[] = [];
    const sampler = setInterval(() => rssSeries.push(mb(process.memoryUsage.rss())), 1000);
    const end = await next<MeasureEnd>("measure-end", BURST.durationMs + 20_000);
    eld.disable();
    clearInterval(sampler);
    if (canary.connected) canary.send({ type: "stop" });
    const canaryResult = await withTimeout(canaryLag, 5000, "lag canary").catch(() => null);
    canary.kill();
    const deskWindowMs = performance.now() - tWindow;
    const cpu = process.cpuUsage(cpu0);
    const gwCpu1 = procCpuMs(gw.pid);
    const done = await next<DoneMessage>("done", 60_000);
    await new Promise<void>((r) => (writer!.exitCode !== null ? r() : writer!.once("exit", () => r())));
    writer = null;

    const correct = () => burstSessions.filter((k) => desk.entry(gatewayId, k)?.card?.revision === done.lastRevision[k]).length;
    let convergedMs: number | null = null;
    try {
      const settleStart = performance.now();
      await until("burst settle", () => correct() === burstSessions.length, SETTLE_MS, 10);
      convergedMs = performance.now() - settleStart;
    } catch {
      // reported as a count below
    }
    const sessionsCorrect = correct();
    const lastVsGateway = burstSessions.filter((k) => done.finalRevision[k] === done.lastRevision[k]).length;
    const lastVsMax = burstSessions.filter((k) => done.maxRevision[k] === done.lastRevision[k]).length;
    const stats1 = desk.stats(gatewayId);
    const burstTraffic = watch.trafficSince(traffic0);
    gc?.();
    const rss1 = process.memoryUsage();
    const spaces1 = heapSpaces();

    const lagMs = (v: number) => Math.max(0, v / 1e6 - ELD_RESOLUTION_MS);
    const burst = {
      rate,
      windowMs: done.windowMs,
      issued: done.issued,
      answered: done.answered,
      ticks: done.ticks,
      deferred: done.deferred,
      dropped: done.dropped,
      drainMs: done.drainMs,
      errors: done.errors,
      firstError: done.firstError,
      achievedRate: done.answered / (done.windowMs / 1000),
      issuedRate: done.issued / (done.windowMs / 1000),
      rssSeries,
      maxInFlightPuts: end.maxInFlight,
      putLatency: done.putLatencyMs,
      sessionsCorrect,
      convergedMs,
      lastVsGateway,
      lastVsMax,
      maxInFlightPerSession: stats1.maxInFlightPerSession,
      reads: stats1.reads - stats0.reads,
      attempts: stats1.attempts,
      cardChanges: tracker.cardChanges,
      regressions: tracker.regressions,
      eld: { p50: lagMs(eld.percentile(50)), p99: lagMs(eld.percentile(99)), max: lagMs(eld.max), samples: eld.count },
      canary: canaryResult,
      rss0: mb(rss0.rss),
      rss1: mb(rss1.rss),
      heap0: mb(rss0.heapUsed),
      heap1: mb(rss1.heapUsed),
      heapTotal0: mb(rss0.heapTotal),
      heapTotal1: mb(rss1.heapTotal),
      external0: mb(rss0.external),
      external1: mb(rss1.external),
      spaces: Object.fromEntries(Object.keys(spaces1).map((k) => [k, [spaces0[k] ?? 0, spaces1[k] ?? 0] as [number, number]])),
      traffic: burstTraffic,
      deskCpuPct: ((cpu.user + cpu.system) / 1000 / deskWindowMs) * 100,
      writerCpuPct: (done.cpuMs / done.windowMs) * 100,
      gatewayCpuPct: gwCpu0 !== null && gwCpu1 !== null ? ((gwCpu1 - gwCpu0) / deskWindowMs) * 100 : null,
      gcUsed: typeof gc === "function",
    };
    return burst;
  } finally {
    writer?.kill("SIGKILL");
  }
}
