// The card state of one Gateway (C2–C5, G3, G4, P4). The Gateway's saved card is the only
// truth: a change event is a hint to read, reads are coalesced (one in flight per session,
// and a change meanwhile causes exactly one more), and no reply replaces a newer revision.
// Reads also share a per-Gateway budget per second: a Gateway that floods change hints
// gets its hints coalesced per session in the queue, never one read (and one UI change) each.
// The roster (every listed session, paged) is read once per connection outside that budget:
// it is bounded by the session cap, not by events, and a start-up must not wait on a rate.
// A Gateway in a storm of writes (many sessions changing at once, or slow replies amid many
// hints: GatewayLoad) gets far fewer reads still: a small budget and few in flight, hints coalescing per session meanwhile,
// because every read we add is throughput its agents lose (issue 11).
import { deriveCard, readCard, sameDerived } from "../../common/card.ts";
import { errorFacts } from "./connection-state.ts";
import { listRosterPages, type RosterListing } from "./roster-pages.ts";
import { TokenBucket } from "./token-bucket.ts";
import { GatewayLoad, type GatewayLoadOptions } from "./gateway-load.ts";
import { mergeRunFields, parseSessionRow, sameSession, shortKeyTitle } from "../../common/sessions.ts";
import type { CardEntry, ConnectionState, DeskChange, ProgressCard, RefreshState, SessionInfo } from "../../common/model.ts";
import { slotKey } from "../../common/keys.ts";
import { fallbackLogger, type Logger } from "./logger.ts";

export const AGENT_SCOPE_CAPABILITY = "progress-card-agent-scope-v1";

/** What the store needs from a connection; tests inject a fake transport. */
export type Transport = {
  request<T>(method: string, params: unknown, opts?: { timeoutMs?: number | null }): Promise<T>;
  hasCapability(name: string): boolean;
};

export type CardStoreOptions = {
  gatewayId: string;
  transport: Transport;
  emit: (change: DeskChange) => void;
  now?: () => number;
  /** Reads in flight across sessions at once (the per-session limit is always one); default DEFAULT_MAX_READS_IN_FLIGHT. */
  maxConcurrentReads?: number;
  /**
   * Reads started per second across sessions (a burst of as many is allowed at once).
   * Beyond it sessions wait in the queue, where further hints for them coalesce.
   */
  maxReadsPerSecond?: number;
  /**
   * While the Gateway is busy (see GatewayLoad): change-driven reads started per second and
   * in flight at once. Defaults DEFAULT_BUSY_READS_PER_SECOND and DEFAULT_BUSY_READS_IN_FLIGHT.
   */
  busyReadsPerSecond?: number;
  busyReadsInFlight?: number;
  /** When a Gateway counts as busy (tests and benchmarks tune it). */
  gatewayLoad?: Partial<GatewayLoadOptions>;
  /** Monotonic ms for timing read round trips (default performance.now; tests inject one). */
  roundTripClock?: () => number;
  /** Monotonic ms for the read budget (tests inject one; the card clock `now` may stand still). */
  monotonicNow?: () => number;
  /** Sessions that change events may add (see DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** First delay before retrying a failed read; doubles to 30 s. */
  readRetryMs?: number;
  /** Extra `sessions.subscribe`/`sessions.list` params for the roster (`limit` sets the page size). */
  subscribeParams?: Record<string, unknown>;
  /**
   * Called when a connection's (or a gap's) roster has been listed to the end and every
   * session on it read once: every card is known. For benchmarks and diagnostics.
   */
  onCardsKnown?: (info: CardsKnown) => void;
  /** Runs `fn` after `ms` and returns its cancel (default: setTimeout); tests pass a manual one. */
  schedule?: (fn: () => void, ms: number) => () => void;
  logger?: Logger;
};

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

type Slot = CardEntry & {
  /** queued: waiting for a free read; reading: a read is in flight. */
  phase: "idle" | "queued" | "reading";
  /** A change arrived during the read in flight: read exactly once more. */
  again: boolean;
  /**
   * Set while `again` is owed only to change hints naming revisions up to this one (in
   * order): a read that returns this revision or a newer one already saw them, so the
   * extra read is skipped. Null when anything else asked (a clear, a reset, a write).
   */
  againUpTo: number | null;
  /** Bumped when a write reply is applied, so a read that started earlier cannot undo it. */
  writeEpoch: number;
  /** Cancels the pending retry of a failed read. */
  retryTimer: (() => void) | null;
  retryCount: number;
  /** Cancels the pending refresh timeout. */
  refreshTimer: (() => void) | null;
};

