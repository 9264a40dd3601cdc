// The burst's writers, in their own process so the desk's event-loop lag and RSS are the
// desk's alone. Spawned by bench/run.ts with an IPC channel:
//   parent → {type:"go", url, token, sessions, connections, ratePerSecond, warmupMs, durationMs}
//   child  → {type:"connected"}, {type:"measure-start"}, {type:"measure-end", …}, {type:"done", …}
// Ticks are paced by a 5 ms timer against the wall clock (each timer run catches up on what
// is due since the phase began, so timer jitter does not lower the rate) and spread
// round-robin over the sessions, so each session gets one tick every
// sessions/ratePerSecond seconds. A session has at most one put in flight (an agent awaits
// its tool call): a tick that finds it busy is sent when the reply arrives, and further
// ticks meanwhile fold into that one. So the offered rate is the target, and the achieved
// rate is what the Gateway answers.
import { performance } from "node:perf_hooks";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { summarize } from "./stats.ts";

export type GoMessage = {
  type: "go";
  url: string;
  token: string;
  sessions: string[];
  connections: number;
  ratePerSecond: number;
  warmupMs: number;
  durationMs: number;
};

export type MeasureEnd = {
  type: "measure-end";
  /** Puts issued inside the measured window. */
  issued: number;
  windowMs: number;
  maxInFlight: number;
};

export type DoneMessage = {
  type: "done";
  /** Inside the measured window: puts sent, replies received (ok or error), timer ticks. */
  issued: number;
  answered: number;
  ticks: number;
  /** Ticks that found their session's put still in flight: sent on its reply / folded into one already owed. */
  deferred: number;
  dropped: number;
  /** From the end of the window until every reply was in. */
  drainMs: number;
  errors: number;
  firstError: string | null;
  windowMs: number;
  /** Per session: revision returned by the last put issued (warm-up and window together). */
  lastRevision: Record<string, number>;
  /** Per session: highest revision any put returned. */
  maxRevision: Record<string, number>;
  /** Per session: revision a final progressCard.get returned (the Gateway's truth). */
  finalRevision: Record<string, number | null>;
  putLatencyMs: ReturnType<typeof summarize>;
  cpuMs: number;
  totalIssued: number;
};

const TICK_MS = 5;

function send(message: object): void {
  process.send?.(message);
}

function plan(i: number) {
  // One in_progress step at most (docs/gateway.md §4.2); the step moves with the count.
  const at = i % 3;
  return ["Fetch", "Build", "Report"].map((step, k) => ({
    step,
    status: (k < at ? "completed" : k === at ? "in_progress" : "pending") as "completed" | "in_progress" | "pending",
  }));
}

async function run(go: GoMessage): Promise<void> {
  const clients: BareClient[] = await Promise.all(
    Array.from({ length: go.connections }, () => connectBareClient({ url: go.url, token: go.token })),
  );
  send({ type: "connected" });

  const sessions = go.sessions;
  const lastIssuedSeq = new Map<string, number>();
  const lastRevision: Record<string, number> = {};
  const maxRevision: Record<string, number> = {};
  const busy = new Set<number>(); // sessions with a put in flight
  const owed = new Set<number>(); // sessions whose tick came while busy: put again on the reply
  const latencies: number[] = [];
  let issued = 0; // total, warm-up included
  let inFlight = 0;
  let maxInFlight = 0;
  let windowIssued = 0;
  let windowAnswered = 0; // replies that arrived inside the window (whenever issued)
  let windowTicks = 0;
  let windowDeferred = 0; // ticks sent late, when the session's previous put came back
  let windowDropped = 0; // ticks folded into an already-owed put
  let errors = 0;
  let firstError: string | null = null;
  let measuring = false;
  let running = true;
  const pending = new Set<Promise<void>>();

  const put = (index: number): void => {
    const seq = issued++;
    const key = sessions[index]!;
    const client = clients[index % clients.length]!;
    const inWindow = measuring;
    if (inWindow) windowIssued += 1;
    lastIssuedSeq.set(key, seq);
    busy.add(index);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const t0 = performance.now();
    const done = client
      .put(key, { markdown: `Burst write ${seq}`, plan: plan(seq) })
      .then(
        (reply) => {
          if (inWindow) latencies.push(performance.now() - t0);
          const revision = reply.card?.revision;
          if (typeof revision === "number") {
            if (lastIssuedSeq.get(key) === seq) lastRevision[key] = revision;
            maxRevision[key] = Math.max(maxRevision[key] ?? 0, revision);
          }
        },
        (err: unknown) => {
          errors += 1;
          firstError ??= err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        inFlight -= 1;
        if (measuring) windowAnswered += 1;
        busy.delete(index);
        pending.delete(done);
        if (owed.delete(index) && running) {
          if (measuring) windowDeferred += 1;
          put(index);
        }
      });
    pending.add(done);
  };

  // A tick for one session: like an agent awaiting its tool call, a session has at most one
  // put in flight; a tick that finds it busy is sent as soon as the reply arrives.
  let ticks = 0;
  const tick = (): void => {
    const index = ticks++ % sessions.length;
    if (measuring) windowTicks += 1;
    if (!busy.has(index)) return put(index);
    if (owed.has(index)) {
      if (measuring) windowDropped += 1;
    } else owed.add(index);
  };

  // Paced against the clock: at each tick of the timer, run the ticks due since the phase began.
  const pace = (durationMs: number): Promise<number> =>
    new Promise((resolve) => {
      const start = performance.now();
      const base = ticks;
      const timer = setInterval(() => {
        const elapsed = Math.min(performance.now() - start, durationMs);
        const due = Math.floor((elapsed * go.ratePerSecond) / 1000);
        while (ticks - base < due) tick();
        if (elapsed >= durationMs) {
          clearInterval(timer);
          resolve(performance.now() - start);
        }
      }, TICK_MS);
    });

  await pace(go.warmupMs);
  measuring = true;
  const cpu0 = process.cpuUsage();
  send({ type: "measure-start" });
  const windowMs = await pace(go.durationMs);
  measuring = false;
  running = false;
  owed.clear();
  send({ type: "measure-end", issued: windowIssued, windowMs, maxInFlight } satisfies MeasureEnd);
  const tDrain = performance.now();
  while (pending.size > 0) await Promise.all([...pending]);
  const drainMs = performance.now() - tDrain;
  const cpu = process.cpuUsage(cpu0);

  const finalRevision: Record<string, number | null> = {};
  await Promise.all(
    sessions.map(async (key, i) => {
      const reply = await clients[i % clients.length]!.get(key);
      finalRevision[key] = reply.card?.revision ?? null;
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  send({
    type: "done",
    issued: windowIssued,
    answered: windowAnswered,
    ticks: windowTicks,
    deferred: windowDeferred,
    dropped: windowDropped,
    drainMs,
    errors,
    firstError,
    windowMs,
    lastRevision,
    maxRevision,
    finalRevision,
    putLatencyMs: summarize(latencies),
    cpuMs: (cpu.user + cpu.system) / 1000,
    totalIssued: issued,
  } satisfies DoneMessage);
}

process.once("message", (message: GoMessage) => {
  run(message).then(
    () => process.disconnect?.(),
    (err: unknown) => {
      send({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      process.exitCode = 1;
      process.disconnect?.();
    },
  );
});
// Never outlive the benchmark: if the parent goes away, so do we.
process.on("disconnect", () => setTimeout(() => process.exit(process.exitCode ?? 0), 100).unref());
