// `node bench/scroll.ts` (part of `npm run bench`, issue 21): scrolling the popover and the dashboard
// through CARDS cards, against the same content as static HTML in the same browser.
//   1. A real Gateway gets CARDS sessions, each with a card holding a realistic note and a plan of a few
//      steps in mixed states, put through the Gateway before anything is timed.
//   2. `progress-desk host` starts on a data folder prepared so the dashboard shows every card: the first
//      SETTINGS_PINS pinned in Settings (its cap), the rest pinned as progress widgets on Gateway boards.
//   3. Per surface (popover 400×900, dashboard 1200×900): the page in Chromium until every card is in its
//      DOM and the DOM is quiet, then one fling down it; then its "static twin": the rendered DOM with
//      scripts removed and every stylesheet inlined, served as a static file and opened in a fresh context
//      of the same browser at the same viewport.
//   4. A fling from top to bottom on each page's scrolling element, a fixed number of px per animation
//      frame, timed with the rAF timestamps; after one uncounted warm-up each, passes alternate ours/static,
//      the side going first alternating.
// Targets (per surface): frame-time p95 ours/static ≤ 1.2; dropped frames (ours + 1)/(static + 1) ≤ 1.2.
// Writes its section of docs/benchmarks.md. Kills its Gateway, host and browser on every path.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { gatewaySessionKey } from "../common/keys.ts";
import { gatewayIdForUrl } from "../main/core/discovery.ts";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { startStaticServer, type StaticServer } from "../test/browser/server.ts";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { spawnCli, type Spawned } from "./cli-process.ts";
import { startHostedGateway, withTimeout, type HostedGateway } from "./gateway-process.ts";
import { generatedLine, recordTargets, runBounded, size, verdictCell, writeDocSection, type TargetRow } from "./harness.ts";
import { domQuiet } from "./plain-page.ts";
import { realisticNote } from "./realistic-note.ts";
import { ms, percentile } from "./stats.ts";

// Callbacks passed to page.evaluate run in the page; the Node-side program has no DOM types.
declare const document: any;
declare const window: any;
declare const getComputedStyle: any;
declare const requestAnimationFrame: any;

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- scroll-bench:start -->";
const END = "<!-- scroll-bench:end -->";

const CARDS = size(1000, 150);
/** Settings.pinned holds at most 200 (common/settings-schema.ts); the rest are pinned on boards. */
const SETTINGS_PINS = size(200, 100);
/** The Gateway refuses more than 48 widgets on one board. */
const WIDGETS_PER_BOARD = 40;
const PASSES = 3; // counted, per side and surface (after one warm-up each)
const SETUP_CONNECTIONS = 4;
const SETUP_IN_FLIGHT = 8;
const LOAD_TIMEOUT_MS = size(150_000, 60_000);
const QUIET_MS = 1500;
const PASS_LIMIT_MS = size(60_000, 30_000);
const MAX_FRAMES = 4000;
const IDLE_FRAMES = 60;
const DROPPED_FACTOR = 1.5;
const HARD_LIMIT_MS = 13 * 60_000;
const TARGET = 1.2;

type Surface = { name: "popover" | "dashboard"; file: string; width: number; stepPx: number; cardSelector: string };
const SURFACES: Surface[] = [
  { name: "popover", file: "/popover.html", width: 400, stepPx: 810, cardSelector: "[data-card-key]" },
  { name: "dashboard", file: "/dashboard.html", width: 1200, stepPx: 576, cardSelector: ".sections .widget-wrap[data-state]" },
];
const HEIGHT = 900;

type Side = "ours" | "static";
type Pass = {
  /** 1-based; the uncounted warm-up is pass 0. */
  pass: number;
  side: Side;
  /** Intervals between consecutive rAF timestamps while scrolling (ms). */
  intervals: number[];
  scrolledPx: number;
  scrollHeight: number;
  reachedBottom: boolean;
  seconds: number;
};
type SurfaceResult = {
  surface: Surface;
  cards: { ours: number; static: number };
  /** Characters of text in the body (the twin drops scripts only, so both should match). */
  text: { ours: number; static: number };
  twinBytes: number;
  /** The frame interval with nothing scrolling (median of both pages' idle rAF loops). */
  idleMs: number;
  passes: Pass[];
  loadSeconds: number;
};

