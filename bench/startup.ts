// `node bench/startup.ts` (part of `npm run bench`): start-up with many sessions (issue 21). A real Gateway
// gets SESSIONS sessions, CARDS of them holding a card (created through the Gateway before anything is timed),
// every card pinned to the dashboard (Settings.pinned up to its cap, the rest as board widgets). Twice, once
// with one-line notes and once with realistic 1–2 KB notes (bench/realistic-note.ts) put over the same cards,
// these are timed from their spawn, in turn and alone on the Gateway:
//   bare      — bench/bare-start.ts: pages through `sessions.list`, reads every session's card, 8 in flight;
//   core      — `progress-desk watch --json` (the desk core; one-line notes only): a card line for every card;
//   popover   — `progress-desk host` + the popover page in Chromium (already running): every card reachable,
//               drawn with its title (`[data-card-key]`) or counted by its group (`data-group-count`);
//   dashboard — the same with the dashboard page.
// Rounds rotate which side goes first. Targets on the medians: core, popover and dashboard ≤ 1.5× bare with
// the same notes; the page's JS heap per 100 cards (every card drawn minus no card, the page settled, after a GC) ≤ 3.7 MB.
// Writes its section of docs/benchmarks.md. A side that never sees every card reports "only N of M" as a MISS.
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser } from "playwright-core";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { spawnCli } from "./cli-process.ts";
import { startHostedGateway, withTimeout, type HostedGateway } from "./gateway-process.ts";
import { generatedLine, recordTargets, runBounded, size, verdictCell, writeDocSection } from "./harness.ts";
import {
  createSessions,
  emptyPageHeapMb,
  logRun,
  sideMedian,
  pinEveryCard,
  PINNED_MAX,
  putCards,
  rotated,
  roundsWithin,
  SETUP_METHOD,
  timeBareClients,
  timeHostPage,
  type Filled,
  type NoteKind,
  type PageName,
  type Timed,
} from "./startup-shared.ts";
import { ms } from "./stats.ts";

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- startup-bench:start -->";
const END = "<!-- startup-bench:end -->";

const SESSIONS = size(1000, 150);
const CARDS = size(300, 45);
const ROUNDS = size(3, 1);
const SIDE_TIMEOUT_MS = size(60_000, 40_000);
// The sessions alone take a while on a busy machine; bench/all.ts stops this part at 7.5 min.
const HARD_LIMIT_MS = 7 * 60_000;
const REPORT_RESERVE_MS = 30_000;
const TARGETS = { core: 1.5, page: 1.5, heapPer100Mb: 3.7 };
const NOTE_KINDS: NoteKind[] = ["one-line", "realistic"];
const PAGES: PageName[] = ["popover", "dashboard"];
// Settings.pinned is full at 300 cards; the reduced size pins the same share so its boards are exercised too.
const PERSON_PINS = size(PINNED_MAX, Math.round((CARDS * PINNED_MAX) / 300));

type Side = "bare" | "core" | PageName;

async function timeCore(gw: HostedGateway, cardKeys: string[]): Promise<Timed> {
  const want = new Set(cardKeys);
  const seen = new Set<string>();
  const proc = spawnCli(["watch", "--json"], gw);
  let rssBefore: number | null = null;
  const base = { side: "core", notes: "one-line" as NoteKind, heapMb: null };
  try {
    const all = new Promise<number>((resolve) => {
      proc.onLine = (line, at) => {
        const m = JSON.parse(line) as { type?: string; sessionKey?: string; revision?: number | null; state?: string };
        // Connected, no card yet: the desk's own footprint (a /proc read here does not disturb the child).
        if (m.type === "connection" && m.state === "connected" && seen.size === 0) rssBefore ??= proc.rssMb();
        if (m.type === "card" && m.sessionKey && m.revision != null && want.has(m.sessionKey)) seen.add(m.sessionKey);
        if (seen.size === want.size) resolve(at);
      };
    });
    const at = await withTimeout(all, SIDE_TIMEOUT_MS, "watch --json").catch(() => null);
    const rss = proc.rssMb();
    if (at === null)
      return {
        ...base,
        ms: null,
        seen: seen.size,
        rssMb: rss,
        rssBeforeMb: rssBefore,
        note: `only ${seen.size} of ${want.size} cards after ${SIDE_TIMEOUT_MS / 1000} s`,
      };
    return { ...base, ms: at - proc.spawnedAt, seen: seen.size, rssMb: rss, rssBeforeMb: rssBefore, note: "" };
  } finally {
    await proc.stop();
  }
}

