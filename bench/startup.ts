// `node bench/startup.ts` (part of `npm run bench`): start-up with many sessions. A real Gateway gets
// SESSIONS sessions, CARDS of them holding a card (created through the Gateway before anything is timed),
// then, in turn and alone on the Gateway, three processes are timed from their spawn:
//   bare  — bench/bare-start.ts: pages through `sessions.list`, reads every session's card, 8 in flight;
//   core  — `progress-desk watch --json` (the desk core): until it has printed a card line for every card;
//   page  — `progress-desk host` + the popover page in Chromium (already running): until every card is a
//           card drawn in the page's DOM (`[data-card-key]`) or counted by its group (`data-group-count`).
// Rounds rotate which of the three goes first. Targets on the medians: core ≤ 1.5× bare, page ≤ 2× bare.
// Also the watch process's RSS and the page's JS heap with every card loaded. Writes its section of
// docs/benchmarks.md. A part that never sees every card reports "only N of M" as a MISS after its timeout.
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, Page } from "playwright-core";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { openPlainPage } from "./plain-page.ts";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { spawnCli, spawnWithToken } from "./cli-process.ts";
import { startHostedGateway, withTimeout, type HostedGateway } from "./gateway-process.ts";
import { generatedLine, recordTargets, runBounded, size, verdictCell, writeDocSection } from "./harness.ts";
import { ms } from "./stats.ts";

// Callbacks passed to page.evaluate run in the page; the Node-side program has no DOM types.
declare const document: any;

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- startup-bench:start -->";
const END = "<!-- startup-bench:end -->";

const SESSIONS = size(1000, 150);
const CARDS = size(300, 45);
const ROUNDS = size(3, 1);
const SETUP_CONNECTIONS = 4;
const SETUP_IN_FLIGHT = 8; // requests in flight per setup connection
const SIDE_TIMEOUT_MS = size(45_000, 30_000);
const HARD_LIMIT_MS = 4 * 60_000; // the sessions alone take a while on a busy machine, even at the reduced size
const TARGETS = { core: 1.5, page: 2 };

type Side = "bare" | "core" | "page";
type Timed = {
  side: Side;
  ms: number | null;
  seen: number;
  /** The process's RSS with every card loaded (or at the timeout), and before the first card (connected / address printed). */
  rssMb: number | null;
  rssBeforeMb?: number | null;
  heapMb: number | null;
  note: string;
};

async function pool<T>(items: T[], workers: number, fn: (item: T, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (next < items.length) await fn(items[next++]!, w);
    }),
  );
}

/** SESSIONS sessions, CARDS of them (spread evenly from the oldest to the newest) with a card. */
async function populate(gw: HostedGateway): Promise<{ cardKeys: string[]; seconds: number }> {
  const t0 = performance.now();
  const clients: BareClient[] = [];
  try {
    for (let i = 0; i < SETUP_CONNECTIONS; i++) clients.push(await connectBareClient(gw));
    const keys: string[] = new Array(SESSIONS);
    const slots = Array.from({ length: SESSIONS }, (_, i) => i);
    const lanes = SETUP_CONNECTIONS * SETUP_IN_FLIGHT;
    // In order of index as far as the pool allows: the index is the session's age rank.
    await pool(slots, lanes, async (i, w) => {
      keys[i] = await clients[w % SETUP_CONNECTIONS]!.createSession();
    });
    const withCard = Array.from({ length: CARDS }, (_, j) => Math.floor((j * SESSIONS) / CARDS));
    await pool(withCard, lanes, async (i, w) => {
      await clients[w % SETUP_CONNECTIONS]!.put(keys[i]!, {
        markdown: `Card ${i} of the start-up benchmark: paused since yesterday`,
        plan: [
          { step: "Fetch sources", status: "completed" },
          { step: "Run the tests", status: i % 3 === 0 ? "completed" : "in_progress" },
          { step: "Write the report", status: "pending" },
        ],
      });
    });
    return { cardKeys: withCard.map((i) => keys[i]!), seconds: (performance.now() - t0) / 1000 };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

async function timeBare(gw: HostedGateway, cards: number): Promise<Timed> {
  const proc = spawnWithToken(path.join(import.meta.dirname, "bare-start.ts"), [gw.url], gw.token);
  try {
    const done = await withTimeout(
      new Promise<{ at: number; cards: number; sessions: number; pages: number }>((resolve) => {
        proc.onLine = (line, at) => {
          const m = JSON.parse(line) as { type: string; cards: number; sessions: number; pages: number };
          if (m.type === "done") resolve({ at, ...m });
        };
      }),
      SIDE_TIMEOUT_MS,
      "bare start-up client",
    );
    // The baseline must find every card too, or it is no baseline.
    if (done.cards !== cards) throw new Error(`the bare client found ${done.cards} cards, not ${cards}`);
    return {
      side: "bare",
      ms: done.at - proc.spawnedAt,
      seen: done.cards,
      rssMb: null,
      heapMb: null,
      note: `${done.sessions} sessions in ${done.pages} pages`,
    };
  } finally {
    await proc.stop();
  }
}

async function timeCore(gw: HostedGateway, cardKeys: string[]): Promise<Timed> {
  const want = new Set(cardKeys);
  const seen = new Set<string>();
  const proc = spawnCli(["watch", "--json"], gw);
  let rssBefore: number | null = null;
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
        side: "core",
        ms: null,
        seen: seen.size,
        rssMb: rss,
        rssBeforeMb: rssBefore,
        heapMb: null,
        note: `only ${seen.size} of ${want.size} cards after ${SIDE_TIMEOUT_MS / 1000} s`,
      };
    return { side: "core", ms: at - proc.spawnedAt, seen: seen.size, rssMb: rss, rssBeforeMb: rssBefore, heapMb: null, note: "" };
  } finally {
    await proc.stop();
  }
}