async function pool<T>(items: T[], workers: number, fn: (item: T, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (next < items.length) await fn(items[next++]!, w);
    }),
  );
}

const STEPS = [
  "Reproduce the failure",
  "Read the runner logs",
  "Bisect the recent commits",
  "Write the fix",
  "Add a regression test",
  "Update the changelog",
];

/** 3–6 steps: some completed, then one in progress (or none: paused), the rest pending; never all completed. */
function planFor(i: number): { step: string; status: "pending" | "in_progress" | "completed" }[] {
  const n = 3 + (i % 4);
  const done = i % n;
  return STEPS.slice(0, n).map((step, k) => ({
    step,
    status: k < done ? "completed" : k === done && i % 5 !== 0 ? "in_progress" : "pending",
  }));
}

/** CARDS sessions with a card each, and boards pinning every session past the first SETTINGS_PINS. */
async function populate(gw: HostedGateway): Promise<{ keys: string[]; boards: number; seconds: number }> {
  const t0 = performance.now();
  const clients: BareClient[] = [];
  try {
    for (let i = 0; i < SETUP_CONNECTIONS; i++) clients.push(await connectBareClient(gw));
    const lanes = SETUP_CONNECTIONS * SETUP_IN_FLIGHT;
    const keys: string[] = new Array(CARDS);
    const index = Array.from({ length: CARDS }, (_, i) => i);
    await pool(index, lanes, async (i, w) => {
      const c = clients[w % SETUP_CONNECTIONS]!;
      keys[i] = await c.createSession();
      await c.put(keys[i]!, { markdown: realisticNote(i), plan: planFor(i) });
    });
    const onBoards = keys.slice(SETTINGS_PINS);
    const boards = Math.ceil(onBoards.length / WIDGETS_PER_BOARD);
    // Board b lives on session b (pinned in Settings itself) and pins the next WIDGETS_PER_BOARD of the rest.
    await pool(
      Array.from({ length: boards }, (_, b) => b),
      lanes,
      async (b, w) => {
        const c = clients[w % SETUP_CONNECTIONS]!;
        const targets = onBoards.slice(b * WIDGETS_PER_BOARD, (b + 1) * WIDGETS_PER_BOARD);
        for (const [j, target] of targets.entries()) {
          await c.request("board.widget.put", {
            sessionKey: keys[b]!,
            name: `progress-${j}`,
            title: `Progress ${b}.${j}`,
            content: { kind: "plugin", pluginKind: "session:progress", props: { sessionKey: target } },
          });
        }
      },
    );
    return { keys, boards, seconds: (performance.now() - t0) / 1000 };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

/** Distinct card elements in the page (by their key attribute, else each element once). */
function cardCount(selector: string): number {
  const seen = new Set<string>();
  let i = 0;
  for (const el of document.querySelectorAll(selector)) seen.add(el.getAttribute("data-card-key") ?? String(i++));
  return seen.size;
}

/** True once the page holds `want` distinct cards (cardCount inlined: it runs in the page on its own). */
function cardsAtLeast({ selector, want }: { selector: string; want: number }): boolean {
  const seen = new Set<string>();
  let i = 0;
  for (const el of document.querySelectorAll(selector)) seen.add(el.getAttribute("data-card-key") ?? String(i++));
  return seen.size >= want;
}

/** The page's rendered DOM as a static document: no scripts, every stylesheet's rules inlined in order. */
function staticTwin(): { html: string; textLength: number } {
  const css: string[] = [];
  for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets ?? [])]) {
    try {
      for (const rule of sheet.cssRules) css.push(rule.cssText);
    } catch {
      // a cross-origin sheet cannot be read; the pages have none
    }
  }
  const root = document.documentElement.cloneNode(true);
  for (const el of root.querySelectorAll('script, style, link[rel="stylesheet"], link[rel="modulepreload"], meta[http-equiv]')) el.remove();
  const head = root.querySelector("head") ?? root.insertBefore(document.createElement("head"), root.firstChild);
  const base = document.createElement("base");
  base.href = document.location.href;
  head.prepend(base);
  const style = document.createElement("style");
  style.textContent = css.join("\n");
  head.append(style);
  // The page's text in the same task as the copy: a time line that ticks over a minute later cannot make them differ.
  return { html: "<!doctype html>\n" + root.outerHTML, textLength: String(document.body?.textContent ?? "").length };
}

