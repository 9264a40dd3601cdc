// What bench/startup.ts (one Gateway) and bench/startup-multi.ts (three) share: filling Gateways with
// sessions and cards, pinning every card to the dashboard, the host's data folder prepared before it
// starts, and the timed sides (bare clients, `progress-desk host` with the popover or the dashboard).
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, Page } from "playwright-core";
import { connectBareClient, type BareClient } from "../test/harness/bare-client.ts";
import { gatewayIdForUrl } from "../main/core/discovery.ts";
import { silentLogger } from "../main/core/logger.ts";
import { jsonFileBackend, SettingsStore } from "../main/core/settings.ts";
import { CredentialVault, fileStorage } from "../main/core/vault.ts";
import { gatewaySessionKey } from "../common/keys.ts";
import { pagePath } from "../common/pages.ts";
import { SettingsDocumentSchema } from "../common/settings-schema.ts";
import { freshDataFolder, spawnCli, spawnWithToken, type Spawned } from "./cli-process.ts";
import { withTimeout, type HostedGateway } from "./gateway-process.ts";
import { blankPage, domQuiet } from "./plain-page.ts";
import { realisticNote } from "./realistic-note.ts";

// Callbacks passed to page.evaluate run in the page; the Node-side program has no DOM types.
declare const document: any;
declare const MutationObserver: any;
declare const requestAnimationFrame: (run: () => void) => number;

const SETUP_CONNECTIONS = 4;
const SETUP_IN_FLIGHT = 8; // requests in flight per setup connection
export const SETUP_METHOD = `${SETUP_CONNECTIONS} connections × ${SETUP_IN_FLIGHT} requests in flight`;
/** Settings.pinned holds at most this many cards (the schema's cap); the rest go on boards. */
export const PINNED_MAX = (SettingsDocumentSchema.properties.pinned as { maxItems?: number }).maxItems ?? 200;
/** Widgets per board: the Gateway takes at most 48 on one board. */
const WIDGETS_PER_BOARD = 40;

export type NoteKind = "one-line" | "realistic";
export type PageName = "popover" | "dashboard";
export type GatewayAccess = { url: string; token: string };

/** One Gateway filled for the benchmark: its sessions in age order and the ones holding a card. */
export type Filled = {
  gw: HostedGateway;
  gatewayId: string;
  sessionKeys: string[];
  /** Indexes (into sessionKeys) of the sessions with a card. */
  cardIndexes: number[];
  cardKeys: string[];
  /** Offset that makes every note differ across Gateways (no render cache hides one). */
  noteOffset: number;
};

/** One timed run of one side. */
export type Timed = {
  side: string;
  notes: NoteKind;
  ms: number | null;
  seen: number;
  /** The process's RSS with every card loaded (or at the timeout), and before the first card. */
  rssMb: number | null;
  rssBeforeMb?: number | null;
  heapMb: number | null;
  note: string;
};

export async function pool<T>(items: T[], workers: number, fn: (item: T, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (next < items.length) await fn(items[next++]!, w);
    }),
  );
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** The median time of one side with one kind of notes; NaN when none ran or one has no figure. */
export function sideMedian(runs: readonly Timed[], side: string, notes: NoteKind): number {
  const xs = runs.filter((x) => x.side === side && x.notes === notes);
  return xs.length && xs.every((x) => x.ms !== null) ? median(xs.map((x) => x.ms!)) : Number.NaN;
}

/** A run's line on the console, as it ends. */
export function logRun(notes: NoteKind, round: number, side: string, timed: Timed): void {
  const time = timed.ms === null ? "—" : `${timed.ms.toFixed(0)} ms`;
  console.log(`  ${notes} round ${round + 1} ${side}: ${time} (${timed.seen} cards${timed.note ? `; ${timed.note}` : ""})`);
}

/** The sides in round `r`'s order: each round starts one further along, so each side goes first in turn. */
export function rotated<T>(sides: T[], r: number): T[] {
  const k = r % sides.length;
  return [...sides.slice(k), ...sides.slice(0, k)];
}

/**
 * Up to `rounds` rounds, each begun only while the longest so far still fits before `deadline` (the
 * first always runs): a slow machine gets fewer rounds and still a figure, not a hard stop. Returns how many ran.
 */
export async function roundsWithin(rounds: number, deadline: number, round: (r: number) => Promise<void>): Promise<number> {
  let longest = 0;
  for (let r = 0; r < rounds; r++) {
    if (r > 0 && performance.now() + longest > deadline) return r;
    const t = performance.now();
    await round(r);
    longest = Math.max(longest, performance.now() - t);
  }
  return rounds;
}