export type ReadTarget = { sessionKey: string; agentId?: string };

const PARTICIPATION = "SESSION_PARTICIPATION_REQUIRED";
/** Reads in flight at once per Gateway: what a careful bare client uses, so we ask no more of the Gateway. */
export const DEFAULT_MAX_READS_IN_FLIGHT = 8;
/**
 * Far above what agents writing cards need, far below what a flooding Gateway could make
 * us send and redraw. Reads of the roster at connect do not draw on it.
 */
export const DEFAULT_MAX_READS_PER_SECOND = 200;
/**
 * A Gateway in a storm of writes: about one read in fifty puts at the
 * rates a loopback Gateway reaches (250–300 puts/s), each busy card still read every few
 * seconds, its latest revision always, and every read back at once when the storm ends.
 */
export const DEFAULT_BUSY_READS_PER_SECOND = 5;
export const DEFAULT_BUSY_READS_IN_FLIGHT = 1;
/**
 * Events may name sessions we have never seen, and each one costs a slot and a read: past
 * this many followed sessions, hints for new keys are dropped (the roster, boards and the
 * person can still add sessions). No glanceable desk shows this many cards.
 */
export const DEFAULT_MAX_SESSIONS = 5_000;
/** Real keys are short (`agent:<id>:<channel>:<uuid>`); a longer one in an event is not a key. */
export const MAX_SESSION_KEY_LENGTH = 1_024;

export class CardStore {
  private readonly opts: CardStoreOptions;
  private readonly slots = new Map<string, Slot>();
  private readonly sessions = new Map<string, SessionInfo>();
  private connected = false;
  /** Bumped at every disconnect, so work begun on an older connection can tell it is stale. */
  private connectionEpoch = 0;
  private readsInFlight = 0;
  /** Reads asked for by hints, retries and the person: wait for a free read and the budget. */
  private readonly waiting: Slot[] = [];
  /** Reads of the roster at connect: wait for a free read only, in listing order (newest first). */
  private readonly rosterWaiting: Slot[] = [];
  /** The listing under way after a connect or gap, until every card on it was read once. */
  private round: ReadRound | null = null;
  private listInFlight = false;
  /** A list asked for while one was in flight: "gap" (re-read all) wins over "update". */
  private listAgain: "gap" | "update" | null = null;
  /** The read budget; `budgetTimer` wakes the queue when its next read is due. */
  private readonly readBudget: TokenBucket;
  /** The smaller budget while the Gateway is busy. */
  private readonly busyBudget: TokenBucket;
  private readonly load: GatewayLoad;
  /** Times read round trips for the load gauge. */
  private readonly roundTripClock: () => number;
  private budgetTimer: ReturnType<typeof setTimeout> | null = null;
  /** Highest number of reads ever in flight for one session (must stay 1), for tests and bench. */
  maxInFlightPerSession = 0;
  readCount = 0;
  /** Reads started while the Gateway counted as busy. */
  busyReads = 0;
  /** Highest number of sessions ever waiting for a free read (bounded by sessions, not events). */
  maxQueuedReads = 0;
  /** Highest number of reads in flight at once across sessions (see resetReadPeak). */
  peakReadsInFlight = 0;
  /** Reads a change hint asked for during a read, skipped because that read already returned its revision. */
  skippedRereads = 0;
  /** The last roster whose cards were all read once (null before the first). */
  lastCardsKnown: CardsKnown | null = null;
  /** Hints for new sessions dropped at the session cap. */
  droppedHints = 0;

  /** Sessions waiting for a free read now. */
  get queuedReads(): number {
    return this.waiting.length + this.rosterWaiting.length;
  }

  /** Starts a new observation of `peakReadsInFlight` (e.g. just before a reconnect). */
  resetReadPeak(): void {
    this.peakReadsInFlight = this.readsInFlight;
  }

