// The session roster of one Gateway and when it is listed (C4, G3). A fresh connection
// subscribes and lists every session page by page; a gap in the events lists again and re-reads
// every card; a keyless `sessions.changed` update lists again and reads only what is new to us
// or failed. Lists are coalesced like reads: one in flight, and asks meanwhile cause exactly one
// more. After a connect or a gap, "every card known" is said once the listing ended and each
// card it asked for was read once. Which read goes out when is the read scheduler's business.
import { listRosterPages, type RosterListing } from "./roster-pages.ts";
import { mergeRunFields, parseSessionRow, sameSession } from "../../../common/sessions.ts";
import type { CardEntry, SessionInfo } from "../../../common/model.ts";
import type { Logger } from "../logger.ts";

export type CardsKnown = {
  gatewayId: string;
  /** What listed the roster: a fresh connection or a gap in the events. */
  cause: "connect" | "gap";
  /** Sessions the roster listed. */
  sessions: number;
  pages: number;
  /** Reads made since the listing began (roster, hints and retries alike). */
  reads: number;
  /** False when the listing stopped early (a failed page, the session cap). */
  complete: boolean;
};

/** What the roster looks at on a followed card. */
export type RosterSlot = Pick<CardEntry, "hidden" | "error" | "freshness">;

/** The card store's side of the roster: its slots, its reads and its connection. */
export type RosterHost<S extends RosterSlot> = {
  gatewayId: string;
  request: (method: "sessions.subscribe" | "sessions.list", params: Record<string, unknown>) => Promise<unknown>;
  /** Extra `sessions.subscribe`/`sessions.list` params (`limit` sets the page size). */
  subscribeParams?: Record<string, unknown>;
  /** Rows kept at most (the session cap). */
  maxSessions: number;
  connected: () => boolean;
  /** Reads started so far, for `CardsKnown.reads`. */
  readsSoFar: () => number;
  /** The followed cards (a roster row names a session, no agent). */
  slots: {
    get(sessionKey: string, agentId: null): S | undefined;
    slotFor(sessionKey: string, agentId: null): S;
    values(): Iterable<S>;
    /** False when no further session may be followed (the cap). */
    roomForNewSession(): boolean;
  };
  /** `roster`: a read of the connect-time roster, outside the budget. */
  requestRead: (slot: S, roster: boolean) => void;
  /** A session row was added or changed: its card's title and derived state follow. */
  sessionChanged: (row: SessionInfo) => void;
  emitSessions: (sessions: SessionInfo[]) => void;
  onCardsKnown?: (info: CardsKnown) => void;
  log: Logger;
};

/** One listing after a connect or a gap, until every card on it was read once. */
export type ReadRound<S> = {
  cause: "connect" | "gap";
  /** Slots asked for by this round whose read has not returned yet. */
  pending: Set<S>;
  /** Set when the listing has ended. */
  listing: RosterListing | null;
  readsAtStart: number;
};

export class RosterSync<S extends RosterSlot> {
  private readonly host: RosterHost<S>;
  private readonly sessions = new Map<string, SessionInfo>();
  /** Bumped at every disconnect, so a listing begun on an older connection can tell it is stale. */
  private connectionEpoch = 0;
  private round: ReadRound<S> | null = null;
  private listInFlight = false;
  /** A list asked for while one was in flight: "gap" (re-read all) wins over "update". */
  private listAgain: "gap" | "update" | null = null;
  /** The last roster whose cards were all read once (null before the first). */
  lastCardsKnown: CardsKnown | null = null;

  constructor(host: RosterHost<S>) {
    this.host = host;
  }

  session(sessionKey: string): SessionInfo | undefined {
    return this.sessions.get(sessionKey);
  }

  sessionList(): SessionInfo[] {
    return [...this.sessions.values()];
  }

  /** A fresh connection: subscribe, list the whole roster page by page, and read every card. */
  async connected(): Promise<void> {
    await this.resync("connect");
  }

  /** Events were dropped: the subscription still lives, but everything is re-read. */
  async gap(): Promise<void> {
    await this.relist("gap");
  }

  disconnected(): void {
    this.connectionEpoch += 1;
    this.round = null;
  }

  /** The round a read of `slot` starting now answers for (one started before the round does not count). */
  roundOf(slot: S): ReadRound<S> | null {
    return this.round?.pending.has(slot) ? this.round : null;
  }

  /** A read the round asked for returned. */
  readReturned(round: ReadRound<S>, slot: S): void {
    round.pending.delete(slot);
    this.finishRound(round);
  }

