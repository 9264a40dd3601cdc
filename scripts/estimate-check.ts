// How often the "time left" estimate (common/card-timing.ts) contains the real time left.
// Simulated card histories go through the real CardHistory and deriveTiming, exactly as the
// desk feeds them; at many moments of each run the estimate (when there is one) is compared
// with the time that really remained. Then the same on the histories the app recorded on a real
// Gateway (test/fixtures/recorded-histories.json, made by scripts/record-histories.ts; checked by
// scripts/recorded-estimates.ts). Deterministic (seeded): `node scripts/estimate-check.ts`
// prints the tables quoted in docs/estimate.md. Options: --cards N (per scenario), --seed S.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CardHistory } from "../common/card-history.ts";
import { deriveTiming } from "../common/card-timing.ts";
import type { CardEntry, StepStatus } from "../common/model.ts";
import { evaluateRecorded, parseRecordedSet, recordedReport, rng } from "./recorded-estimates.ts";

const MIN = 60_000;
const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const CARDS = arg("cards", 2000);
const SEED = arg("seed", 12);

function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

type Scenario = {
  name: string;
  /** spread of one card's step times around its own typical step (log-normal sigma) */ sigma: number;
  /** one long step in a few cards */ outlier: number;
};
const SCENARIOS: Scenario[] = [
  { name: "similar steps (σ 0.3)", sigma: 0.3, outlier: 0 },
  { name: "varied steps (σ 0.6)", sigma: 0.6, outlier: 0 },
  { name: "very varied steps (σ 1.0)", sigma: 1.0, outlier: 0 },
  { name: "σ 0.6, 1 in 5 cards has a step 5× longer", sigma: 0.6, outlier: 0.2 },
];

type Tally = { moments: number; withEstimate: number; inside: number; below: number; above: number; widthRatio: number[] };

function simulate(s: Scenario, r: () => number): Tally {
  const tally: Tally = { moments: 0, withEstimate: 0, inside: 0, below: 0, above: 0, widthRatio: [] };
  for (let c = 0; c < CARDS; c += 1) {
    const n = 3 + Math.floor(r() * 8); // 3–10 steps
    const typical = Math.exp(Math.log(MIN) + r() * Math.log(30)); // 1–30 min
    const durations = Array.from({ length: n }, () => typical * Math.exp(s.sigma * normal(r)));
    if (r() < s.outlier) {
      const at = 1 + Math.floor(r() * (n - 1));
      durations[at] = (durations[at] ?? 0) * 5;
    }
    const start = 1_800_000_000_000;
    const ends: number[] = [];
    durations.reduce((t, d, i) => (ends[i] = t + d), start);
    const end = ends.at(-1) ?? start;
    const history = new CardHistory();
    const key = `agent:main:sim-${c}`;
    const entry = (revision: number | null, done: number): CardEntry => {
      const steps = durations.map((_, i) => ({
        step: `Step ${i + 1}`,
        status: (i < done ? "completed" : i === done ? "in_progress" : "pending") as StepStatus,
      }));
      const card = revision === null ? null : { sessionKey: key, revision, updatedAt: 0, markdown: null, steps };
      return {
        gatewayId: "sim",
        sessionKey: key,
        agentId: null,
        title: key,
        card,
        derived: null,
        freshness: "live",
        confirmedAt: 0,
        error: null,
        hidden: false,
        updateRequired: false,
        refresh: null,
      };
    };
    history.observe(entry(null, 0), start - 1000);
    history.observe(entry(1, 0), start);
    // Moments to look: 8 random times in each step, after the card's revision for it.
    for (let i = 0; i < n; i += 1) {
      const from = ends[i - 1] ?? start;
      if (i > 0) history.observe(entry(i + 1, i), from);
      const h = history.current("sim", key, null);
      if (!h) throw new Error(`${key}: the history was not opened`);
      for (let k = 0; k < 8; k += 1) {
        const now = from + r() * ((ends[i] ?? from) - from);
        const t = deriveTiming(h, "active", now);
        tally.moments += 1;
        if (!t.estimate) continue;
        const truth = end - now;
        tally.withEstimate += 1;
        if (truth < t.estimate.minMs) tally.below += 1;
        else if (truth > t.estimate.maxMs) tally.above += 1;
        else tally.inside += 1;
        tally.widthRatio.push((t.estimate.maxMs - t.estimate.minMs) / Math.max(truth, 1));
      }
    }
  }
  return tally;
}

const pct = (a: number, b: number): string => (b === 0 ? "—" : `${((100 * a) / b).toFixed(1)} %`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

console.log(`Estimate check: ${CARDS} simulated cards per scenario, seed ${SEED}, 8 moments per step.\n`);
console.log(
  "| Scenario | moments with an estimate | range contains the real time left | real time below the range | above the range | median range width / time left |",
);
console.log("|---|---|---|---|---|---|");
const r = rng(SEED);
let allIn = 0;
let allWith = 0;
for (const s of SCENARIOS) {
  const t = simulate(s, r);
  allIn += t.inside;
  allWith += t.withEstimate;
  console.log(
    `| ${s.name} | ${pct(t.withEstimate, t.moments)} | **${pct(t.inside, t.withEstimate)}** | ${pct(t.below, t.withEstimate)} | ${pct(t.above, t.withEstimate)} | ${median(t.widthRatio).toFixed(2)} |`,
  );
}
console.log(`\nAll scenarios: the range contained the real time left in ${pct(allIn, allWith)} of ${allWith} estimates.`);

// The recorded histories do not depend on --cards; --seed picks the moments sampled in them.
const recordedFile = join(import.meta.dirname, "..", "test", "fixtures", "recorded-histories.json");
const recorded = parseRecordedSet(JSON.parse(readFileSync(recordedFile, "utf8")));
console.log(`\n${recordedReport(recorded, evaluateRecorded(recorded, { seed: SEED }))}`);