  private maxReadsInFlight(): number {
    return Math.max(1, this.opts.maxConcurrentReads ?? DEFAULT_MAX_READS_IN_FLIGHT);
  }

  private readonly log: Logger;
  constructor(opts: CardStoreOptions) {
    this.log = opts.logger ?? fallbackLogger();
    this.opts = opts;
    const rate = Math.max(1, opts.maxReadsPerSecond ?? DEFAULT_MAX_READS_PER_SECOND);
    this.readBudget = new TokenBucket(rate, rate, this.monotonicNow());
    const busyRate = Math.max(1, opts.busyReadsPerSecond ?? DEFAULT_BUSY_READS_PER_SECOND);
    this.busyBudget = new TokenBucket(busyRate, busyRate, this.monotonicNow());
    this.roundTripClock = opts.roundTripClock ?? (() => performance.now());
    this.load = new GatewayLoad(opts.gatewayLoad, this.roundTripClock);
  }

  /** Whether change-driven reads are paced now because the Gateway answers slowly. */
  get gatewayBusy(): boolean {
    return this.load.busy;
  }

  /** Spells of paced reads so far (each began with a read the busy budget paced). */
  busySpells = 0;
  private pacing = false;

  /** How many change-driven reads may be in flight now (the roster's own reads use maxReadsInFlight). */
  private maxHintReadsInFlight(): number {
    if (!this.load.busy) return this.maxReadsInFlight();
    return Math.min(this.maxReadsInFlight(), Math.max(1, this.opts.busyReadsInFlight ?? DEFAULT_BUSY_READS_IN_FLIGHT));
  }

