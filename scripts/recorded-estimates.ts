// The estimate (common/card-timing.ts) checked on card histories the app itself recorded
// (scripts/record-histories.ts writes them; test/fixtures/recorded-histories.json keeps one run).
// At seeded random moments of each recorded card, the history as the app had it at that moment
// is rebuilt from the recording and given to the real deriveTiming with the card's state at that
// moment (also recorded); the range is compared with the time that really remained: until the
// record in which the last step was seen completed. Pure: no Gateway, no files.
import type { CardHistoryData, HistoryRecord } from "../common/card-history.ts";
import { seededRandom } from "../test/harness/seeded-random.ts";
import { deriveTiming } from "../common/card-timing.ts";
import type { CardState } from "../common/model.ts";

/** One card as recorded: its history records (step statuses and times only) and its state over time. */
export type RecordedCard = {
  card: string;
  /** How its step times were drawn (see record-histories.ts). */
  scenario: string;
  fromStart: boolean;
  /** ms since the recording began; `gapFrom` as in HistoryRecord. */
  records: { at: number; revision: number; statuses: string; gapFrom?: number | null }[];
  /** The core's derived state of the card, each time it changed (ms since the recording began). */
  states: { at: number; state: CardState }[];
};

export type RecordedSet = {
  /** Real ms that stand for one minute of agent work. */
  msPerMinute: number;
  recordedOn: string;
  how: string;
  cards: RecordedCard[];
};

export type RecordedTally = {
  cards: number;
  moments: number;
  withEstimate: number;
  inside: number;
  below: number;
  above: number;
  /** (max − min) / real time left, per estimate. */
  widthRatio: number[];
  /** Moments with the card paused / inside a gap / after a gap before two steps were timed again: none may have an estimate. */
  paused: { moments: number; withEstimate: number };
  unwatched: { moments: number; withEstimate: number };
  afterGap: { moments: number; withEstimate: number };
  /** Moments left out because the last step finished unseen (in a gap): the time left is not known. */
  unknownTruth: number;
  /** Per card, for resampling whole cards (moments of one card are not independent). */
  perCard: { inside: number; withEstimate: number }[];
};

const STATES: readonly CardState[] = ["active", "paused", "complete", "note"];

/** Checks a parsed recording; a damaged one is refused with what is wrong and where. */
export function parseRecordedSet(doc: unknown): RecordedSet {
  const d = doc as Partial<RecordedSet> | null;
  if (!d || typeof d !== "object") throw new Error("recorded histories: not an object");
  if (typeof d.msPerMinute !== "number" || !(d.msPerMinute > 0))
    throw new Error("recorded histories: msPerMinute must be a positive number");
  if (typeof d.recordedOn !== "string" || typeof d.how !== "string") throw new Error("recorded histories: recordedOn and how must be text");
  if (!Array.isArray(d.cards) || d.cards.length === 0) throw new Error("recorded histories: no cards");
  const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
  for (const [i, c] of d.cards.entries()) {
    const where = `recorded histories: card ${i}`;
    if (!c || typeof c.card !== "string" || typeof c.scenario !== "string" || typeof c.fromStart !== "boolean") {
      throw new Error(`${where}: card, scenario and fromStart are required`);
    }
    if (!Array.isArray(c.records) || c.records.length === 0) throw new Error(`${where}: no records`);
    let last = -1;
    for (const [k, r] of c.records.entries()) {
      if (!isTime(r.at) || r.at < last) throw new Error(`${where}, record ${k}: times must be ms and in order`);
      if (!Number.isInteger(r.revision) || typeof r.statuses !== "string" || !/^[pic]+$/.test(r.statuses)) {
        throw new Error(`${where}, record ${k}: a revision and statuses of p, i, c are required`);
      }
      if (r.gapFrom !== undefined && r.gapFrom !== null && (!isTime(r.gapFrom) || r.gapFrom > r.at)) {
        throw new Error(`${where}, record ${k}: gapFrom must be a time before the record`);
      }
      last = r.at;
    }
    if (!Array.isArray(c.states) || c.states.some((s) => !isTime(s.at) || !STATES.includes(s.state))) {
      throw new Error(`${where}: states must be times with one of ${STATES.join(", ")}`);
    }
  }
  return d as RecordedSet;
}