/**
 * Cards the popover accounts for: distinct drawn cards outside any group (`[data-card-key]`) plus every group's
 * `data-group-count` (its whole size, open or closed, so cards drawn inside an open group are not counted twice);
 * the count once it reaches `want`, else false (runs in the page, for waitForFunction and evaluate alike).
 */
function cardsInPage(want: number): number | false {
  const keys = new Set<string>();
  for (const el of document.querySelectorAll("[data-card-key]")) {
    if (!el.closest("[data-group]")) keys.add(el.dataset.cardKey ?? "");
  }
  let grouped = 0;
  for (const el of document.querySelectorAll("[data-group] [data-group-count]")) {
    const n = Number(el.dataset.groupCount);
    if (Number.isInteger(n) && n > 0) grouped += n;
  }
  const total = keys.size + grouped;
  return total >= want ? total : false;
}

async function timePage(gw: HostedGateway, browser: Browser, cards: number): Promise<Timed> {
  const proc = spawnCli(["host"], gw);
  let page: Page | null = null;
  let rssBefore: number | null = null;
  try {
    const url = await withTimeout(
      new Promise<string>((resolve) => {
        proc.onLine = (line) => {
          if (/^https?:\/\//.test(line)) {
            rssBefore = proc.rssMb(); // the host is up; the page has not asked for anything yet
            resolve(line.trim());
          }
        };
      }),
      SIDE_TIMEOUT_MS,
      "progress-desk host address",
    );
    const opened = await openPlainPage(browser, url);
    page = opened.page;
    const left = Math.max(1000, SIDE_TIMEOUT_MS - (performance.now() - proc.spawnedAt));
    let at: number | null = null;
    try {
      await page.waitForFunction(cardsInPage, cards, { timeout: left, polling: "raf" });
      at = performance.now();
    } catch {
      // reported as a count below
    }
    const seen = Number(await page.evaluate(cardsInPage, 0));
    const rss = proc.rssMb();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("HeapProfiler.collectGarbage");
    const heap = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
    const heapMb = heap.usedSize / (1024 * 1024);
    if (at === null)
      return {
        side: "page",
        ms: null,
        seen,
        rssMb: rss,
        rssBeforeMb: rssBefore,
        heapMb,
        note: `only ${seen} of ${cards} cards after ${SIDE_TIMEOUT_MS / 1000} s`,
      };
    return { side: "page", ms: at - proc.spawnedAt, seen, rssMb: rss, rssBeforeMb: rssBefore, heapMb, note: "" };
  } finally {
    await page
      ?.context()
      .close()
      .catch(() => {});
    await proc.stop();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const chromium = chromiumAvailable();
  let browser: Browser | null = null;
  let gw: HostedGateway | null = null;
  try {
    gw = await startHostedGateway();
    console.log(`bench/startup: creating ${SESSIONS} sessions, ${CARDS} with a card…`);
    const { cardKeys, seconds: setupS } = await populate(gw);
    console.log(`  done in ${setupS.toFixed(1)} s`);
    if (chromium.ok) browser = await launchChromium();
    else console.log(`bench/startup: page side skipped: ${chromium.reason}`);
    const order: Side[][] = [
      ["bare", "core", "page"],
      ["page", "core", "bare"],
      ["core", "bare", "page"],
    ];
    const runs: Timed[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of order[r % order.length]!) {
        if (side === "page" && !browser) continue;
        // A side that already timed out would only time out again: once is the finding.
        if (runs.some((x) => x.side === side && x.ms === null)) continue;
        const t =
          side === "bare"
            ? await timeBare(gw, cardKeys.length)
            : side === "core"
              ? await timeCore(gw, cardKeys)
              : await timePage(gw, browser!, cardKeys.length);
        runs.push(t);
        console.log(
          `  round ${r + 1} ${side}: ${t.ms === null ? "—" : `${ms(t.ms, 0)} ms`} (${t.seen} cards${t.note ? `; ${t.note}` : ""})`,
        );
      }
    }
    const of = (side: Side) => runs.filter((x) => x.side === side);
    const med = (side: Side) => {
      const xs = of(side);
      return xs.length && xs.every((x) => x.ms !== null) ? median(xs.map((x) => x.ms!)) : Number.NaN;
    };
    const bare = med("bare");
    const core = med("core");
    const pageMs = med("page");
    const worst = (side: Side) => of(side).find((x) => x.ms === null)?.note;
    const rows = [
      {
        target: `Start-up, ${SESSIONS} sessions / ${CARDS} cards: core (watch --json) median ≤ ${TARGETS.core}× bare`,
        measured: Number.isFinite(core)
          ? `${(core / bare).toFixed(2)}× (${ms(core, 0)} vs ${ms(bare, 0)} ms)`
          : (worst("core") ?? "no figure"),
        ok: Number.isFinite(core) && core / bare <= TARGETS.core,
      },
      {
        target: `Start-up, ${SESSIONS} sessions / ${CARDS} cards: popover page median ≤ ${TARGETS.page}× bare`,
        measured: !browser
          ? "skipped: no Chromium"
          : Number.isFinite(pageMs)
            ? `${(pageMs / bare).toFixed(2)}× (${ms(pageMs, 0)} vs ${ms(bare, 0)} ms)`
            : (worst("page") ?? "no figure"),
        ok: Boolean(browser) && Number.isFinite(pageMs) && pageMs / bare <= TARGETS.page,
      },
    ];
    recordTargets("startup", rows);
    const seconds = (performance.now() - t0) / 1000;
    writeDocSection(DOC, START, END, section(rows, runs, { bare, core, page: pageMs }, setupS, startedAt, seconds, cardKeys.length));
    console.log(`bench/startup: wrote its section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await browser?.close().catch(() => {});
    await gw?.dispose().catch(() => {});
  }
}

function section(
  rows: { target: string; measured: string; ok: boolean }[],
  runs: Timed[],
  med: Record<Side, number>,
  setupS: number,
  startedAt: Date,
  seconds: number,
  cards: number,
): string {
  const per100 = (mb: number | null) => (mb === null ? "n/a" : `${ms(mb, 1)} MB (${ms((mb * 100) / cards, 1)} MB per 100 cards)`);
  const growth = (t: Timed | undefined) =>
    !t || t.rssMb === null || t.rssBeforeMb == null
      ? "n/a"
      : `${ms(t.rssBeforeMb, 1)} → ${ms(t.rssMb, 1)} MB, **${ms(((t.rssMb - t.rssBeforeMb) * 100) / Math.max(1, t.seen), 1)} MB per 100 cards** (${t.seen} cards)`;
  const last = (side: Side) => runs.filter((x) => x.side === side).at(-1);
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
    "| Run | Side | Process start → every card (ms) | Cards seen | Note |",
    "|---|---|---:|---:|---|",
    ...runs.map((x, i) => `| ${i + 1} | ${x.side} | ${x.ms === null ? "—" : ms(x.ms, 0)} | ${x.seen} / ${cards} | ${x.note} |`),
    `| | **median** bare / core / page | ${ms(med.bare, 0)} / ${ms(med.core, 0)} / ${ms(med.page, 0)} | | |`,
    "",
    `Memory (last run of each side): \`watch --json\` RSS from connected (no card yet) to every card loaded ${growth(last("core"))}; ` +
      `host process RSS from its address printed to every card drawn ${growth(last("page"))}; ` +
      `popover page JS heap after a GC with every card drawn ${per100(last("page")?.heapMb ?? null)} — that one divides the whole heap by the cards, so it includes the page's fixed cost. ` +
      "RSS is read from `/proc` (Linux only); no GC is forced in the CLI or host, so RSS growth is an upper bound of what the cards retain.",
    "",
    `Method. ${SESSIONS} sessions created with \`sessions.create\` and ${cards} cards put with \`progressCard.put\` on every ${Math.round(SESSIONS / cards)}th or so of them, ` +
      `from the oldest to the newest, through the Gateway before anything is timed (${ms(setupS, 1)} s, ${SETUP_CONNECTIONS} connections × ${SETUP_IN_FLIGHT} requests in flight). ` +
      "Then each side runs alone on the Gateway, in a process of its own with a fresh data folder and device identity (silently paired on loopback), " +
      "timed from just before the spawn: **bare** (`bench/bare-start.ts`) connects, pages through `sessions.list` (limit 100, following `hasMore`/`nextOffset`) " +
      "and reads every listed session's card with 8 `progressCard.get` in flight, timed to its result line on stdout; " +
      "**core** is `progress-desk watch --json` (the built CLI: the desk core), timed to the stdout line that completes a card line for every card; " +
      "**page** is `progress-desk host` and the popover page opened in Chromium (launched before the timing: the browser is already running; a fresh context, no request interception) as soon as the host prints its address, " +
      "timed to the first animation frame in which the page accounts for every card: distinct drawn cards outside groups (`[data-card-key]`) plus the sum of " +
      "every group's `data-group-count` (its whole size, open or closed). " +
      `Rounds rotate which side goes first (${ROUNDS} rounds); the targets compare medians. A side that has not seen every card after ${SIDE_TIMEOUT_MS / 1000} s is reported with the count it reached.`,
    END,
  ];
  return lines.join("\n");
}

runBounded("bench/startup", main, HARD_LIMIT_MS, "the Gateway host stops when this process exits");
