// An idle process that only measures its own event-loop delay, beside the desk during the
// burst: what it sees is the machine's scheduling noise (CPU contention), not anyone's work.
//   parent → {type:"stop"}   child → {type:"lag", p50, p99, max} (ms, minus the resolution)
import { monitorEventLoopDelay } from "node:perf_hooks";

const RESOLUTION_MS = Number(process.env.PD_LAG_RESOLUTION_MS ?? 10);
const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
h.enable();
const lag = (v: number) => Math.max(0, v / 1e6 - RESOLUTION_MS);
process.on("message", (m: { type?: string }) => {
  if (m?.type !== "stop") return;
  h.disable();
  process.send?.({ type: "lag", p50: lag(h.percentile(50)), p99: lag(h.percentile(99)), max: lag(h.max), samples: h.count });
  process.disconnect?.();
});
process.on("disconnect", () => process.exit(0));
process.send?.({ type: "started" });