  private schedule(fn: () => void, ms: number): () => void {
    if (this.opts.schedule) return this.opts.schedule(fn, ms);
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private monotonicNow(): number {
    return (this.opts.monotonicNow ?? performance.now.bind(performance))();
  }

  /** Takes one read from the budget, or arms a wake-up for when the next one is due. */
  private takeReadToken(): boolean {
    const now = this.monotonicNow();
    const busy = this.load.busy;
    if (busy !== this.pacing) {
      this.pacing = busy;
      if (busy) this.busySpells += 1;
    }
    const budget = busy ? this.busyBudget : this.readBudget;
    if (budget.take(now)) {
      if (busy) this.busyReads += 1;
      return true;
    }
    if (!this.budgetTimer) {
      const due = budget.msUntilNext();
      this.budgetTimer = setTimeout(() => {
        this.budgetTimer = null;
        this.drainWaiting();
      }, due);
      // A wake-up for queued reads never keeps a process alive by itself (the socket does).
      this.budgetTimer.unref?.();
    }
    return false;
  }

  private clearBudgetTimer(): void {
    if (this.budgetTimer) clearTimeout(this.budgetTimer);
    this.budgetTimer = null;
  }

  // ——— reading the state ———

  entries(): CardEntry[] {
    // Sessions with nothing to show stay out; a card that cannot be read says why, and a denied
    // session stays in as hidden, so a page opened later shows "no access" as a live one does (P3).
    return [...this.slots.values()].filter((s) => s.card !== null || s.error !== null || s.updateRequired || s.hidden).map(publicEntry);
  }

  entry(sessionKey: string, agentId: string | null = null): CardEntry | null {
    const slot = this.slots.get(slotKey(sessionKey, agentId));
    return slot ? publicEntry(slot) : null;
  }

  sessionList(): SessionInfo[] {
    return [...this.sessions.values()];
  }

  // ——— connection lifecycle ———

  /** A fresh connection: subscribe, list the whole roster page by page, and read every card (C4, G3). */
  async onReady(): Promise<void> {
    this.connected = true;
    this.load.reset();
    for (const slot of this.slots.values()) slot.retryCount = 0;
    await this.resync("connect");
  }

  /** Events were dropped: the subscription still lives, but everything is re-read. */
  async onGap(): Promise<void> {
    await this.relist("gap");
  }

  onConnectionState(state: ConnectionState): void {
    if (state.state === "connected") return;
    const wasConnected = this.connected;
    this.connected = false;
    this.connectionEpoch += 1;
    this.round = null;
    for (const slot of this.slots.values()) {
      clearTimer(slot, "retryTimer");
      slot.again = false;
      slot.againUpTo = null;
      if (slot.phase === "queued") slot.phase = "idle";
      if (wasConnected && slot.card !== null && slot.freshness !== "offline") {
        slot.freshness = "offline";
        this.emitSlot(slot);
      }
    }
    this.waiting.length = 0;
    this.rosterWaiting.length = 0;
    this.clearBudgetTimer();
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
      while (next && this.connected) {
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
    const epoch = this.connectionEpoch;
    const current = (): boolean => this.connected && this.connectionEpoch === epoch;
    const round: ReadRound | null = cause === "update" ? null : { cause, pending: new Set(), listing: null, readsAtStart: this.readCount };
    if (round) this.round = round;
    const asked = new Set<Slot>();
    const ask = (slot: Slot, roster: boolean): void => {
      if (asked.has(slot)) return;
      asked.add(slot);
      if (round === this.round && round) round.pending.add(slot);
      this.requestRead(slot, roster ? { roster: true } : {});
    };
    // The list is said after the first page (the newest rows, early) and once at the end: each
    // "sessions" change carries every row, so saying it per page would resend the roster again and again.
    let unsaid = 0;
    let pages = 0;
    const listing = await listRosterPages({
      request: (method, params) => this.opts.transport.request<unknown>(method, params),
      subscribe: cause === "connect",
      ...(this.opts.subscribeParams ? { params: this.opts.subscribeParams } : {}),
      maxRows: this.opts.maxSessions ?? DEFAULT_MAX_SESSIONS,
      wanted: current,
      onPage: (rows) => {
        for (const row of rows) this.upsertSession(row);
        pages += 1;
        unsaid += 1;
        if (pages === 1) {
          this.emitSessions();
          unsaid = 0;
        }
        for (const row of rows) {
          const known = this.slots.get(slotKey(row.key, null));
          if (cause === "update" && known && !known.hidden && !known.error) continue;
          // Only a connect reads outside the budget: gaps and updates can be repeated at will.
          ask(known ?? this.slotFor(row.key, null), cause === "connect");
        }
      },
    });
    if (!current()) return;
    if (pages === 0 || unsaid > 0) this.emitSessions();
    // Without a roster cards still load (titles fall back to keys); the next reconnect retries.
    if (listing.error) this.log.warn("reading the session list failed", { error: listing.error });
    if (round) {
      // Followed sessions the list did not name (tracked keys, hinted sessions): within the budget.
      for (const slot of [...this.slots.values()]) ask(slot, false);
      round.listing = listing;
      this.finishRound(round);
    }
  }

  /** Says "every card known" once the round's listing ended and each of its reads returned. */
  private finishRound(round: ReadRound): void {
    if (round !== this.round || !round.listing || round.pending.size > 0) return;
    this.round = null;
    const known: CardsKnown = {
      gatewayId: this.opts.gatewayId,
      cause: round.cause,
      sessions: round.listing.rows,
      pages: round.listing.pages,
      reads: this.readCount - round.readsAtStart,
      complete: round.listing.complete,
    };
    this.lastCardsKnown = known;
    this.opts.onCardsKnown?.(known);
  }

  private emitSessions(): void {
    this.opts.emit({ type: "sessions", gatewayId: this.opts.gatewayId, sessions: this.sessionList() });
  }

  private upsertSession(row: SessionInfo): boolean {
    const before = this.sessions.get(row.key);
    if (sameSession(before, row)) return false;
    this.sessions.set(row.key, row);
    const slot = this.slots.get(slotKey(row.key, null));
    if (slot) {
      const changedTitle = slot.title !== row.title;
      slot.title = row.title;
      if (this.rederive(slot) || changedTitle) this.emitSlot(slot);
    }
    return true;
  }

  // ——— events ———

  onEvent(event: string, payload: unknown): void {
    if (event === "progressCard.changed") this.onCardChanged(payload);
    else if (event === "sessions.changed") this.onSessionsChanged(payload);
  }

  private onCardChanged(payload: unknown): void {
    const p = (payload ?? {}) as { sessionKey?: unknown; revision?: unknown };
    if (typeof p.sessionKey !== "string" || p.sessionKey === "" || p.sessionKey.length > MAX_SESSION_KEY_LENGTH) return;
    const revision = typeof p.revision === "number" ? p.revision : null;
    this.load.noteHint(p.sessionKey);
    for (const slot of this.slotsForEvent(p.sessionKey)) {
      // Skip a hint for the revision we hold; a null (clear/reset) is always read again (§4.4).
      // Events arrive in order, so a lower revision than the one held means the card was
      // reset (an unconditional clear or a session reset restarts revisions at 1): read it.
      if (revision !== null && slot.card && slot.card.revision === revision && !slot.hidden) continue;
      this.requestRead(slot, { hint: revision });
    }
  }

  private onSessionsChanged(payload: unknown): void {
    const p = (payload ?? {}) as Record<string, unknown>;
    if (typeof p.sessionKey === "string" && p.sessionKey.length > MAX_SESSION_KEY_LENGTH) return;
    const key = typeof p.sessionKey === "string" ? p.sessionKey : null;
    const reason = typeof p.reason === "string" ? p.reason : null;
    if (!key) {
      // A keyless `update` means "list again"; other keyless reasons are housekeeping.
      if (this.connected && (reason === "update" || reason === null)) void this.relist("update");
      return;
    }
    if (reason === "delete") {
      const known = this.sessions.get(key);
      const gone = typeof p.sessionId === "string" ? p.sessionId : null;
      if (!gone || !known?.sessionId || known.sessionId === gone) this.sessions.delete(key);
    }
    const fullRow = parseSessionRow(p.session);
    // Rows for new keys obey the same cap as sessions (a flood of distinct rows is not a roster).
    const roomForRow = this.sessions.has(key) || this.sessions.size < (this.opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
    if (fullRow && reason !== "delete") {
      if (roomForRow) this.upsertSession({ ...mergeRunFields(fullRow, p), key });
    } else {
      const known = this.sessions.get(key);
      if (known && reason !== "delete") this.upsertSession(mergeRunFields(known, p));
    }
    const slot = this.slots.get(slotKey(key, null));
    // reset/delete drop the card and read again; a hidden card retries after any change for it.
    if (reason === "reset" || reason === "delete") {
      if (slot) this.requestRead(slot);
    } else if (slot?.hidden || (slot?.error && slot.freshness === "stale")) {
      this.requestRead(slot);
    } else if (!slot && this.connected && (reason === "create" || reason === "created")) {
      if (this.roomForNewSession()) this.requestRead(this.slotFor(key, null));
    }
  }

  // ——— slots ———

  private slotFor(sessionKey: string, agentId: string | null): Slot {
    const k = slotKey(sessionKey, agentId);
    let slot = this.slots.get(k);
    if (!slot) {
      slot = {
        gatewayId: this.opts.gatewayId,
        sessionKey,
        agentId: sessionKey.startsWith("agent:") ? null : agentId,
        title: this.sessions.get(sessionKey)?.title ?? shortKeyTitle(sessionKey),
        card: null,
        derived: null,
        freshness: this.connected ? "live" : "offline",
        confirmedAt: null,
        error: null,
        hidden: false,
        updateRequired: false,
        refresh: null,
        phase: "idle",
        again: false,
        againUpTo: null,
        writeEpoch: 0,
        retryTimer: null,
        retryCount: 0,
        refreshTimer: null,
      };
      this.slots.set(k, slot);
    }
    return slot;
  }

  /**
   * Every slot a hint may mean. Events name bare keys agent-qualified (`global` read as
   * agent X arrives as `agent:X:global`), which is also the key of a distinct session: a
   * slot held under either name is read again, never only the first one found (G4).
   */
  private slotsForEvent(sessionKey: string): Slot[] {
    const found: Slot[] = [];
    const direct = this.slots.get(sessionKey);
    if (direct) found.push(direct);
    const [, agentId, rest] = /^agent:([^:]+):(.+)$/.exec(sessionKey) ?? [];
    if (agentId !== undefined && rest !== undefined) {
      for (const key of [slotKey(rest, agentId), slotKey(rest, null)]) {
        const bare = this.slots.get(key);
        if (bare && !found.includes(bare)) found.push(bare);
      }
    }
    if (found.length > 0) return found;
    return this.roomForNewSession() ? [this.slotFor(sessionKey, null)] : [];
  }

  /** False (and counted, warned once) when events may not add another session. */
  private roomForNewSession(): boolean {
    const max = this.opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (this.slots.size < max) return true;
    if (this.droppedHints === 0) {
      const gateway = this.opts.gatewayId;
      this.log.warn(`${gateway} named more than ${max} sessions; change hints for further sessions are ignored.`);
    }
    this.droppedHints += 1;
    return false;
  }

  /** Start tracking a card the person asked for (e.g. a bare key with an agent id). */
  track(sessionKey: string, agentId: string | null = null): CardEntry {
    const slot = this.slotFor(sessionKey, agentId);
    if (this.connected) this.requestRead(slot);
    return publicEntry(slot);
  }

  /** G4: agentId only for bare keys and only where the Gateway has the capability. */
  readTarget(entry: Pick<CardEntry, "sessionKey" | "agentId">): ReadTarget | null {
    if (entry.sessionKey.startsWith("agent:") || entry.agentId === null) return { sessionKey: entry.sessionKey };
    if (!this.opts.transport.hasCapability(AGENT_SCOPE_CAPABILITY)) return null;
    return { sessionKey: entry.sessionKey, agentId: entry.agentId };
  }

  // ——— the read pipeline ———

  /**
   * Asks for a read of `slot`. `roster`: a read of the connect-time roster, which waits only
   * for a free read. `hint`: asked for by a change hint naming this revision (null: a clear).
   */
  private requestRead(slot: Slot, how: { roster?: boolean; hint?: number | null } = {}): void {
    if (!this.connected) return;
    if (slot.phase === "queued") return; // the queued read has not started: it will see this change
    if (slot.phase === "reading") {
      this.readAgain(slot, how.hint);
      return;
    }
    clearTimer(slot, "retryTimer");
    const full = this.readsInFlight >= (how.roster ? this.maxReadsInFlight() : this.maxHintReadsInFlight());
    // Behind others already waiting, or over a limit: wait in line (further hints coalesce there).
    if (how.roster ? full || this.rosterWaiting.length > 0 : this.waiting.length > 0 || full || !this.takeReadToken()) {
      slot.phase = "queued";
      (how.roster ? this.rosterWaiting : this.waiting).push(slot);
      this.maxQueuedReads = Math.max(this.maxQueuedReads, this.queuedReads);
      return;
    }
    void this.read(slot);
  }

  /** Something changed during the read in flight: read once more, unless only hints the read already covers asked. */
  private readAgain(slot: Slot, hint?: number | null): void {
    const byHint = typeof hint === "number";
    if (!slot.again) slot.againUpTo = byHint ? hint : null;
    else if (slot.againUpTo !== null) slot.againUpTo = byHint && hint >= slot.againUpTo ? hint : null;
    slot.again = true;
  }

  private async read(slot: Slot): Promise<void> {
    if (slot.phase === "reading") {
      this.maxInFlightPerSession = Math.max(this.maxInFlightPerSession, 2); // never expected: recorded, not hidden
    }
    slot.phase = "reading";
    slot.again = false;
    slot.againUpTo = null;
    this.readsInFlight += 1;
    this.readCount += 1;
    this.peakReadsInFlight = Math.max(this.peakReadsInFlight, this.readsInFlight);
    this.maxInFlightPerSession = Math.max(this.maxInFlightPerSession, 1);
    // The round this read answers for (one started before the round does not count).
    const round = this.round?.pending.has(slot) ? this.round : null;
    try {
      const target = this.readTarget(slot);
      if (!target) {
        if (!slot.updateRequired) {
          slot.updateRequired = true;
          this.emitSlot(slot);
        }
        return;
      }
      const epoch = slot.writeEpoch;
      try {
        const sentAt = this.roundTripClock();
        const reply = await this.opts.transport.request<{ card?: unknown }>("progressCard.get", target);
        // The roster's reads go eight at a time, queueing behind each other: they would make any
        // Gateway look busy, so they only say how quick it can be. Reads asked for by changes
        // say how busy it is.
        const roundTrip = this.roundTripClock() - sentAt;
        if (round) this.load.noteQuickest(roundTrip);
        else this.load.sample(roundTrip);
        this.applyRead(slot, reply?.card ?? null, epoch);
      } catch (err) {
        this.applyReadError(slot, err);
      }
    } finally {
      this.readsInFlight -= 1;
      slot.phase = "idle";
      if (slot.again && this.connected) this.requestRead(slot);
      this.drainWaiting();
      if (round) {
        round.pending.delete(slot);
        this.finishRound(round);
      }
    }
  }

  private drainWaiting(): void {
    while (this.connected && this.readsInFlight < this.maxReadsInFlight()) {
      dropUnqueued(this.waiting);
      dropUnqueued(this.rosterWaiting);
      // Hints first (a live change is what the person is looking at), then the roster.
      const hintRoom = this.readsInFlight < this.maxHintReadsInFlight();
      const next =
        (this.waiting.length > 0 && hintRoom && this.takeReadToken() ? this.waiting.shift() : undefined) ?? this.rosterWaiting.shift();
      if (next === undefined) return;
      void this.read(next);
    }
  }

  private applyRead(slot: Slot, value: unknown, epoch: number): void {
    const read = readCard(value);
    if (!read.ok) {
      // C5: a malformed card is an error state for this card, never a crash.
      slot.error = { code: read.error.code, message: read.error.message };
      slot.freshness = "live";
      slot.hidden = false;
      this.emitSlot(slot);
      return;
    }
    const card = read.value;
    // A write reply (or our own confirmed clear) that landed while this read was in flight
    // is newer than what the read saw, unless the read shows a newer revision still: never
    // go back (C4), never bring a cleared card back for a moment; read again instead.
    const regresses = slot.card ? card === null || card.revision < slot.card.revision : card !== null;
    if (epoch !== slot.writeEpoch && regresses) {
      slot.again = true;
      slot.againUpTo = null;
      return;
    }
    slot.retryCount = 0;
    slot.hidden = false;
    slot.error = null;
    slot.updateRequired = false;
    slot.freshness = "live";
    slot.confirmedAt = this.now();
    this.setCard(slot, card, true);
    this.log.debug("card read", { sessionKey: slot.sessionKey, agentId: slot.agentId, revision: card?.revision ?? null });
    this.emitSlot(slot);
    // Hints that came during this read named revisions it already returned: no read is owed.
    // (A reset or clear restarting revisions always sends a null hint first, which is never skipped.)
    if (slot.again && slot.againUpTo !== null && card !== null && card.revision >= slot.againUpTo) {
      slot.again = false;
      slot.againUpTo = null;
      this.skippedRereads += 1;
    }
  }

  /**
   * Sets the shown card. Reads of one session are serialized, so a read is the Gateway's
   * latest state and always applies (an unconditional clear or a session reset restarts
   * revisions at 1 — seen on 2026.9.6 — so a lower revision from a read is a new card). Anything else (a write reply) only moves
   * forward, and a null from it must be confirmed by a read.
   */
  private setCard(slot: Slot, card: ProgressCard | null, fromRead: boolean): boolean {
    if (!fromRead && (!card || (slot.card && card.revision <= slot.card.revision))) return false;
    slot.card = card;
    this.rederive(slot);
    if (card && slot.refresh && slot.refresh.status !== "failed" && card.revision > slot.refresh.baseline) {
      // A2: a newer saved card confirms the refresh.
      clearTimer(slot, "refreshTimer");
      slot.refresh = null;
    }
    return true;
  }

  private applyReadError(slot: Slot, err: unknown): void {
    if (!this.connected) return; // the reconnect re-reads everything
    const facts = errorFacts(err);
    const code = facts.detailCode ?? facts.code ?? "ERROR";
    if (code === PARTICIPATION || /was not found/i.test(facts.message)) {
      if (!slot.hidden) {
        slot.hidden = true;
        this.emitSlot(slot);
      }
      return;
    }
    if (code === "UNKNOWN_AGENT_ID") {
      this.slots.delete(slotKey(slot.sessionKey, slot.agentId));
      if (slot.card) {
        slot.card = null;
        slot.derived = null;
        this.emitSlot(slot);
      }
      return;
    }
    if (code === "NOT_CONNECTED") return;
    slot.error = { code, message: facts.message };
    if (slot.card) slot.freshness = "stale";
    this.emitSlot(slot);
    // Keep the last card and retry with backoff while connected (P4).
    const delay =
      code === "SESSION_MUTATION_AUTHORIZATION_CHANGED" ? 100 : Math.min(30_000, (this.opts.readRetryMs ?? 2000) * 2 ** slot.retryCount);
    slot.retryCount += 1;
    clearTimer(slot, "retryTimer");
    slot.retryTimer = this.schedule(() => {
      slot.retryTimer = null;
      this.requestRead(slot);
    }, delay);
  }

  private rederive(slot: Slot): boolean {
    const next = slot.card ? deriveCard(slot.card, this.sessions.get(slot.sessionKey) ?? null) : null;
    if (sameDerived(next, slot.derived)) return false;
    slot.derived = next;
    return true;
  }

  private emitSlot(slot: Slot): void {
    this.opts.emit({ type: "card", gatewayId: this.opts.gatewayId, entry: publicEntry(slot) });
  }

  // ——— used by actions ———

  /** Applies a card that a write returned (never a regression, never a bare null). */
  applyWriteReply(sessionKey: string, agentId: string | null, value: unknown): ProgressCard | null {
    const slot = this.slotFor(sessionKey, agentId);
    const read = readCard(value);
    const card = read.ok ? read.value : null;
    if (card === null) {
      this.requestRead(slot);
      return null;
    }
    if (this.setCard(slot, card, false)) {
      slot.writeEpoch += 1;
      slot.freshness = "live";
      slot.confirmedAt = this.now();
      this.emitSlot(slot);
    }
    return card;
  }

  /** After our own clear of revision `revision`: hide it now, unless a newer card arrived. */
  applyCleared(sessionKey: string, agentId: string | null, revision: number): void {
    const slot = this.slotFor(sessionKey, agentId);
    if (slot.card && slot.card.revision === revision) {
      slot.writeEpoch += 1;
      slot.card = null;
      slot.derived = null;
      clearTimer(slot, "refreshTimer");
      slot.refresh = null;
      this.emitSlot(slot);
    }
    this.requestRead(slot);
  }

  setRefresh(sessionKey: string, agentId: string | null, state: RefreshState | null, timeoutMs?: number): void {
    const slot = this.slotFor(sessionKey, agentId);
    clearTimer(slot, "refreshTimer");
    if (state?.status === "pending" && slot.card && slot.card.revision > state.baseline) state = null;
    slot.refresh = state;
    if (state?.status === "pending" && timeoutMs !== undefined) {
      slot.refreshTimer = this.schedule(() => {
        slot.refreshTimer = null;
        if (slot.refresh?.status === "pending" && slot.refresh.key === state.key) {
          slot.refresh = { status: "timed_out", key: state.key, baseline: state.baseline, at: this.now() };
          this.emitSlot(slot);
        }
      }, timeoutMs);
    }
    this.emitSlot(slot);
  }

  dispose(): void {
    this.connected = false;
    this.clearBudgetTimer();
    for (const slot of this.slots.values()) {
      clearTimer(slot, "retryTimer");
      clearTimer(slot, "refreshTimer");
    }
  }
}

type ReadRound = {
  cause: "connect" | "gap";
  /** Slots asked for by this round whose read has not returned yet. */
  pending: Set<Slot>;
  /** Set when the listing has ended. */
  listing: RosterListing | null;
  readsAtStart: number;
};

/** Drops queue heads that are no longer waiting (e.g. dropped by a disconnect). */
function dropUnqueued(queue: Slot[]): void {
  while (queue.length > 0 && queue[0]?.phase !== "queued") queue.shift();
}

function clearTimer(slot: Slot, which: "retryTimer" | "refreshTimer"): void {
  slot[which]?.();
  slot[which] = null;
}

function publicEntry(slot: Slot): CardEntry {
  return {
    gatewayId: slot.gatewayId,
    sessionKey: slot.sessionKey,
    agentId: slot.agentId,
    title: slot.title,
    card: slot.card,
    derived: slot.derived,
    freshness: slot.freshness,
    confirmedAt: slot.confirmedAt,
    error: slot.error,
    hidden: slot.hidden,
    updateRequired: slot.updateRequired,
    refresh: slot.refresh,
  };
}
