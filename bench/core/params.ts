// The core benchmark's sizes, timeouts and targets (PD_BENCH_QUICK=1 gives the reduced sizes),
// and the card every put writes.
import { size } from "../harness.ts";

export const WARMUP = size(20, 5); // per side, per latency phase
export const ITERATIONS = size(400, 60); // per side, per latency phase (at least 300; more steadies the p95)
export const CONTROL_ITERATIONS = size(100, 30);
export const IDLE_SESSIONS = 50;
export const BURST = { sessions: 50, perSessionPerSecond: 10, connections: 3, warmupMs: 3000, durationMs: size(30_000, 8000) };
export const GATEWAY_WARMUP = size(300, 50); // untimed bare put/changed/get cycles before anything is measured
export const SETTLE_MS = 5000;
export const STEP_TIMEOUT_MS = 10_000;
export const HARD_LIMIT_MS = 4 * 60_000 - 10_000; // under bench/all.ts's hard stop for this part
export const ELD_RESOLUTION_MS = 10;
export const TARGETS = { p95Ratio: 1.25, eldP99Ms: 20, rssGrowthMb: 20 };

type Gc = () => void;
/** A full GC before RSS readings; bench/run.ts re-runs itself with --expose-gc to have it. */
export const gc = (globalThis as { gc?: Gc }).gc;

/** The card a put writes: a note and a three-step plan. */
export const card = (label: string, i: number) => ({
  markdown: `${label} ${i}: checking the build and the tests`,
  plan: [
    { step: "Fetch sources", status: "completed" as const },
    { step: "Run the tests", status: "in_progress" as const },
    { step: "Write the report", status: "pending" as const },
  ],
});
