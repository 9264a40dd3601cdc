// Keeps the card history in one small JSON file in the data folder, beside the settings
// (`card-history.json`). Written at most once a second, atomically (a temporary file then
// a rename), so a crash leaves the old file or the new one, never half of one. A damaged
// file is set aside (kept for a look), reported in one clear sentence, and a new history
// starts; a damaged entry loses only itself. Nothing here ever leaves the machine.
import { readFileSync, renameSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { CardHistory, type CardHistoryData, type HistoryRecord } from "../../common/card-history.ts";

export const HISTORY_FILE_NAME = "card-history.json";
const VERSION = 1;
/** At most one write per this many ms. */
export const MIN_WRITE_INTERVAL_MS = 1000;

export function historyPath(dataDir: string): string {
  return join(dataDir, HISTORY_FILE_NAME);
}

export type LoadedHistory = { histories: CardHistoryData[]; problem: string | null };

/** Reads the file; a missing file is an empty history, a damaged one is set aside and reported. */
export function loadHistoryFile(path: string): LoadedHistory {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { histories: [], problem: null };
    return { histories: [], problem: `The card history (${path}) could not be read (${(err as Error).message}); timing starts afresh.` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return setAside(path, `it is not valid JSON (${(err as Error).message})`);
  }
  const d = doc as { version?: unknown; histories?: unknown };
  if (!d || typeof d !== "object" || d.version !== VERSION || !Array.isArray(d.histories)) {
    return setAside(path, `it is not a version ${VERSION} card history`);
  }
  const histories: CardHistoryData[] = [];
  let dropped = 0;
  for (const raw of d.histories) {
    const h = parseHistory(raw);
    if (h) histories.push(h);
    else dropped += 1;
  }
  const what = dropped === 1 ? "1 damaged entry; it was" : `${dropped} damaged entries; they were`;
  const problem = dropped > 0 ? `The card history (${path}) had ${what} left out, the rest kept.` : null;
  return { histories, problem };
}

function setAside(path: string, why: string): LoadedHistory {
  const aside = `${path}.damaged`;
  try {
    renameSync(path, aside);
    return { histories: [], problem: `The card history (${path}) is damaged: ${why}. It was kept as ${aside}; timing starts afresh.` };
  } catch (err) {
    const cause = (err as Error).message;
    return {
      histories: [],
      problem: `The card history (${path}) is damaged: ${why}, and could not be set aside (${cause}); timing starts afresh.`,
    };
  }
}

const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
const isNullableTime = (v: unknown): v is number | null => v === null || isTime(v);

function parseHistory(raw: unknown): CardHistoryData | null {
  const h = raw as Record<string, unknown>;
  if (!h || typeof h !== "object") return null;
  if (typeof h.gatewayId !== "string" || typeof h.sessionKey !== "string") return null;
  if (!(h.agentId === null || typeof h.agentId === "string") || typeof h.fromStart !== "boolean") return null;
  if (!isNullableTime(h.endedAt) || !isNullableTime(h.unwatchedSince) || !Array.isArray(h.records)) return null;
  const records: HistoryRecord[] = [];
  for (const r of h.records as Record<string, unknown>[]) {
    if (!r || typeof r !== "object" || !isTime(r.at) || !Number.isInteger(r.revision)) return null;
    if (typeof r.statuses !== "string" || !/^[pic]*$/.test(r.statuses)) return null;
    const rec: HistoryRecord = { at: r.at, revision: r.revision as number, statuses: r.statuses };
    if (r.steps !== undefined) {
      if (!Array.isArray(r.steps) || !r.steps.every((s) => typeof s === "string")) return null;
      rec.steps = r.steps as string[];
    }
    if (r.gapFrom !== undefined) {
      if (!isNullableTime(r.gapFrom)) return null;
      rec.gapFrom = r.gapFrom;
    }
    records.push(rec);
  }
  if (!records[0]?.steps) return null;
  const agentId = h.agentId as string | null;
  return {
    gatewayId: h.gatewayId,
    sessionKey: h.sessionKey,
    agentId,
    fromStart: h.fromStart,
    endedAt: h.endedAt,
    unwatchedSince: h.unwatchedSince,
    records,
  };
}

/** Writes `doc` atomically: a temporary file beside it, then a rename over it. */
export function writeHistoryFile(path: string, histories: CardHistoryData[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ version: VERSION, histories }) + "\n", { mode: 0o600 });
  renameSync(tmp, path);
}

export type PersistedHistoryOptions = {
  warn?: (message: string) => void;
  /** Runs `fn` after `ms`, returns its cancel (default: an unref'd setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
  now?: () => number;
  /** false: read the file but never write it (a second process such as `watch` must not overwrite the app's). */
  write?: boolean;
};

export type PersistedHistory = {
  history: CardHistory;
  /** Writes what is pending now (on quit). */
  flush(): void;
  /** How many times the file was written (tests, to see the once-a-second limit). */
  readonly writes: number;
};

/** A CardHistory loaded from `path` and saved back to it, throttled to one write a second. */
export function openHistoryFile(path: string, opts: PersistedHistoryOptions = {}): PersistedHistory {
  const warn = opts.warn ?? ((m: string) => process.emitWarning(`Progress Desk: ${m}`));
  const now = opts.now ?? Date.now;
  const schedule =
    opts.schedule ??
    ((fn: () => void, ms: number) => {
      const t = setTimeout(fn, ms);
      t.unref?.();
      return () => clearTimeout(t);
    });
  const loaded = loadHistoryFile(path);
  if (loaded.problem) warn(loaded.problem);
  let dirty = false;
  let lastWrite = -Infinity;
  let cancel: (() => void) | null = null;
  let writes = 0;
  const write = (): void => {
    cancel = null;
    if (!dirty || opts.write === false) return;
    dirty = false;
    lastWrite = now();
    try {
      writeHistoryFile(path, history.data());
      writes += 1;
    } catch (err) {
      warn(`the card history could not be saved (${(err as Error).message}); it is kept in memory and saved again with the next change.`);
    }
  };
  const history: CardHistory = new CardHistory(loaded.histories, {
    onChange: () => {
      dirty = true;
      if (cancel) return;
      cancel = schedule(write, Math.max(0, lastWrite + MIN_WRITE_INTERVAL_MS - now()));
    },
  });
  return {
    history,
    flush() {
      cancel?.();
      write();
    },
    get writes() {
      return writes;
    },
  };
}
