// Records card histories the way the app does, then checks the estimate on them
// (scripts/recorded-estimates.ts). A real OpenClaw Gateway on loopback runs real agent turns
// with the scripted model (test/harness/); each turn writes its card through progressCard.put,
// step after step, each step taking a time drawn from one of a few distributions. A real
// ProgressDesk core watches the Gateway and keeps its card history in a temporary data folder
// (card-history.json), exactly as the app does. One card pauses (its run ends unfinished, a new
// run takes it up again later), and the core is stopped mid-run and a new one started on the
// same data folder (an app restart: a gap). Time is scaled down: --ms-per-minute real ms stand
// for one minute of agent work (default 1000: a "12 min" step takes 12 s), so the whole
// recording takes a few minutes. Bounded (every wait has a ceiling) and stops by itself.
//
// `node scripts/record-histories.ts [--cards 20] [--parallel 4] [--seed 12] [--ms-per-minute 1000] [--out file]`
// writes the recording (step statuses and times only: no step or note text, no session key)
// to test/fixtures/recorded-histories.json unless --out says otherwise, and prints the figures.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { historyPath, loadHistoryFile, openHistoryFile } from "../main/core/card-history-file.ts";
import type { CardState } from "../common/model.ts";
import { connectBareClient, type PlanStep } from "../test/harness/bare-client.ts";
import { startGateway } from "../test/harness/gateway.ts";
import { startScriptedModel } from "../test/harness/scripted-model.ts";
import { until } from "../test/harness/until.ts";
import { warmUpAgent } from "../test/harness/warm-up.ts";
import { plan, startDesk, type DeskHarness } from "../test/gateway/support.ts";
import { evaluateRecorded, recordedReport, rng, type RecordedCard, type RecordedSet } from "./recorded-estimates.ts";

const arg = (name: string, d: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : d;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
};
const outArg = process.argv.indexOf("--out");
const OUT = outArg > 0 ? (process.argv[outArg + 1] ?? "") : join(import.meta.dirname, "..", "test", "fixtures", "recorded-histories.json");
const CARDS = Math.min(arg("cards", 20), 60);
const PARALLEL = Math.min(arg("parallel", 4), 8);
const SEED = arg("seed", 12);
const MS_PER_MINUTE = arg("ms-per-minute", 1000);
/** Step times are kept between these (minutes): a turn's own overhead is about a second, and a run must end in bounded time. */
const MIN_STEP_MIN = 1;
const MAX_STEP_MIN = 40;
/** The app is closed this long (minutes) once, this many minutes after the cards start. */
const GAP_AT_MIN = 60;
const GAP_MIN = 8;
/** The paused card waits this long (minutes) between its two runs. */
const PAUSE_MIN = 10;

type Scenario = { name: string; sigma: number; outlier: number };
// The same families as the simulation (scripts/estimate-check.ts), so the two can be compared.
const SCENARIOS: Scenario[] = [
  { name: "similar steps (σ 0.3)", sigma: 0.3, outlier: 0 },
  { name: "varied steps (σ 0.6)", sigma: 0.6, outlier: 0 },
  { name: "very varied steps (σ 1.0)", sigma: 1.0, outlier: 0 },
  { name: "σ 0.6, 1 in 5 cards has a step 5× longer", sigma: 0.6, outlier: 0.2 },
];

const r = rng(SEED);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

type PlannedCard = { index: number; scenario: Scenario; minutes: number[]; pauseAfter: number | null };
const planned: PlannedCard[] = Array.from({ length: CARDS }, (_, index) => {
  const scenario = SCENARIOS[index % SCENARIOS.length] ?? SCENARIOS[0];
  if (!scenario) throw new Error("no scenarios");
  const n = 3 + Math.floor(r() * 4); // 3–6 steps
  const typical = Math.exp(Math.log(2) + r() * Math.log(4)); // 2–8 min
  const minutes = Array.from({ length: n }, () => typical * Math.exp(scenario.sigma * normal()));
  if (r() < scenario.outlier) {
    const at = 1 + Math.floor(r() * (n - 1));
    minutes[at] = (minutes[at] ?? 0) * 5;
  }
  const clamped = minutes.map((m) => Math.min(MAX_STEP_MIN, Math.max(MIN_STEP_MIN, m)));
  // The first card pauses after its third step has started (it always has at least three).
  return { index, scenario, minutes: clamped, pauseAfter: index === 0 ? 2 : null };
});

const statusesAt = (n: number, done: number): PlanStep["status"][] =>
  Array.from({ length: n }, (_, i) => (i < done ? "completed" : i === done ? "in_progress" : "pending"));
/** Script of the puts for steps from..to (exclusive): the first put announces step `from`, each later one after that step's time. */
function script(p: PlannedCard, from: number, to: number): unknown[] {
  const n = p.minutes.length;
  const out: unknown[] = [{ tool: "progress_card", args: { plan: plan(...statusesAt(n, from)) } }];
  for (const [i, minutes] of p.minutes.slice(from, to).entries()) {
    out.push({ tool: "progress_card", args: { plan: plan(...statusesAt(n, from + i + 1)) }, delayMs: Math.round(minutes * MS_PER_MINUTE) });
  }
  out.push({ text: to === n ? "All done" : "Stopping here for now" });
  return out;
}