/**
 * The card's history as the app held it at `t`: the records confirmed by then, and, when the
 * next record says watching had stopped before `t`, not watched since then.
 */
export function historyAt(c: RecordedCard, t: number): CardHistoryData | null {
  const records: HistoryRecord[] = [];
  for (const [k, r] of c.records.entries()) {
    if (r.at > t) break;
    const rec: HistoryRecord = { at: r.at, revision: r.revision, statuses: r.statuses };
    // The step texts are not kept; steps are matched by position, which is what a plan of fixed steps is.
    if (k === 0 || r.statuses.length !== c.records[k - 1]?.statuses.length) rec.steps = [...r.statuses].map((_, i) => `Step ${i + 1}`);
    if (r.gapFrom !== undefined) rec.gapFrom = r.gapFrom;
    records.push(rec);
  }
  if (records.length === 0) return null;
  const next = c.records[records.length];
  const unwatchedSince = next?.gapFrom !== undefined && next.gapFrom !== null && next.gapFrom <= t ? next.gapFrom : null;
  return { gatewayId: "recorded", sessionKey: c.card, agentId: null, fromStart: c.fromStart, endedAt: null, unwatchedSince, records };
}

/** The card's state at `t`: the last one recorded by then. */
export function stateAt(c: RecordedCard, t: number): CardState | null {
  return c.states.findLast((s) => s.at <= t)?.state ?? null;
}

/**
 * Steps whose start and finish were both seen after the latest gap record at or before `t`
 * (worked out from the statuses alone, apart from card-timing.ts): below two, the rule says no estimate.
 * null when no gap came before `t`.
 */
export function stepsTimedSinceGap(c: RecordedCard, t: number): number | null {
  const upTo = c.records.filter((r) => r.at <= t);
  const gapIndex = upTo.findLastIndex((r) => r.gapFrom !== undefined);
  if (gapIndex < 0) return null;
  let timed = 0;
  const steps = upTo[gapIndex]?.statuses.length ?? 0;
  for (let i = 0; i < steps; i += 1) {
    const startedAfter = upTo.findIndex((r, k) => k > gapIndex && r.statuses[i] === "i" && upTo[k - 1]?.statuses[i] !== "i");
    const finishedAfter = upTo.findIndex((r, k) => k > startedAfter && r.statuses[i] === "c");
    if (startedAfter > gapIndex && finishedAfter > startedAfter) timed += 1;
  }
  return timed;
}

/** When the last step was seen completed: the record in which every step first reads completed (and stays so). */
export function finishedAt(c: RecordedCard): { at: number; seen: boolean } | null {
  const k = c.records.findIndex((r) => /^c+$/.test(r.statuses));
  const r = c.records[k];
  if (!r) return null;
  return { at: r.at, seen: r.gapFrom === undefined };
}

/** Seeded sampling (mulberry32), so a figure can be reproduced. */
export const rng = seededRandom;

/**
 * Samples `perInterval` seeded moments between every two consecutive records of each card, up
 * to the moment its last step was seen completed, and tallies where the real time left fell.
 */
