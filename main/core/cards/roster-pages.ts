// The whole session roster of one Gateway, page by page (docs/gateway.md §5.2): the first
// page comes with `sessions.subscribe`, the rest from `sessions.list` with `limit`/`offset`,
// following `hasMore`/`nextOffset`. Rows arrive newest first (the Gateway sorts by
// `updatedAt`), and each page is handed on as soon as it arrives, so its cards can be read
// while the next page is still being listed.
import { errorFacts } from "../connection-state.ts";
import { parseSessionRow } from "../../../common/sessions.ts";
import type { SessionInfo } from "../../../common/model.ts";

/** Rows per page: small enough that the first cards are read early, large enough for few round trips. */
export const ROSTER_PAGE_SIZE = 100;
/**
 * Each later page starts this many rows before the previous one ended. A session removed
 * while we page shifts later rows up by one; without the overlap the row that slid across
 * the page boundary would be skipped. Rows seen twice are deduplicated by key.
 */
export const ROSTER_PAGE_OVERLAP = 4;
/** Sub-agents cannot write cards (docs/gateway.md §4.7), so the roster leaves them out. */
export const ROSTER_LIST_PARAMS = { excludeSubagents: true, includeDerivedTitles: true } as const;

export type RosterRequest = (method: "sessions.subscribe" | "sessions.list", params: Record<string, unknown>) => Promise<unknown>;

export type RosterPagesOptions = {
  request: RosterRequest;
  /** Subscribe with the first page (a fresh connection), or only list (a gap, a keyless update). */
  subscribe: boolean;
  /** Extra list params (tests, benchmarks); `limit` here sets the page size. */
  params?: Record<string, unknown>;
  /** Rows listed at most (a Gateway paging forever stops here). */
  maxRows: number;
  /** New rows of one page, newest first, each key once per listing. */
  onPage: (rows: SessionInfo[]) => void;
  /** False once the connection is gone: stop paging. */
  wanted: () => boolean;
};

export type RosterListing = {
  /** Every page was listed (hasMore went false); false when a request failed, the cap was hit or paging stopped. */
  complete: boolean;
  rows: number;
  pages: number;
  error: string | null;
};

type ListResult = { sessions?: unknown; hasMore?: unknown; nextOffset?: unknown };

export async function listRosterPages(opts: RosterPagesOptions): Promise<RosterListing> {
  const base = { limit: ROSTER_PAGE_SIZE, ...ROSTER_LIST_PARAMS, ...opts.params };
  const limit = typeof base.limit === "number" && base.limit > 0 ? base.limit : ROSTER_PAGE_SIZE;
  const overlap = Math.min(ROSTER_PAGE_OVERLAP, Math.floor(limit / 4));
  const seen = new Set<string>();
  let offset = 0;
  let pages = 0;
  for (;;) {
    let result: ListResult | null;
    try {
      if (pages === 0 && opts.subscribe) {
        const reply = (await opts.request("sessions.subscribe", base)) as { list?: unknown } | null;
        result = (reply?.list ?? null) as ListResult | null;
      } else {
        result = (await opts.request("sessions.list", offset > 0 ? { ...base, offset } : base)) as ListResult | null;
      }
    } catch (err) {
      return { complete: false, rows: seen.size, pages, error: errorFacts(err).message };
    }
    pages += 1;
    const raw = Array.isArray(result?.sessions) ? (result.sessions as unknown[]) : [];
    const rows: SessionInfo[] = [];
    for (const value of raw) {
      const row = parseSessionRow(value);
      if (!row || seen.has(row.key) || seen.size >= opts.maxRows) continue;
      seen.add(row.key);
      rows.push(row);
    }
    if (!opts.wanted()) return { complete: false, rows: seen.size, pages, error: null };
    opts.onPage(rows);
    if (result?.hasMore !== true) return { complete: true, rows: seen.size, pages, error: null };
    if (seen.size >= opts.maxRows) return { complete: false, rows: seen.size, pages, error: null };
    const end = typeof result.nextOffset === "number" && Number.isInteger(result.nextOffset) ? result.nextOffset : offset + raw.length;
    const next = Math.max(0, end - overlap);
    // A page that does not move the window forward would be asked for again and again.
    if (raw.length === 0 || next <= offset) return { complete: false, rows: seen.size, pages, error: null };
    offset = next;
  }
}