type Setup = {
  sessionsS: number;
  cardsS: Record<NoteKind, number>;
  rounds: Record<NoteKind, number>;
  boards: number;
  widgets: number;
  pinned: number;
};

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const chromium = chromiumAvailable();
  let browser: Browser | null = null;
  let gw: HostedGateway | null = null;
  try {
    const gateway = await startHostedGateway();
    gw = gateway;
    const access = [{ url: gw.url, token: gw.token }];
    console.log(`bench/startup: creating ${SESSIONS} sessions…`);
    let t = performance.now();
    const filled: Filled = await createSessions(gw, SESSIONS, CARDS);
    const sessionsS = (performance.now() - t) / 1000;
    console.log(`  done in ${sessionsS.toFixed(1)} s`);
    if (chromium.ok) browser = await launchChromium();
    else console.log(`bench/startup: page sides skipped: ${chromium.reason}`);

    // The pages' heap with the sessions there but no card and nothing pinned: what the cards add is measured against it.
    const emptyHeap: Partial<Record<PageName, number>> = {};
    if (browser)
      for (const pageName of PAGES) {
        emptyHeap[pageName] = await emptyPageHeapMb({ gateways: access, pageName, browser, timeoutMs: SIDE_TIMEOUT_MS });
        console.log(`  ${pageName} with no card: heap ${ms(emptyHeap[pageName], 1)} MB`);
      }

    const pins = await pinEveryCard([filled], PERSON_PINS);
    console.log(`  pinned ${pins.pinned.length} in Settings, ${pins.widgets} as widgets on ${pins.boards} boards`);
    const setup: Setup = {
      sessionsS,
      cardsS: { "one-line": 0, realistic: 0 },
      rounds: { "one-line": 0, realistic: 0 },
      boards: pins.boards,
      widgets: pins.widgets,
      pinned: pins.pinned.length,
    };
    const runs: Timed[] = [];
    // The rounds share what is left of the part's time (less a reserve to report and clean up) between the note kinds.
    const roundsEnd = t0 + HARD_LIMIT_MS - REPORT_RESERVE_MS;
    for (const [k, notes] of NOTE_KINDS.entries()) {
      const kindEnd = performance.now() + (roundsEnd - performance.now()) / (NOTE_KINDS.length - k);
      t = performance.now();
      await putCards(filled, notes);
      setup.cardsS[notes] = (performance.now() - t) / 1000;
      console.log(`bench/startup: ${CARDS} cards with ${notes} notes put in ${setup.cardsS[notes].toFixed(1)} s`);
      const sides: Side[] = ["bare", ...(notes === "one-line" ? (["core"] as const) : []), ...(browser ? PAGES : [])];
      setup.rounds[notes] = await roundsWithin(ROUNDS, kindEnd, async (r) => {
        for (const side of rotated(sides, r)) {
          // A side that already timed out would only time out again: once is the finding.
          if (runs.some((x) => x.side === side && x.notes === notes && x.ms === null)) continue;
          const timed =
            side === "bare"
              ? await timeBareClients([filled], SIDE_TIMEOUT_MS, notes)
              : side === "core"
                ? await timeCore(gateway, filled.cardKeys)
                : await timeHostPage({
                    gateways: access,
                    pinned: pins.pinned,
                    pageName: side,
                    browser: browser!,
                    want: CARDS,
                    timeoutMs: SIDE_TIMEOUT_MS,
                    notes,
                  });
          runs.push(timed);
          logRun(notes, r, side, timed);
        }
      });
    }

    const of = (side: Side, notes: NoteKind) => runs.filter((x) => x.side === side && x.notes === notes);
    const med = (side: Side, notes: NoteKind) => sideMedian(runs, side, notes);
    const failed = (side: Side, notes: NoteKind) => of(side, notes).find((x) => x.ms === null)?.note ?? "no figure";
    const ratioRow = (side: Side, notes: NoteKind, what: string) => {
      const bare = med("bare", notes);
      const mine = med(side, notes);
      const skipped = side !== "core" && !browser;
      return {
        target: `Start-up, ${SESSIONS} sessions / ${CARDS} cards, ${notes} notes: ${what} median ≤ ${side === "core" ? TARGETS.core : TARGETS.page}× bare`,
        measured: skipped
          ? "skipped: no Chromium"
          : Number.isFinite(mine)
            ? `${(mine / bare).toFixed(2)}× (${ms(mine, 0)} vs ${ms(bare, 0)} ms)`
            : failed(side, notes),
        ok: !skipped && Number.isFinite(mine) && mine / bare <= (side === "core" ? TARGETS.core : TARGETS.page),
      };
    };
    const heaps = heapFigures(runs, emptyHeap);
    const worstHeap = heaps.reduce<HeapFigure | null>((w, h) => (h.per100 !== null && (!w || h.per100 > w.per100!) ? h : w), null);
    const rows = [
      ratioRow("core", "one-line", "core (watch --json)"),
      ...NOTE_KINDS.flatMap((notes) => PAGES.map((pageName) => ratioRow(pageName, notes, `every card reachable in the ${pageName}`))),
      {
        target: `Page JS heap per 100 cards (every card drawn minus no card) ≤ ${TARGETS.heapPer100Mb} MB, worst of popover / dashboard × notes`,
        measured:
          !browser || !worstHeap
            ? "no figure"
            : `${ms(worstHeap.per100!, 2)} MB (${worstHeap.page}, ${worstHeap.notes} notes; ` +
              heaps.map((h) => `${h.page} ${h.notes} ${h.per100 === null ? "n/a" : ms(h.per100, 2)}`).join(", ") +
              ")",
        ok:
          Boolean(browser) &&
          heaps.length === PAGES.length * NOTE_KINDS.length &&
          heaps.every((h) => h.per100 !== null && h.per100 <= TARGETS.heapPer100Mb),
      },
    ];
    recordTargets("startup", rows);
    const seconds = (performance.now() - t0) / 1000;
    writeDocSection(DOC, START, END, section(rows, runs, med, heaps, setup, startedAt, seconds));
    console.log(`bench/startup: wrote its section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await browser?.close().catch(() => {});
    await gw?.dispose().catch(() => {});
  }
}

type HeapFigure = { page: PageName; notes: NoteKind; emptyMb: number | null; fullMb: number | null; cards: number; per100: number | null };

/** Per page and note kind, from its last run: the heap with every card minus the heap with none, per 100 cards. */
function heapFigures(runs: Timed[], emptyHeap: Partial<Record<PageName, number>>): HeapFigure[] {
  const out: HeapFigure[] = [];
  for (const notes of NOTE_KINDS)
    for (const page of PAGES) {
      const last = runs.filter((x) => x.side === page && x.notes === notes).at(-1);
      if (!last) continue;
      const emptyMb = emptyHeap[page] ?? null;
      const fullMb = last.heapMb;
      // Only a run that drew every card says what every card costs.
      const per100 = emptyMb !== null && fullMb !== null && last.ms !== null ? ((fullMb - emptyMb) * 100) / last.seen : null;
      out.push({ page, notes, emptyMb, fullMb, cards: last.seen, per100 });
    }
  return out;
}

function section(
  rows: { target: string; measured: string; ok: boolean }[],
  runs: Timed[],
  med: (side: Side, notes: NoteKind) => number,
  heaps: HeapFigure[],
  setup: Setup,
  startedAt: Date,
  seconds: number,
): string {
  const growth = (t: Timed | undefined) =>
    !t || t.rssMb === null || t.rssBeforeMb == null
      ? "n/a"
      : `${ms(t.rssBeforeMb, 1)} → ${ms(t.rssMb, 1)} MB, **${ms(((t.rssMb - t.rssBeforeMb) * 100) / Math.max(1, t.seen), 1)} MB per 100 cards**`;
  const last = (side: Side, notes: NoteKind) => runs.filter((x) => x.side === side && x.notes === notes).at(-1);
  const lines = [
    START,
    "## Start-up with many sessions",
    "",
    generatedLine(
      "bench/startup.ts",
      startedAt,
      seconds,
      "one real isolated OpenClaw Gateway on loopback, headless Chromium through playwright-core",
    ),
    "",
    "| Target | Measured | Result |",
    "|---|---:|:---:|",
    ...rows.map((r) => `| ${r.target} | ${r.measured} | ${verdictCell(r.ok)} |`),
    "",
    "| Run | Notes | Side | Process start → every card (ms) | Cards seen | Note |",
    "|---|---|---|---:|---:|---|",
    ...runs.map(
      (x, i) => `| ${i + 1} | ${x.notes} | ${x.side} | ${x.ms === null ? "—" : ms(x.ms, 0)} | ${x.seen} / ${CARDS} | ${x.note} |`,
    ),
    ...NOTE_KINDS.map(
      (notes) =>
        `| | ${notes} | **median** bare / core / popover / dashboard | ${(["bare", "core", "popover", "dashboard"] as Side[]).map((s) => (Number.isFinite(med(s, notes)) ? ms(med(s, notes), 0) : "—")).join(" / ")} | | |`,
    ),
    "",
    "| Page | Notes | JS heap, no card (MB) | JS heap, every card (MB) | Per 100 cards (MB) |",
    "|---|---|---:|---:|---:|",
    ...heaps.map(
      (h) =>
        `| ${h.page} | ${h.notes} | ${h.emptyMb === null ? "n/a" : ms(h.emptyMb, 1)} | ${h.fullMb === null ? "n/a" : ms(h.fullMb, 1)} | ${h.per100 === null ? "n/a" : `**${ms(h.per100, 2)}**`} |`,
    ),
    "",
    `Memory (last run of each side): \`watch --json\` RSS from connected (no card yet) to every card loaded ${growth(last("core", "one-line"))}; ` +
      NOTE_KINDS.flatMap((notes) =>
        PAGES.map((p) => `host RSS with the ${p}, ${notes} notes, from its address printed to every card drawn ${growth(last(p, notes))}`),
      ).join("; ") +
      ". RSS is read from `/proc` (Linux only); no GC is forced in the CLI or host, so RSS growth is an upper bound of what the cards retain. " +
      "The page's heap is read once the page has settled (no DOM change for 1 s after the last card came: the cards near the screen are drawn whole just after a load, and a reading during that draw counts its garbage), after a forced GC (CDP `HeapProfiler.collectGarbage`, then `Runtime.getHeapUsage`); its no-card figure is the same page on the same Gateway with the sessions made but no card put and nothing pinned, showing its empty state with the Gateway connected.",
    "",
    `Method. ${SESSIONS} sessions created with \`sessions.create\` (${ms(setup.sessionsS, 1)} s) and ${CARDS} cards put with \`progressCard.put\` on one session in ${Math.round(SESSIONS / CARDS)} or so, ` +
      `from the oldest to the newest, through the Gateway before anything is timed (${SETUP_METHOD}): first with one-line notes (${ms(setup.cardsS["one-line"], 1)} s), ` +
      `then the same cards put again with realistic 1–2 KB notes (\`bench/realistic-note.ts\`: lists, a table, code, links; each note differs; ${ms(setup.cardsS.realistic, 1)} s). ` +
      `Every card is pinned to the dashboard: ${setup.pinned} in Settings.pinned (its cap is ${PINNED_MAX}), the other ${setup.widgets} as \`session:progress\` widgets on ${setup.boards} boards of card-less sessions (\`board.widget.put\`). ` +
      "Then each side runs alone on the Gateway, in a process of its own with a fresh data folder and device identity (silently paired on loopback), " +
      "timed from just before the spawn: **bare** (`bench/bare-start.ts`) connects, pages through `sessions.list` (limit 100, following `hasMore`/`nextOffset`) " +
      "and reads every listed session's card with 8 `progressCard.get` in flight, timed to its result line on stdout; " +
      "**core** is `progress-desk watch --json` (the built CLI: the desk core; one-line notes only), timed to the stdout line that completes a card line for every card; " +
      "**popover** and **dashboard** are `progress-desk host`, its data folder written before the spawn through the desk's own settings store (the Gateway and its token, the pins), " +
      "and that page loaded in Chromium (launched, and a fresh context with a blank tab made, before the timing; no request interception; 400×900 for the popover, 1280×900 for the dashboard) as soon as the host prints its address, " +
      "timed to the first animation frame in which the page accounts for every card: distinct cards drawn with their title outside groups (`[data-card-key]`) plus the sum of " +
      "every popover group's `data-group-count` (its whole size, open or closed), counted only in a frame after the page's DOM changed (a MutationObserver asks for that frame), " +
      "so the count, which walks every drawn card, does not take the page's main thread in every frame, and no frame is asked for while nothing changes (polling every frame kept the page drawing 60 frames a second for the benchmark's sake). " +
      `Rounds rotate which side goes first (${ROUNDS} rounds per note kind, fewer if the part's time would run out: ${NOTE_KINDS.map((n) => `${setup.rounds[n]} with ${n} notes`).join(", ")}); the targets compare medians with the same notes. A side that has not seen every card after ${SIDE_TIMEOUT_MS / 1000} s is reported with the count it reached.`,
    END,
  ];
  return lines.join("\n");
}

runBounded("bench/startup", main, HARD_LIMIT_MS, "the Gateway host stops when this process exits");