export function evaluateRecorded(set: RecordedSet, opts: { seed?: number; perInterval?: number } = {}): RecordedTally {
  const r = rng(opts.seed ?? 12);
  const per = opts.perInterval ?? 8;
  const tally: RecordedTally = {
    cards: 0,
    moments: 0,
    withEstimate: 0,
    inside: 0,
    below: 0,
    above: 0,
    widthRatio: [],
    paused: { moments: 0, withEstimate: 0 },
    unwatched: { moments: 0, withEstimate: 0 },
    afterGap: { moments: 0, withEstimate: 0 },
    unknownTruth: 0,
    perCard: [],
  };
  for (const c of set.cards) {
    const end = finishedAt(c);
    if (!end) continue;
    tally.cards += 1;
    const before = { inside: tally.inside, withEstimate: tally.withEstimate };
    for (const [k, rec] of c.records.entries()) {
      const next = c.records[k + 1];
      if (!next || rec.at >= end.at) break;
      const [from, to] = [rec.at, next.at];
      for (let m = 0; m < per; m += 1) {
        const t = from + r() * (to - from);
        const h = historyAt(c, t);
        const state = stateAt(c, t);
        if (!h || !state) continue;
        const estimate = deriveTiming(h, state, t).estimate;
        const has = estimate ? 1 : 0;
        if (state === "paused") count(tally.paused, has);
        if (h.unwatchedSince !== null) count(tally.unwatched, has);
        const sinceGap = stepsTimedSinceGap(c, t);
        if (sinceGap !== null && sinceGap < 2) count(tally.afterGap, has);
        if (!end.seen) {
          tally.unknownTruth += 1;
          continue;
        }
        tally.moments += 1;
        if (!estimate) continue;
        const truth = end.at - t;
        tally.withEstimate += 1;
        if (truth < estimate.minMs) tally.below += 1;
        else if (truth > estimate.maxMs) tally.above += 1;
        else tally.inside += 1;
        tally.widthRatio.push((estimate.maxMs - estimate.minMs) / Math.max(truth, 1));
      }
    }
    tally.perCard.push({ inside: tally.inside - before.inside, withEstimate: tally.withEstimate - before.withEstimate });
  }
  return tally;
}

/**
 * How much the share could move with other cards like these: whole cards are drawn again with
 * replacement (`draws` times, seeded) and the middle 90 % of the resulting shares returned, in %.
 */
export function cardBootstrap(perCard: RecordedTally["perCard"], seed = 12, draws = 2000): [number, number] {
  const r = rng(seed);
  const shares: number[] = [];
  for (let d = 0; d < draws && perCard.length > 0; d += 1) {
    let inside = 0;
    let withEstimate = 0;
    for (let i = 0; i < perCard.length; i += 1) {
      const c = perCard[Math.floor(r() * perCard.length)];
      inside += c?.inside ?? 0;
      withEstimate += c?.withEstimate ?? 0;
    }
    if (withEstimate > 0) shares.push((100 * inside) / withEstimate);
  }
  shares.sort((a, b) => a - b);
  return [shares[Math.floor(shares.length * 0.05)] ?? NaN, shares[Math.floor(shares.length * 0.95)] ?? NaN];
}

function count(bucket: { moments: number; withEstimate: number }, has: number): void {
  bucket.moments += 1;
  bucket.withEstimate += has;
}

const pct = (a: number, b: number): string => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The figures as docs/estimate.md quotes them. */
export function recordedReport(set: RecordedSet, t: RecordedTally): string {
  const rules = (b: { moments: number; withEstimate: number }): string => `${b.withEstimate} estimates at ${b.moments} moments`;
  const [lo, hi] = cardBootstrap(t.perCard);
  return [
    `Recorded histories (${set.recordedOn}, ${t.cards} cards, ${set.msPerMinute} ms = 1 min): ${set.how}`,
    "",
    "| Histories | moments with an estimate | range contains the real time left | real time below the range | above the range | median range width / time left |",
    "|---|---|---|---|---|---|",
    `| recorded | ${pct(t.withEstimate, t.moments)} | **${pct(t.inside, t.withEstimate)}** | ${pct(t.below, t.withEstimate)} | ` +
      `${pct(t.above, t.withEstimate)} | ${median(t.widthRatio).toFixed(2)} |`,
    "",
    `Recorded: the range contained the real time left in ${pct(t.inside, t.withEstimate)} of ${t.withEstimate} estimates ` +
      `(${t.moments} moments, ${t.cards} cards); resampling whole cards, the middle 90 % of that share is ` +
      `${lo.toFixed(0)}–${hi.toFixed(0)} %.`,
    `Rules on recorded data: paused ${rules(t.paused)}; app closed (gap) ${rules(t.unwatched)}; ` +
      `after the gap, before two steps were timed again, ${rules(t.afterGap)}; ` +
      `${t.unknownTruth} moments left out (the last step finished unseen).`,
  ].join("\n");
}