  onSessionsChanged(payload: unknown, maxKeyLength: number): void {
    const p = (payload ?? {}) as Record<string, unknown>;
    if (typeof p.sessionKey === "string" && p.sessionKey.length > maxKeyLength) return;
    const key = typeof p.sessionKey === "string" ? p.sessionKey : null;
    const reason = typeof p.reason === "string" ? p.reason : null;
    if (!key) {
      // A keyless `update` means "list again"; other keyless reasons are housekeeping.
      if (this.host.connected() && (reason === "update" || reason === null)) void this.relist("update");
      return;
    }
    if (reason === "delete") {
      const known = this.sessions.get(key);
      const gone = typeof p.sessionId === "string" ? p.sessionId : null;
      if (!gone || !known?.sessionId || known.sessionId === gone) this.sessions.delete(key);
    }
    const fullRow = parseSessionRow(p.session);
    // Rows for new keys obey the same cap as sessions (a flood of distinct rows is not a roster).
    const roomForRow = this.sessions.has(key) || this.sessions.size < this.host.maxSessions;
    if (fullRow && reason !== "delete") {
      if (roomForRow) this.upsertSession({ ...mergeRunFields(fullRow, p), key });
    } else {
      const known = this.sessions.get(key);
      if (known && reason !== "delete") this.upsertSession(mergeRunFields(known, p));
    }
    const slot = this.host.slots.get(key, null);
    // reset/delete drop the card and read again; a hidden card retries after any change for it.
    if (reason === "reset" || reason === "delete") {
      if (slot) this.host.requestRead(slot, false);
    } else if (slot?.hidden || (slot?.error && slot.freshness === "stale")) {
      this.host.requestRead(slot, false);
    } else if (!slot && this.host.connected() && (reason === "create" || reason === "created")) {
      if (this.host.slots.roomForNewSession()) this.host.requestRead(this.host.slots.slotFor(key, null), false);
    }
  }

  /**
   * "List again", coalesced like reads: one list in flight, and hints meanwhile cause exactly
   * one more (a Gateway repeating keyless updates must not make us list for each).
   */
  private async relist(cause: "gap" | "update"): Promise<void> {
    if (this.listInFlight) {
      if (this.listAgain !== "gap") this.listAgain = cause;
      return;
    }
    this.listInFlight = true;
    try {
      let next: "gap" | "update" | null = cause;
      while (next && this.host.connected()) {
        this.listAgain = null;
        await this.resync(next);
        next = this.listAgain;
      }
    } finally {
      this.listInFlight = false;
      this.listAgain = null;
    }
  }

  /**
   * Lists the roster page by page and reads cards as each page arrives: after a connect or
   * a gap every card (listed ones in listing order, then any other followed session); after a
   * keyless update only sessions new to us and those whose last read failed or was denied.
   */
  private async resync(cause: "connect" | "gap" | "update"): Promise<void> {
    const host = this.host;
    const epoch = this.connectionEpoch;
    const current = (): boolean => host.connected() && this.connectionEpoch === epoch;
    const round: ReadRound<S> | null =
      cause === "update" ? null : { cause, pending: new Set(), listing: null, readsAtStart: host.readsSoFar() };
    if (round) this.round = round;
    const asked = new Set<S>();
    const ask = (slot: S, roster: boolean): void => {
      if (asked.has(slot)) return;
      asked.add(slot);
      if (round === this.round && round) round.pending.add(slot);
      host.requestRead(slot, roster);
    };
    // The list is said after the first page (the newest rows, early) and once at the end: each
    // "sessions" change carries every row, so saying it per page would resend the roster again and again.
    let unsaid = 0;
    let pages = 0;
    const listing = await listRosterPages({
      request: host.request,
      subscribe: cause === "connect",
      ...(host.subscribeParams ? { params: host.subscribeParams } : {}),
      maxRows: host.maxSessions,
      wanted: current,
      onPage: (rows) => {
        for (const row of rows) this.upsertSession(row);
        pages += 1;
        unsaid += 1;
        if (pages === 1) {
          host.emitSessions(this.sessionList());
          unsaid = 0;
        }
        for (const row of rows) {
          const known = host.slots.get(row.key, null);
          if (cause === "update" && known && !known.hidden && !known.error) continue;
          // Only a connect reads outside the budget: gaps and updates can be repeated at will.
          ask(known ?? host.slots.slotFor(row.key, null), cause === "connect");
        }
      },
    });
    if (!current()) return;
    if (pages === 0 || unsaid > 0) host.emitSessions(this.sessionList());
    // Without a roster cards still load (titles fall back to keys); the next reconnect retries.
    if (listing.error) host.log.warn("reading the session list failed", { error: listing.error });
    if (round) {
      // Followed sessions the list did not name (tracked keys, hinted sessions): within the budget.
      for (const slot of [...host.slots.values()]) ask(slot, false);
      round.listing = listing;
      this.finishRound(round);
    }
  }

  /** Says "every card known" once the round's listing ended and each of its reads returned. */
  private finishRound(round: ReadRound<S>): void {
    if (round !== this.round || !round.listing || round.pending.size > 0) return;
    this.round = null;
    const known: CardsKnown = {
      gatewayId: this.host.gatewayId,
      cause: round.cause,
      sessions: round.listing.rows,
      pages: round.listing.pages,
      reads: this.host.readsSoFar() - round.readsAtStart,
      complete: round.listing.complete,
    };
    this.lastCardsKnown = known;
    this.host.onCardsKnown?.(known);
  }

  private upsertSession(row: SessionInfo): void {
    if (sameSession(this.sessions.get(row.key), row)) return;
    this.sessions.set(row.key, row);
    this.host.sessionChanged(row);
  }
}
