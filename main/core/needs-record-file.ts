// Keeps the needs-you record (Y5) in `needs-record.json` in the data folder, beside the card
// history: only the person can read it (0600), written at most once a second and atomically
// (a temporary file, then a rename). A damaged file is set aside and a new record starts; a
// damaged entry loses only itself.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { NeedsRecord, outcomeText } from "./needs-record.ts";
import type { NeedKind, NeedOutcome, NeedRecord } from "../../common/model.ts";

export const NEEDS_RECORD_FILE_NAME = "needs-record.json";
const VERSION = 1;
const MIN_WRITE_INTERVAL_MS = 1000;
const KINDS: readonly NeedKind[] = ["exec", "plugin", "question", "waiting"];
const OUTCOMES: readonly NeedOutcome[] = ["allowed-once", "allowed-always", "denied", "expired", "answered", "cancelled", "gone"];

export function needsRecordPath(dataDir: string): string {
  return join(dataDir, NEEDS_RECORD_FILE_NAME);
}

const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
const isText = (v: unknown): v is string | null => v === null || typeof v === "string";

function parseRecord(raw: unknown): NeedRecord | null {
  const r = raw as Record<string, unknown>;
  if (!r || typeof r !== "object" || typeof r.gatewayId !== "string" || typeof r.id !== "string") return null;
  if (!KINDS.includes(r.kind as NeedKind) || !OUTCOMES.includes(r.outcome as NeedOutcome)) return null;
  if (!isText(r.sessionKey) || !isText(r.agentId) || !isText(r.summary) || !isText(r.resolvedBy)) return null;
  if (!isTime(r.arrivedAt) || !isTime(r.endedAt)) return null;
  const outcome = r.outcome as NeedOutcome;
  return {
    gatewayId: r.gatewayId,
    id: r.id,
    kind: r.kind as NeedKind,
    sessionKey: r.sessionKey,
    agentId: r.agentId,
    summary: r.summary,
    arrivedAt: r.arrivedAt,
    endedAt: r.endedAt,
    outcome,
    resolvedBy: r.resolvedBy,
    // Our own words, made again: a file is never trusted for what is shown.
    text: outcomeText(outcome, r.resolvedBy, r.kind as NeedKind),
  };
}

export function loadNeedsRecordFile(path: string): { records: NeedRecord[]; problem: string | null } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { records: [], problem: null };
    return { records: [], problem: `The needs-you record (${path}) could not be read (${(err as Error).message}); it starts afresh.` };
  }
  let doc: { version?: unknown; records?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    doc = {};
  }
  if (!doc || doc.version !== VERSION || !Array.isArray(doc.records)) {
    const aside = `${path}.damaged`;
    try {
      renameSync(path, aside);
    } catch {
      // Left where it is; the next write replaces it.
    }
    return { records: [], problem: `The needs-you record (${path}) is damaged; it was kept as ${aside} and a new one starts.` };
  }
  const records = doc.records.map(parseRecord).filter((r): r is NeedRecord => r !== null);
  const dropped = doc.records.length - records.length;
  return { records, problem: dropped > 0 ? `The needs-you record (${path}) had ${dropped} damaged entries; they were left out.` : null };
}

export function writeNeedsRecordFile(path: string, records: NeedRecord[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ version: VERSION, records }) + "\n", { mode: 0o600 });
  renameSync(tmp, path);
}

export type PersistedNeedsRecord = { record: NeedsRecord; flush(): void };

/** A NeedsRecord loaded from `path` and saved back to it at most once a second (`write: false`: read only, as `watch` is). */
export function openNeedsRecordFile(
  path: string,
  opts: { warn?: (m: string) => void; write?: boolean; now?: () => number } = {},
): PersistedNeedsRecord {
  const warn = opts.warn ?? ((m: string) => process.emitWarning(`Progress Desk: ${m}`));
  const now = opts.now ?? Date.now;
  const loaded = loadNeedsRecordFile(path);
  if (loaded.problem) warn(loaded.problem);
  let dirty = false;
  let lastWrite = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const write = (): void => {
    timer = null;
    if (!dirty || opts.write === false) return;
    dirty = false;
    lastWrite = now();
    try {
      writeNeedsRecordFile(path, record.list());
    } catch (err) {
      warn(`the needs-you record could not be saved (${(err as Error).message}); it is kept in memory.`);
    }
  };
  const record: NeedsRecord = new NeedsRecord(loaded.records, {
    onChange: () => {
      dirty = true;
      if (timer) return;
      timer = setTimeout(write, Math.max(0, lastWrite + MIN_WRITE_INTERVAL_MS - now()));
      timer.unref?.();
    },
  });
  return {
    record,
    flush() {
      if (timer) clearTimeout(timer);
      write();
    },
  };
}