const dataDir = mkdtempSync(join(tmpdir(), "pd-record-"));
const file = historyPath(dataDir);
const model = await startScriptedModel();
const gw = await startGateway({ model });
const user = await connectBareClient(gw);
const desks: DeskHarness[] = [];
try {
  console.log(`Recording ${CARDS} cards (${PARALLEL} at a time) on a real Gateway; ${MS_PER_MINUTE} ms stand for one minute.`);
  await warmUpAgent(user, gw);
  const keys = new Map<string, PlannedCard>();
  const states = new Map<string, { at: number; state: CardState }[]>();
  const t0 = Date.now();
  const openDesk = async (): Promise<DeskHarness> => {
    const d = await startDesk(gw, { history: openHistoryFile(file) });
    desks.push(d);
    // The core's derived state of each card, as it changes (the history keeps statuses, not states).
    d.desk.subscribe((c) => {
      if (c.type !== "card" || !keys.has(c.entry.sessionKey) || c.entry.freshness !== "live" || !c.entry.derived) return;
      const list = states.get(c.entry.sessionKey) ?? [];
      if (list.at(-1)?.state !== c.entry.derived.state) list.push({ at: Date.now() - t0, state: c.entry.derived.state });
      states.set(c.entry.sessionKey, list);
    });
    await d.waitForState("connected", 60_000);
    return d;
  };
  let desk = await openDesk();

  // The app restart, once, while cards run: the core stops (its history saved), the Gateway's runs go on.
  const restart = (async () => {
    await sleep(GAP_AT_MIN * MS_PER_MINUTE);
    desk.stop();
    console.log(`  app closed at ${((Date.now() - t0) / MS_PER_MINUTE).toFixed(1)} min`);
    await sleep(GAP_MIN * MS_PER_MINUTE);
    desk = await openDesk();
    console.log(`  app started again at ${((Date.now() - t0) / MS_PER_MINUTE).toFixed(1)} min`);
  })();

  const runCard = async (p: PlannedCard): Promise<void> => {
    const key = await user.createSession();
    keys.set(key, p);
    const n = p.minutes.length;
    const ceiling = (from: number, to: number) => p.minutes.slice(from, to).reduce((a, m) => a + m * MS_PER_MINUTE, 0) + 120_000;
    if (p.pauseAfter === null) {
      await user.runTurn(key, script(p, 0, n), { timeoutMs: ceiling(0, n) });
      return;
    }
    // Paused: the first run ends with step pauseAfter+1 in progress; a later run takes it up again.
    await user.runTurn(key, script(p, 0, p.pauseAfter), { timeoutMs: ceiling(0, p.pauseAfter) });
    await sleep(PAUSE_MIN * MS_PER_MINUTE);
    await user.runTurn(key, script(p, p.pauseAfter, n), { timeoutMs: ceiling(p.pauseAfter, n) });
  };
  const queue = [...planned];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) await runCard(p);
    }),
  );
  await restart;
  // Every run has ended; the watching core confirms each card's last revision before it stops.
  for (const key of keys.keys()) {
    const last = (await user.get(key)).card?.revision;
    await until(
      `the last revision of ${key} recorded`,
      () => desk.desk.cardHistory(desk.gatewayId, key).at(-1)?.records.at(-1)?.revision === last,
      60_000,
    );
  }
  desk.stop();

  // What the app wrote, read back from its data folder.
  const loaded = loadHistoryFile(file);
  if (loaded.problem) throw new Error(loaded.problem);
  const cards: RecordedCard[] = [];
  for (const [key, p] of keys) {
    const hs = loaded.histories.filter((x) => x.sessionKey === key);
    const h = hs[0];
    if (!h || hs.length !== 1) throw new Error(`${key}: expected one history, found ${hs.length}`);
    cards.push({
      card: `card-${String(p.index + 1).padStart(2, "0")}`,
      scenario: p.scenario.name + (p.pauseAfter !== null ? ", paused once" : ""),
      fromStart: h.fromStart,
      records: h.records.map((x) => ({
        at: x.at - t0,
        revision: x.revision,
        statuses: x.statuses,
        ...(x.gapFrom !== undefined ? { gapFrom: x.gapFrom === null ? null : x.gapFrom - t0 } : {}),
      })),
      states: states.get(key) ?? [],
    });
  }
  cards.sort((a, b) => a.card.localeCompare(b.card));
  const set: RecordedSet = {
    msPerMinute: MS_PER_MINUTE,
    recordedOn: new Date(t0).toISOString().slice(0, 10),
    how:
      `scripts/record-histories.ts --cards ${CARDS} --parallel ${PARALLEL} --seed ${SEED} --ms-per-minute ${MS_PER_MINUTE}: ` +
      `real agent turns (scripted model) on a real OpenClaw Gateway write each card step by step; a real ProgressDesk core ` +
      `recorded card-history.json; card-01 pauses for ${PAUSE_MIN} min; the core is stopped at ${GAP_AT_MIN} min for ${GAP_MIN} min.`,
    cards,
  };
  writeFileSync(OUT, JSON.stringify(set, null, 1) + "\n");
  console.log(`Wrote ${relative(process.cwd(), OUT)} (${cards.length} cards).\n`);
  console.log(recordedReport(set, evaluateRecorded(set)));
} finally {
  for (const d of desks) d.stop();
  await user.close();
  await gw.dispose();
  await model.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
