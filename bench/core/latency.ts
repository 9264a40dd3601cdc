// Latency, put → card in the desk's store, interleaved with the bare-protocol baseline
// (put → changed → get on one connection, docs/gateway.md §8.2); the control (the baseline
// alone, before the desk connects); and the same puts timed to the desk and to a subscribed
// bare reader.
import { performance } from "node:perf_hooks";
import { p, type BareClient } from "../../test/harness/bare-client.ts";
import { summarize, type Summary } from "../stats.ts";
import type { DeskWatch } from "./desk-watch.ts";
import { card, CONTROL_ITERATIONS, GATEWAY_WARMUP, ITERATIONS, STEP_TIMEOUT_MS, WARMUP } from "./params.ts";

type Breakdown = Record<string, number[]>;
const OTHER_AFTER = "__otherAfter";
export type LatencyResult = {
  /** What the desk's connection received and sent during the measured iterations. */
  traffic: Record<string, number>;
  baseline: Summary;
  core: Summary;
  ratioP50: number;
  ratioP95: number;
  /** Share of baseline iterations in which the desk's read of that session went out after the baseline's own get. */
  otherAfterPct: { baseline: number; core: number };
  baselineParts: Record<string, { p50: number; p95: number }>;
  coreParts: Record<string, { p50: number; p95: number }>;
};

/** The same puts, timed to the desk's emit and to a subscribed bare reader's get reply. */
export type SamePutResult = { desk: Summary; bare: Summary; deskFirst: number };

/**
 * The latency phases on two bare connections: `B` (baseline, and the mirror reads) on session
 * `sB`, `W` writing session `sC`, whose card the desk follows.
 */