/** The element that scrolls the page: the document's, or else the overflow container with the most to scroll. */
function markScroller(): { scrollHeight: number; clientHeight: number; which: string } {
  const se = document.scrollingElement;
  let el = se;
  if (!se || se.scrollHeight <= se.clientHeight + 1) {
    let extent = 0;
    for (const x of document.querySelectorAll("*")) {
      const oy = getComputedStyle(x).overflowY;
      if ((oy === "auto" || oy === "scroll") && x.scrollHeight - x.clientHeight > extent) {
        el = x;
        extent = x.scrollHeight - x.clientHeight;
      }
    }
  }
  window.__scroller = el;
  return { scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, which: el === se ? "document" : `${el.tagName}.${el.className}` };
}

/** `frames` rAF intervals with nothing scrolling. */
function idleIntervals(frames: number): Promise<number[]> {
  return new Promise((resolve) => {
    const times: number[] = [];
    const tick = (t: number) => {
      times.push(t);
      if (times.length > frames) resolve(times.slice(1).map((x, i) => x - times[i]!));
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** One fling: from the top (or `fromPx`), `stepPx` further down in every animation frame until the bottom. */
function fling({
  stepPx,
  limitMs,
  maxFrames,
  fromPx = 0,
}: {
  stepPx: number;
  limitMs: number;
  maxFrames: number;
  fromPx?: number;
}): Promise<{ intervals: number[]; scrolledPx: number; scrollHeight: number; reachedBottom: boolean; ms: number }> {
  const el = window.__scroller;
  el.scrollTop = fromPx;
  return new Promise((resolve) => {
    // Two frames at the top first, so the fling starts from a settled frame.
    requestAnimationFrame(() =>
      requestAnimationFrame((start: number) => {
        const times = [start];
        const tick = (t: number) => {
          times.push(t);
          const bottom = el.scrollHeight - el.clientHeight;
          const reachedBottom = el.scrollTop >= bottom - 1;
          if (reachedBottom || t - start > limitMs || times.length > maxFrames) {
            resolve({
              intervals: times.slice(1).map((x, i) => x - times[i]!),
              scrolledPx: el.scrollTop,
              scrollHeight: el.scrollHeight,
              reachedBottom,
              ms: t - start,
            });
            return;
          }
          el.scrollTop = Math.min(bottom, el.scrollTop + stepPx);
          requestAnimationFrame(tick);
        };
        el.scrollTop = Math.min(el.scrollHeight - el.clientHeight, fromPx + stepPx);
        requestAnimationFrame(tick);
      }),
    );
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? percentile(s, 50) : Number.NaN;
}

async function newPageAt(browser: Browser, width: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: HEIGHT }, reducedMotion: "reduce" });
  return { context, page: await context.newPage() };
}

async function measureSurface(
  browser: Browser,
  hostUrl: string,
  surface: Surface,
  cards: number,
  deadline: number,
): Promise<SurfaceResult> {
  const url = new URL(hostUrl);
  url.pathname = url.pathname.replace(/\/[^/]*$/, surface.file);
  let ours: { context: BrowserContext; page: Page } | null = null;
  let twin: { context: BrowserContext; page: Page } | null = null;
  let server: StaticServer | null = null;
  try {
    const t0 = performance.now();
    // Never past the surface's deadline, which leaves time for the figures to be written.
    const loadTimeout = Math.max(10_000, Math.min(LOAD_TIMEOUT_MS, deadline - t0 - 30_000));
    ours = await newPageAt(browser, surface.width);
    await ours.page.goto(url.href);
    await ours.page
      .waitForFunction(
        cardsAtLeast,
        { selector: surface.cardSelector, want: cards },
        {
          timeout: loadTimeout,
          polling: 500,
        },
      )
      .catch(async () => {
        const seen = await ours!.page.evaluate(cardCount, surface.cardSelector);
        throw new Error(`${surface.name}: only ${seen} of ${cards} cards in the DOM after ${(loadTimeout / 1000).toFixed(0)} s`);
      });
    await ours.page.evaluate(domQuiet, { quietMs: QUIET_MS, limitMs: 20_000 });
    const loadSeconds = (performance.now() - t0) / 1000;
    const pages: Partial<Record<Side, Page>> = { ours: ours.page };
    const last: Partial<Record<Side, number>> = {};
    const passes: Pass[] = [];
    /** One fling on `side`, logged; pass 0 is a warm-up, not counted. */
    const run = async (n: number, side: Side, fromPx = 0): Promise<{ reachedBottom: boolean; scrolledPx: number }> => {
      const page = pages[side]!;
      await page.bringToFront();
      const r = await page.evaluate(fling, { stepPx: surface.stepPx, limitMs: PASS_LIMIT_MS, maxFrames: MAX_FRAMES, fromPx });
      last[side] = r.ms + 500;
      const sorted = [...r.intervals].sort((a, b) => a - b);
      console.log(
        `  ${surface.name} ${n === 0 ? "warm-up" : `pass ${n}`} ${side}: ${r.intervals.length} frames, p50 ${ms(percentile(sorted, 50), 1)} ms, ` +
          `p95 ${ms(percentile(sorted, 95), 1)} ms, ${Math.round(r.scrolledPx)} px${r.reachedBottom ? "" : " (stopped before the bottom)"}`,
      );
      if (n > 0)
        passes.push({
          pass: n,
          side,
          intervals: r.intervals,
          scrolledPx: r.scrolledPx,
          scrollHeight: r.scrollHeight,
          reachedBottom: r.reachedBottom,
          seconds: r.ms / 1000,
        });
      return r;
    };
    // A warm-up fling each (not counted), so one-time costs the browser shares across pages (font and
    // glyph caches, the first layout of every card) do not fall on whichever side happens to go first.
    // Ours goes before the twin is taken: a card the page draws only once it nears the screen is then
    // in the twin as drawn, so the twin holds all of the content. A warm-up that stops before the
    // bottom (a slow machine: each fling has a time limit) goes on from where it stopped until it gets
    // there: a card never drawn would be drawn in a counted pass, work the twin never does.
    const scroller = await ours.page.evaluate(markScroller);
    for (let warm = await run(0, "ours"); !warm.reachedBottom;) {
      if (performance.now() + PASS_LIMIT_MS > deadline)
        throw new Error(`${surface.name}: the warm-up fling did not reach the bottom in time`);
      warm = await run(0, "ours", warm.scrolledPx);
    }
    await ours.page.evaluate(domQuiet, { quietMs: 500, limitMs: 10_000 });
    const { html, textLength: oursText } = await ours.page.evaluate(staticTwin);
    server = await startStaticServer({ "/": { type: "text/html; charset=utf-8", body: html } });
    twin = await newPageAt(browser, surface.width);
    await twin.page.goto(server.origin + "/", { timeout: 60_000 });
    pages.static = twin.page;
    const counts = {
      ours: await ours.page.evaluate(cardCount, surface.cardSelector),
      static: await twin.page.evaluate(cardCount, surface.cardSelector),
    };
    // The same content on both sides: the twin's text must be the page's when it was copied, character for character.
    const text = { ours: oursText, static: await twin.page.evaluate(() => String(document.body?.textContent ?? "").length) };
    const twinScroller = await twin.page.evaluate(markScroller);
    for (const [side, sc] of [
      ["ours", scroller],
      ["static", twinScroller],
    ] as const)
      console.log(
        `  ${surface.name} ${side}: scrolls ${sc.which}, ${sc.scrollHeight} px (${counts[side]} cards, ${text[side]} characters of text)`,
      );
    await run(0, "static");
    const idle: number[] = [];
    for (const side of ["ours", "static"] as const) {
      await pages[side]!.bringToFront();
      idle.push(...(await pages[side]!.evaluate(idleIntervals, IDLE_FRAMES)));
    }
    const plan: { pass: number; side: Side }[] = Array.from({ length: PASSES }, (_, i) =>
      (i % 2 === 0 ? (["ours", "static"] as const) : (["static", "ours"] as const)).map((side) => ({ pass: i + 1, side })),
    ).flat();
    for (const { pass: n, side } of plan) {
      // Out of time: stop before a pass that would not end in time (the side's last fling told how long one takes).
      if (performance.now() + (last[side] ?? PASS_LIMIT_MS) * 1.2 > deadline) break;
      await run(n, side);
    }
    // Both sides by the same passes: an unpaired last pass (time ran out between the two) is left out.
    const paired = passes.filter((p) => passes.some((q) => q.pass === p.pass && q.side !== p.side));
    return { surface, cards: counts, text, twinBytes: Buffer.byteLength(html), idleMs: median(idle), passes: paired, loadSeconds };
  } finally {
    await ours?.context.close().catch(() => {});
    await twin?.context.close().catch(() => {});
    await server?.close();
  }
}

type Figures = {
  p95: Record<Side, number>;
  dropped: Record<Side, number>;
  frames: Record<Side, number>;
  p95Ratio: number;
  droppedRatio: number;
};

function figures(r: SurfaceResult): Figures {
  const of = (side: Side) => r.passes.filter((p) => p.side === side).flatMap((p) => p.intervals);
  const threshold = DROPPED_FACTOR * r.idleMs;
  const p95 = {
    ours: percentile(
      [...of("ours")].sort((a, b) => a - b),
      95,
    ),
    static: percentile(
      [...of("static")].sort((a, b) => a - b),
      95,
    ),
  };
  const dropped = { ours: of("ours").filter((x) => x > threshold).length, static: of("static").filter((x) => x > threshold).length };
  return {
    p95,
    dropped,
    frames: { ours: of("ours").length, static: of("static").length },
    p95Ratio: p95.ours / p95.static,
    droppedRatio: (dropped.ours + 1) / (dropped.static + 1),
  };
}

function targetRows(results: SurfaceResult[], failures: Record<string, string>): Omit<TargetRow, "part">[] {
  const rows: Omit<TargetRow, "part">[] = [];
  for (const s of SURFACES) {
    const r = results.find((x) => x.surface.name === s.name);
    const label = `Scroll, ${s.name}, ${CARDS} cards`;
    if (!r) {
      const why = failures[s.name] ?? "not measured";
      rows.push({ target: `${label}: frame-time p95 ≤ ${TARGET}× static twin`, measured: why, ok: false });
      rows.push({ target: `${label}: dropped frames (ours+1)/(static+1) ≤ ${TARGET}`, measured: why, ok: false });
      continue;
    }
    const f = figures(r);
    const counted = r.passes.filter((p) => p.side === "ours").length;
    const sameText = r.text.ours === r.text.static;
    const complete = counted > 0 && sameText && r.passes.every((p) => p.reachedBottom) && r.cards.ours >= CARDS && r.cards.static >= CARDS;
    const note =
      (sameText ? "" : `; the twin's text differs (${r.text.static} vs ${r.text.ours} characters)`) +
      (r.passes.every((p) => p.reachedBottom) ? "" : "; a pass stopped before the bottom") +
      (counted < PASSES ? `; ${counted} of ${PASSES} passes (time ran out)` : "");
    rows.push({
      target: `${label}: frame-time p95 ≤ ${TARGET}× static twin`,
      measured: `${f.p95Ratio.toFixed(2)}× (${ms(f.p95.ours, 1)} vs ${ms(f.p95.static, 1)} ms)${note}`,
      ok: complete && f.p95Ratio <= TARGET,
    });
    rows.push({
      target: `${label}: dropped frames (ours+1)/(static+1) ≤ ${TARGET}`,
      measured: `${f.droppedRatio.toFixed(2)} (${f.dropped.ours} of ${f.frames.ours} vs ${f.dropped.static} of ${f.frames.static})${note}`,
      ok: complete && f.droppedRatio <= TARGET,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const chromium = chromiumAvailable();
  if (!chromium.ok) {
    recordTargets("scroll", [{ target: "Scroll benchmark ran", measured: `skipped: ${chromium.reason}`, ok: false }]);
    return;
  }
  let gw: HostedGateway | null = null;
  let host: Spawned | null = null;
  let browser: Browser | null = null;
  try {
    gw = await startHostedGateway();
    console.log(`bench/scroll: ${CARDS} sessions with a card each, ${CARDS - SETTINGS_PINS} of them pinned on boards…`);
    const { keys, boards, seconds: setupS } = await populate(gw);
    console.log(`  done in ${setupS.toFixed(1)} s (${boards} boards)`);
    const gatewayId = gatewayIdForUrl(gw.url);
    const pinned = keys.slice(0, SETTINGS_PINS).map((sessionKey) => gatewaySessionKey({ gatewayId, sessionKey }));
    host = spawnCli(["host"], gw, {
      prepareHome: (home) => writeFileSync(path.join(home, "settings.json"), JSON.stringify({ pinned }) + "\n"),
    });
    const hostUrl = await withTimeout(
      new Promise<string>((resolve) => {
        host!.onLine = (line) => {
          if (/^https?:\/\//.test(line)) resolve(line.trim());
        };
      }),
      60_000,
      "progress-desk host address",
    );
    browser = await launchChromium();
    const results: SurfaceResult[] = [];
    const failures: Record<string, string> = {};
    // Each surface's passes end by its deadline, so the part writes its figures before its hard stop.
    const deadlines = [t0 + 0.65 * HARD_LIMIT_MS, t0 + 0.93 * HARD_LIMIT_MS];
    for (const [i, surface] of SURFACES.entries()) {
      try {
        results.push(await measureSurface(browser, hostUrl, surface, CARDS, deadlines[i]!));
      } catch (err) {
        failures[surface.name] = err instanceof Error ? err.message.split("\n")[0]! : String(err);
        console.error(`bench/scroll: ${surface.name}: ${failures[surface.name]}`);
      }
    }
    const rows = targetRows(results, failures);
    recordTargets("scroll", rows);
    const seconds = (performance.now() - t0) / 1000;
    writeDocSection(DOC, START, END, section(rows, results, { setupS, boards }, startedAt, seconds));
    console.log(`bench/scroll: wrote its section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await browser?.close().catch(() => {});
    await host?.stop().catch(() => {});
    await gw?.dispose().catch(() => {});
  }
}

function section(
  rows: Omit<TargetRow, "part">[],
  results: SurfaceResult[],
  setup: { setupS: number; boards: number },
  startedAt: Date,
  seconds: number,
): string {
  const passRows = results.flatMap((r) =>
    r.passes.map((p) => {
      const sorted = [...p.intervals].sort((a, b) => a - b);
      const dropped = p.intervals.filter((x) => x > DROPPED_FACTOR * r.idleMs).length;
      return (
        `| ${r.surface.name} | ${p.pass} | ${p.side} | ${p.intervals.length} | ${ms((p.seconds * 1000) / Math.max(1, p.intervals.length), 1)} | ${ms(percentile(sorted, 50), 1)} | ${ms(percentile(sorted, 95), 1)} | ` +
        `${ms(sorted.at(-1) ?? Number.NaN, 1)} | ${dropped} | ${Math.round(p.scrolledPx)} / ${p.scrollHeight}${p.reachedBottom ? "" : " (cut)"} | ${ms(p.seconds, 1)} |`
      );
    }),
  );
  const perSurface = results.map(
    (r) =>
      `${r.surface.name}: ${r.cards.ours} cards in our page, ${r.cards.static} in the twin (${ms(r.twinBytes / 1e6, 1)} MB of HTML; ${r.text.ours} vs ${r.text.static} characters of text), ` +
      `all in the DOM and the DOM quiet ${ms(r.loadSeconds, 1)} s after the page was opened; idle frame interval ${ms(r.idleMs, 2)} ms`,
  );
  const lines = [
    START,
    "## Scrolling through many cards",
    "",
    generatedLine(
      "bench/scroll.ts",
      startedAt,
      seconds,
      "one real isolated OpenClaw Gateway on loopback, `progress-desk host`, headless Chromium through playwright-core",
    ),
    "",
    "| Target | Measured | Result |",
    "|---|---:|:---:|",
    ...rows.map((r) => `| ${r.target} | ${r.measured} | ${verdictCell(r.ok)} |`),
    "",
    "| Surface | Pass | Side | Frames | Mean (ms) | p50 (ms) | p95 (ms) | Max (ms) | Dropped | Scrolled / height (px) | Seconds |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...passRows,
    "",
    perSurface.map((x) => `- ${x}.`).join("\n"),
    "",
    `Method. ${CARDS} sessions created with \`sessions.create\`, each given a card with \`progressCard.put\`: a realistic 1–2 KB Markdown note ` +
      "(`bench/realistic-note.ts`: a list, a table, a code block, links) and a plan of 3–6 steps, some completed, then one in progress or none (paused), the rest pending, never all completed " +
      `(the dashboard hides finished cards). The dashboard shows pinned cards only and Settings keep at most 200 pins, so the first ${SETTINGS_PINS} are pinned in the settings file the host starts with ` +
      `and the other ${CARDS - SETTINGS_PINS} as progress widgets on ${setup.boards} Gateway boards (\`board.widget.put\`, ${WIDGETS_PER_BOARD} a board; the Gateway allows 48). ` +
      `All of it through the Gateway before anything is timed (${ms(setup.setupS, 1)} s). ` +
      "`progress-desk host` (the built CLI) serves both pages; each page is opened in a fresh context (popover 400×900, dashboard 1200×900, reduced motion) and waited on " +
      `until every card is in its DOM and no DOM mutation happened for ${QUIET_MS / 1000} s. ` +
      "After one uncounted fling down the page (so a card drawn only as it nears the screen is drawn), its **static twin** is the page's rendered DOM with every script, stylesheet link and `<style>` removed and the rules of every stylesheet inlined in one `<style>` " +
      "(the same cascade, no script), served by a static loopback server and opened in a fresh context of the same browser at the same viewport. " +
      `Each pass is a fling from the top to the bottom of the page's scrolling element: \`scrollTop\` moves ${SURFACES.map((s) => `${s.stepPx} px (${s.name})`).join(" / ")} in every ` +
      "`requestAnimationFrame` callback, and the frame times are the intervals between consecutive rAF timestamps, so they include whatever style, layout, paint and script work " +
      `each frame costs on the page's main thread. That fling (continued from where it stopped, should its time limit end it before the bottom, so that every card is drawn) and one on the twin are warm-ups, not counted; then ${PASSES} passes per side and surface, alternating ours and static with the side going first alternating. ` +
      `A frame is **dropped** when its interval exceeds ${DROPPED_FACTOR}× the idle frame interval (the median of ${IDLE_FRAMES} rAF intervals on each page with nothing scrolling). ` +
      "rAF timestamps fall on frame boundaries, so frame times come in steps of the frame interval and a p95 moves by whole steps; the mean (pass time over frames) is the finer view. " +
      "Figures pool every pass of a side; the dropped-frame ratio adds 1 on both sides so a static twin with none still gives a finite ratio. " +
      "Whatever the page does to keep off-screen cards light is measured as it is; the twin copies the DOM as it was after that first fling, and its text must equal the page's text taken in the same task as the copy (else the rows are a MISS).",
    END,
  ];
  return lines.join("\n");
}

runBounded("bench/scroll", main, HARD_LIMIT_MS, "the Gateway, host and browser stop when this process exits");