async function withSetupClients<T>(gw: HostedGateway, fn: (clients: BareClient[]) => Promise<T>): Promise<T> {
  const clients: BareClient[] = [];
  try {
    for (let i = 0; i < SETUP_CONNECTIONS; i++) clients.push(await connectBareClient(gw));
    return await fn(clients);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

/** `sessions` sessions on `gw`, `cards` of them (spread evenly from the oldest to the newest) to hold a card; no card yet. */
export async function createSessions(gw: HostedGateway, sessions: number, cards: number, noteOffset = 0): Promise<Filled> {
  const sessionKeys: string[] = new Array(sessions);
  await withSetupClients(gw, async (clients) => {
    // In order of index as far as the pool allows: the index is the session's age rank.
    await pool(
      Array.from({ length: sessions }, (_, i) => i),
      SETUP_CONNECTIONS * SETUP_IN_FLIGHT,
      async (i, w) => {
        sessionKeys[i] = await clients[w % SETUP_CONNECTIONS]!.createSession();
      },
    );
  });
  const cardIndexes = Array.from({ length: cards }, (_, j) => Math.floor((j * sessions) / cards));
  return {
    gw,
    gatewayId: gatewayIdForUrl(gw.url),
    sessionKeys,
    cardIndexes,
    cardKeys: cardIndexes.map((i) => sessionKeys[i]!),
    noteOffset,
  };
}

function noteOf(kind: NoteKind, n: number): string {
  return kind === "realistic" ? realisticNote(n) : `Card ${n} of the start-up benchmark: paused since yesterday`;
}

/** Puts (or replaces) every card with notes of `kind`; the plan keeps each card unfinished, so the dashboard shows it. */
export async function putCards(f: Filled, kind: NoteKind): Promise<void> {
  await withSetupClients(f.gw, async (clients) => {
    await pool(f.cardIndexes, SETUP_CONNECTIONS * SETUP_IN_FLIGHT, async (i, w) => {
      await clients[w % SETUP_CONNECTIONS]!.put(f.sessionKeys[i]!, {
        markdown: noteOf(kind, f.noteOffset + i),
        plan: [
          { step: "Fetch sources", status: "completed" },
          { step: "Run the tests", status: i % 3 === 0 ? "completed" : "in_progress" },
          { step: "Write the report", status: "pending" },
        ],
      });
    });
  });
}

/**
 * Every card on the dashboard: the person's pins (Settings.pinned, at most `personPins` ≤ PINNED_MAX
 * across all Gateways, shared out evenly) and the rest as progress widgets on boards of card-less
 * sessions (WIDGETS_PER_BOARD a board), put through each Gateway as an agent's dashboard tool does.
 * Returns the pins for Settings.
 */
export async function pinEveryCard(
  filled: Filled[],
  personPins = PINNED_MAX,
): Promise<{ pinned: string[]; boards: number; widgets: number }> {
  const budget = Math.min(personPins, PINNED_MAX);
  const pinned: string[] = [];
  let boards = 0;
  let widgets = 0;
  for (const [g, f] of filled.entries()) {
    const share = Math.floor(budget / filled.length) + (g < budget % filled.length ? 1 : 0);
    const byPerson = f.cardKeys.slice(0, share);
    const onBoards = f.cardKeys.slice(share);
    pinned.push(...byPerson.map((sessionKey) => gatewaySessionKey({ gatewayId: f.gatewayId, sessionKey })));
    const withCard = new Set(f.cardKeys);
    const boardKeys = f.sessionKeys.filter((k) => !withCard.has(k));
    const puts = onBoards.map((target, j) => ({ board: boardKeys[Math.floor(j / WIDGETS_PER_BOARD)]!, target, name: `progress-${j}` }));
    if (Math.ceil(onBoards.length / WIDGETS_PER_BOARD) > boardKeys.length) throw new Error("not enough card-less sessions for the boards");
    await withSetupClients(f.gw, async (clients) => {
      // One writer per board: a board's widgets go in one after the other.
      const perBoard = Map.groupBy(puts, (p) => p.board);
      await pool([...perBoard.values()], SETUP_CONNECTIONS, async (list, w) => {
        for (const p of list)
          await clients[w % SETUP_CONNECTIONS]!.request("board.widget.put", {
            sessionKey: p.board,
            name: p.name,
            title: `Progress of ${p.name}`,
            content: { kind: "plugin", pluginKind: "session:progress", props: { sessionKey: p.target } },
          });
      });
      boards += perBoard.size;
    });
    widgets += puts.length;
  }
  return { pinned, boards, widgets };
}

/**
 * A data folder for `progress-desk host` written before it starts, through the desk's own settings
 * store: every Gateway saved with its token (the vault's credentials.json) and the pins.
 */
export async function prepareDataFolder(gateways: GatewayAccess[], pinned: string[]): Promise<string> {
  const home = freshDataFolder();
  const vault = await CredentialVault.open(fileStorage(path.join(home, "credentials.json")), silentLogger);
  const settings = new SettingsStore(jsonFileBackend(path.join(home, "settings.json"), { logger: silentLogger }), vault, silentLogger);
  const colors = ["#0a84ff", "#30d158", "#ff9f0a", "#bf5af2"];
  gateways.forEach((g, i) =>
    settings.saveGateway({ url: g.url, label: `Gateway ${i + 1}`, color: colors[i % colors.length]!, token: g.token }),
  );
  if (pinned.length > 0) settings.update({ pinned });
  await settings.flush();
  return home;
}

type BareDone = { at: number; cards: number; sessions: number; pages: number };

/**
 * bench/bare-start.ts once per Gateway, all spawned together: from the first spawn until the last
 * has read every card. Each must find every card of its Gateway, or it is no baseline.
 */
export async function timeBareClients(filled: Filled[], timeoutMs: number, notes: NoteKind): Promise<Timed> {
  const procs: Spawned[] = [];
  try {
    for (const f of filled) procs.push(spawnWithToken(path.join(import.meta.dirname, "bare-start.ts"), [f.gw.url], f.gw.token));
    const done = await withTimeout(
      Promise.all(
        procs.map(
          (proc) =>
            new Promise<BareDone>((resolve) => {
              proc.onLine = (line, at) => {
                const m = JSON.parse(line) as { type: string; cards: number; sessions: number; pages: number };
                if (m.type === "done") resolve({ at, ...m });
              };
            }),
        ),
      ),
      timeoutMs,
      "bare start-up client",
    );
    done.forEach((d, i) => {
      if (d.cards !== filled[i]!.cardKeys.length)
        throw new Error(`a bare client found ${d.cards} cards, not ${filled[i]!.cardKeys.length}`);
    });
    const at = Math.max(...done.map((d) => d.at));
    return {
      side: "bare",
      notes,
      ms: at - procs[0]!.spawnedAt,
      seen: done.reduce((n, d) => n + d.cards, 0),
      rssMb: null,
      heapMb: null,
      note: done.map((d) => `${d.sessions} sessions in ${d.pages} page${d.pages === 1 ? "" : "s"}`).join("; "),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

/**
 * Cards a page accounts for: distinct cards drawn with their title outside any group (`[data-card-key]`)
 * plus every popover group's `data-group-count` (its whole size, open or closed, so cards drawn inside an
 * open group are not counted twice). Runs in the page. The dashboard folds no card: its section
 * headers sit in no `[data-group]`.
 *
 * Without `wait`, the count now. With `wait`, a promise of the count in the first animation frame in
 * which it reaches `want`. It looks only in frames after the DOM changed: a MutationObserver asks for
 * the next frame when something changed, so the frame found is the one polling every frame would find.
 * Polling every frame (Playwright's `polling: "raf"`) kept the page producing a frame 60 times a
 * second for the benchmark's sake, and counting in each took the page's main thread (about a tenth of
 * its work at start-up): CPU beside the Gateway's that the bare client never pays.
 */
export function cardsInPage({ want, wait = false }: { want: number; wait?: boolean }): number | Promise<number> {
  const count = (): number => {
    const keys = new Set<string>();
    for (const el of document.querySelectorAll("[data-card-key]")) {
      if (el.closest("[data-group]")) continue;
      if (!el.querySelector(".title")?.textContent?.trim()) continue;
      keys.add(el.dataset.cardKey ?? "");
    }
    let grouped = 0;
    for (const el of document.querySelectorAll("[data-group] [data-group-count]")) {
      const n = Number(el.dataset.groupCount);
      if (Number.isInteger(n) && n > 0) grouped += n;
    }
    return keys.size + grouped;
  };
  if (!wait) return count();
  return new Promise<number>((resolve) => {
    let frameAsked = false;
    const inFrame = (): void => {
      frameAsked = false;
      const n = count();
      if (n < want) return;
      observer.disconnect();
      resolve(n);
    };
    const askFrame = (): void => {
      if (frameAsked) return;
      frameAsked = true;
      requestAnimationFrame(inFrame);
    };
    const observer = new MutationObserver(askFrame);
    observer.observe(document, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["data-card-key", "data-group", "data-group-count", "class"],
    });
    askFrame();
  });
}

/** The page's JS heap after a full GC (MB). */
async function heapAfterGcMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send("HeapProfiler.collectGarbage");
    const heap = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
    return heap.usedSize / (1024 * 1024);
  } finally {
    await cdp.detach().catch(() => {});
  }
}

const VIEWPORT: Record<PageName, { width: number; height: number }> = {
  popover: { width: 400, height: 900 },
  dashboard: { width: 1280, height: 900 },
};

/** `progress-desk host` on a prepared data folder until it prints its address; then `page` opened in a fresh context. */
async function startHostPage(
  home: string,
  pageName: PageName,
  browser: Browser,
  timeoutMs: number,
): Promise<{ proc: Spawned; page: Page; rssBefore: number | null }> {
  // The tab is made before the spawn, as the browser is launched before it: a window the app has
  // ready, not part of what is timed. Only loading the page is.
  const { page } = await blankPage(browser, VIEWPORT[pageName]);
  const proc = spawnCli(["host"], null, { home });
  let rssBefore: number | null = null;
  try {
    const url = await withTimeout(
      new Promise<string>((resolve) => {
        proc.onLine = (line) => {
          if (/^https?:\/\//.test(line)) {
            rssBefore = proc.rssMb(); // the host is up; no page has asked for anything yet
            resolve(line.trim());
          }
        };
      }),
      timeoutMs,
      "progress-desk host address",
    );
    // The host prints the popover's address; the dashboard is served beside it.
    const pageUrl = pageName === "popover" ? url : url.replace(pagePath("popover"), pagePath(pageName));
    await page.goto(pageUrl);
    return { proc, page, rssBefore };
  } catch (err) {
    await page
      .context()
      .close()
      .catch(() => {});
    await proc.stop();
    throw err;
  }
}

async function closeHostPage(proc: Spawned, page: Page | null): Promise<void> {
  await page
    ?.context()
    .close()
    .catch(() => {});
  await proc.stop();
}

/**
 * `progress-desk host` (its data folder prepared before the spawn: the Gateways, their tokens, the pins)
 * and `pageName` in Chromium, timed from the spawn to the first animation frame in which the page
 * accounts for `want` cards; then the page's heap after a GC.
 */
export async function timeHostPage(o: {
  gateways: GatewayAccess[];
  pinned: string[];
  pageName: PageName;
  browser: Browser;
  want: number;
  timeoutMs: number;
  notes: NoteKind;
}): Promise<Timed> {
  const home = await prepareDataFolder(o.gateways, o.pinned);
  const { proc, page, rssBefore } = await startHostPage(home, o.pageName, o.browser, o.timeoutMs);
  try {
    const left = Math.max(1000, o.timeoutMs - (performance.now() - proc.spawnedAt));
    let at: number | null = null;
    try {
      const counted = page.evaluate(cardsInPage, { want: o.want, wait: true });
      counted.catch(() => {}); // still pending when the page closes after a timeout
      await withTimeout(counted, left, "every card reachable");
      at = performance.now();
    } catch {
      // reported as a count below
    }
    const seen = Number(await page.evaluate(cardsInPage, { want: 0 }));
    const rss = proc.rssMb();
    // The heap of the page settled with its cards: just after a load it draws the cards near the screen
    // whole, and a reading taken during that draw counts garbage the next GC frees (up to 0.9 MB seen).
    await page.evaluate(domQuiet, { quietMs: 1000, limitMs: 10_000 });
    const heapMb = await heapAfterGcMb(page);
    const base = { side: o.pageName, notes: o.notes, seen, rssMb: rss, rssBeforeMb: rssBefore, heapMb };
    if (at === null) return { ...base, ms: null, note: `only ${seen} of ${o.want} cards after ${o.timeoutMs / 1000} s` };
    return { ...base, ms: at - proc.spawnedAt, note: "" };
  } finally {
    await closeHostPage(proc, page);
  }
}

/**
 * The page's heap with no card: the host on the same Gateways (their sessions made, no card put, nothing
 * pinned), the page showing its empty state with every Gateway connected, then a second to settle and a GC.
 */
export async function emptyPageHeapMb(o: {
  gateways: GatewayAccess[];
  pageName: PageName;
  browser: Browser;
  timeoutMs: number;
}): Promise<number> {
  const home = await prepareDataFolder(o.gateways, []);
  const { proc, page } = await startHostPage(home, o.pageName, o.browser, o.timeoutMs);
  try {
    await page.waitForFunction(() => document.querySelector(".empty") !== null && document.querySelector(".banner") === null, undefined, {
      timeout: o.timeoutMs,
    });
    await new Promise((r) => setTimeout(r, 1000));
    return await heapAfterGcMb(page);
  } finally {
    await closeHostPage(proc, page);
  }
}