export function latencyRig(B: BareClient, W: BareClient, sB: string, sC: string, watch: DeskWatch) {
  let deskOn = false;
  let iteration = 0;

  const baselineOnce = async (parts: Breakdown | null): Promise<number> => {
    const i = iteration++;
    const since = B.events.length;
    const start = performance.now();
    const put = await B.put(sB, card("Baseline", i));
    const tPut = performance.now();
    const rev = put.card!.revision;
    await B.waitForEvent(
      (e) => e.event === "progressCard.changed" && p(e).sessionKey === sB && p(e).revision === rev,
      STEP_TIMEOUT_MS,
      since,
    );
    const tEvent = performance.now();
    await B.get(sB);
    const end = performance.now();
    if (parts) {
      (parts["put reply"] ??= []).push(tPut - start);
      (parts["then changed event"] ??= []).push(tEvent - tPut);
      (parts["then get reply"] ??= []).push(end - tEvent);
    }
    // The desk reads this session too: let it finish so its read cannot spill into the next iteration.
    if (deskOn) {
      await watch.when(sB, rev);
      const other = watch.lastGet.get(sB);
      if (other) {
        const later = other.start >= tEvent ? 1 : 0;
        order.baseN += 1;
        order.baseAfter += later;
        if (parts) {
          (parts[OTHER_AFTER] ??= []).push(later);
          if (!later) (parts["(head start of the desk's read, when it went first)"] ??= []).push(tEvent - other.start);
        }
      }
    }
    return end - start;
  };

  let lastCoreRev = 0;
  /** How often the other read went out after the timed one, per side (this phase, warm-up included). */
  const order = { baseN: 0, baseAfter: 0, coreN: 0, coreAfter: 0 };
  const coreOnce = async (parts: Breakdown | null): Promise<number> => {
    const i = iteration++;
    // Mirror of the desk's read of the baseline session: B reads the core's session too, either
    // as soon as the event reaches B (which, B's connection being older, is nearly always before
    // the desk reads) or right after the desk has sent its read. The second way is chosen in
    // the share of iterations in which the desk's read of the baseline session went out after
    // the baseline's own get, so both sides meet the other read in the same order equally often.
    const share = order.baseN ? order.baseAfter / order.baseN : 0;
    const goSecond = order.coreAfter + 1 <= Math.round(share * (order.coreN + 1));
    let mirrorStart = 0;
    let mirror: Promise<unknown> | null = null;
    const mirrorRead = () => {
      mirrorStart = performance.now();
      return B.get(sC);
    };
    if (goSecond) {
      watch.onGetSent = (key) => {
        if (key === sC && !mirror) mirror = mirrorRead();
      };
    } else {
      const since = B.events.length;
      const after = lastCoreRev;
      mirror = B.waitForEvent(
        (e) => e.event === "progressCard.changed" && p(e).sessionKey === sC && typeof p(e).revision === "number" && p(e).revision > after,
        STEP_TIMEOUT_MS,
        since,
      ).then(mirrorRead);
    }
    const start = performance.now();
    const put = await W.put(sC, card("Core", i));
    const tPut = performance.now();
    const rev = put.card!.revision;
    const shown = await watch.when(sC, rev);
    watch.onGetSent = null;
    if (parts) {
      const event = watch.eventAt.get(`${sC}#${rev}`);
      const get = watch.lastGet.get(sC);
      (parts["put reply (writer)"] ??= []).push(tPut - start);
      if (event !== undefined && get) {
        (parts["changed event at desk"] ??= []).push(event - start);
        (parts["event → get sent"] ??= []).push(get.start - event);
        (parts["get round trip"] ??= []).push(get.end - get.start);
        (parts["get reply → card emitted"] ??= []).push(shown - get.end);
      }
    }
    watch.eventAt.delete(`${sC}#${rev}`);
    await mirror;
    lastCoreRev = rev;
    const own = watch.lastGet.get(sC);
    if (own) {
      const later = mirrorStart >= own.start ? 1 : 0;
      order.coreN += 1;
      order.coreAfter += later;
      if (parts) {
        (parts[OTHER_AFTER] ??= []).push(later);
        if (!later) (parts["(head start of the mirror read, when it went first)"] ??= []).push(own.start - mirrorStart);
      }
    }
    return shown - start;
  };

  const interleaved = async (label: string): Promise<LatencyResult> => {
    console.log(`bench: ${label}: ${WARMUP} + ${ITERATIONS} iterations per side, interleaved…`);
    Object.assign(order, { baseN: 0, baseAfter: 0, coreN: 0, coreAfter: 0 });
    for (let i = 0; i < WARMUP; i += 1) {
      await baselineOnce(null);
      await coreOnce(null);
    }
    const base: number[] = [];
    const core: number[] = [];
    const bParts: Breakdown = {};
    const cParts: Breakdown = {};
    const traffic0 = new Map(watch.traffic);
    for (let i = 0; i < ITERATIONS; i += 1) {
      // ABAB…, alternating which side goes first in each pair.
      if (i % 2 === 0) {
        base.push(await baselineOnce(bParts));
        core.push(await coreOnce(cParts));
      } else {
        core.push(await coreOnce(cParts));
        base.push(await baselineOnce(bParts));
      }
    }
    const baseline = summarize(base);
    const coreS = summarize(core);
    const med = (b: Breakdown) =>
      Object.fromEntries(
        Object.entries(b)
          .filter(([k]) => k !== OTHER_AFTER)
          .map(([k, v]) => {
            const sm = summarize(v);
            return [k, { p50: sm.p50, p95: sm.p95 }];
          }),
      );
    const share = (b: Breakdown) => {
      const xs = b[OTHER_AFTER] ?? [];
      return xs.length ? (xs.reduce((a, v) => a + v, 0) / xs.length) * 100 : Number.NaN;
    };
    return {
      traffic: watch.trafficSince(traffic0),
      baseline,
      core: coreS,
      ratioP50: coreS.p50 / baseline.p50,
      ratioP95: coreS.p95 / baseline.p95,
      otherAfterPct: { baseline: share(bParts), core: share(cParts) },
      baselineParts: med(bParts),
      coreParts: med(cParts),
    };
  };

  return {
    /** The desk reads the baseline session from now on: each baseline iteration waits for its read. */
    deskStarted(): void {
      deskOn = true;
    },
    /** Warms the Gateway up, then times the baseline alone. */
    async control(): Promise<Summary> {
      console.log(
        `bench: warming the Gateway up (${GATEWAY_WARMUP} untimed cycles), then the control: baseline alone, ${CONTROL_ITERATIONS}…`,
      );
      for (let i = 0; i < GATEWAY_WARMUP; i += 1) await baselineOnce(null);
      const control: number[] = [];
      for (let i = 0; i < CONTROL_ITERATIONS; i += 1) control.push(await baselineOnce(null));
      const controlS = summarize(control);
      return controlS;
    },
    interleaved,
    /** The same puts, the desk and a subscribed bare reader each timed to its own result. */
    async samePut(): Promise<SamePutResult> {
      console.log(`bench: latency on the same puts (desk and bare reader): ${WARMUP} + ${ITERATIONS}…`);
      await B.request("sessions.subscribe", { limit: 100, excludeSubagents: true });
      const samePut = { desk: [] as number[], bare: [] as number[], deskFirst: 0 };
      for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
        const since = B.events.length;
        const after = lastCoreRev;
        const bare = B.waitForEvent(
          (e) => e.event === "progressCard.changed" && p(e).sessionKey === sC && typeof p(e).revision === "number" && p(e).revision > after,
          STEP_TIMEOUT_MS,
          since,
        ).then(async () => {
          const got = await B.get(sC);
          return { at: performance.now(), rev: got.card?.revision ?? -1 };
        });
        const start = performance.now();
        const rev = (await W.put(sC, card("Same put", i))).card!.revision;
        const [shown, b] = await Promise.all([watch.when(sC, rev), bare]);
        if (b.rev < rev) throw new Error(`bare reader got revision ${b.rev}, expected ${rev}`);
        lastCoreRev = rev;
        if (i < WARMUP) continue;
        samePut.desk.push(shown - start);
        samePut.bare.push(b.at - start);
        if (shown < b.at) samePut.deskFirst += 1;
      }
      const same = { desk: summarize(samePut.desk), bare: summarize(samePut.bare), deskFirst: samePut.deskFirst };
      return same;
    },
  };
}
