// The card state of one Gateway (C2–C5, G3, G4, P4). The Gateway's saved card is the only
// truth: a change event is a hint to read, reads are coalesced (one in flight per session,
// and a change meanwhile causes exactly one more), and no reply replaces a newer revision.
// Reads also share a per-Gateway budget per second: a Gateway that floods change hints
// gets its hints coalesced per session in the queue, never one read (and one UI change) each.
import { deriveCard, readCard, sameDerived } from "./card.ts";
import { errorFacts } from "./connection-state.ts";
import { TokenBucket } from "./token-bucket.ts";
import { mergeRunFields, parseSessionRow, sameSession, shortKeyTitle } from "./sessions.ts";
import { fallbackLogger, type Logger } from "./logger.ts";
import type { CardEntry, ConnectionState, DeskChange, ProgressCard, RefreshState, SessionInfo } from "./types.ts";

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
  /** Reads in flight across sessions at once (the per-session limit is always one). */
  maxConcurrentReads?: number;
  /**
   * Reads started per second across sessions (a burst of as many is allowed at once).
   * Beyond it sessions wait in the queue, where further hints for them coalesce.
   */
  maxReadsPerSecond?: number;
  /** Monotonic ms for the read budget (tests inject one; the card clock `now` may stand still). */
  monotonicNow?: () => number;
  /** Sessions that change events may add (see DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** First delay before retrying a failed read; doubles to 30 s. */
  readRetryMs?: number;
  subscribeParams?: Record<string, unknown>;
  /** Runs `fn` after `ms` and returns its cancel (default: setTimeout); tests pass a manual one. */
  schedule?: (fn: () => void, ms: number) => () => void;
  logger?: Logger;
};

type Slot = CardEntry & {
  /** queued: waiting for a free read; reading: a read is in flight. */
  phase: "idle" | "queued" | "reading";
  /** A change arrived during the read in flight: read exactly once more. */
  again: boolean;
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
/**
 * Far above what agents writing cards need (a resync of a full roster of 100 fits in the
 * burst), far below what a flooding Gateway could make us send and redraw.
 */
export const DEFAULT_MAX_READS_PER_SECOND = 200;
/**
 * Events may name sessions we have never seen, and each one costs a slot and a read: past
 * this many followed sessions, hints for new keys are dropped (the roster, boards and the
 * person can still add sessions). No glanceable desk shows this many cards.
 */
export const DEFAULT_MAX_SESSIONS = 5_000;
/** Real keys are short (`agent:<id>:<channel>:<uuid>`); a longer one in an event is not a key. */
export const MAX_SESSION_KEY_LENGTH = 1_024;
/** Sub-agents cannot write cards (gateway-protocol §4.7), so the roster leaves them out. */
const DEFAULT_ROSTER_PARAMS = { limit: 100, excludeSubagents: true, includeDerivedTitles: true };

export function slotKey(sessionKey: string, agentId: string | null): string {
  return sessionKey.startsWith("agent:") || !agentId ? sessionKey : `${sessionKey}\u0000${agentId}`;
}

export class CardStore {
  private readonly opts: CardStoreOptions;
  private readonly slots = new Map<string, Slot>();
  private readonly sessions = new Map<string, SessionInfo>();
  private connected = false;
  private readsInFlight = 0;
  private readonly waiting: Slot[] = [];
  private listInFlight = false;
  private listAgain = false;
  /** The read budget; `budgetTimer` wakes the queue when its next read is due. */
  private readonly readBudget: TokenBucket;
  private budgetTimer: ReturnType<typeof setTimeout> | null = null;
  /** Highest number of reads ever in flight for one session (must stay 1), for tests and bench. */
  maxInFlightPerSession = 0;
  readCount = 0;
  /** Highest number of sessions ever waiting for a free read (bounded by sessions, not events). */
  maxQueuedReads = 0;
  /** Hints for new sessions dropped at the session cap. */
  droppedHints = 0;

  /** Sessions waiting for a free read now. */
  get queuedReads(): number {
    return this.waiting.length;
  }

  private readonly log: Logger;
  constructor(opts: CardStoreOptions) {
    this.log = opts.logger ?? fallbackLogger();
    this.opts = opts;
    const rate = Math.max(1, opts.maxReadsPerSecond ?? DEFAULT_MAX_READS_PER_SECOND);
    this.readBudget = new TokenBucket(rate, rate, this.monotonicNow());
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
    if (this.readBudget.take(this.monotonicNow())) return true;
    if (!this.budgetTimer) {
      const due = this.readBudget.msUntilNext();
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

  /** A fresh connection: subscribe to the roster, then re-read every card (C4, G3). */
  async onReady(): Promise<void> {
    this.connected = true;
    for (const slot of this.slots.values()) slot.retryCount = 0;
    await this.resync(true);
  }

  /** Events were dropped: the subscription still lives, but everything is re-read. */
  async onGap(): Promise<void> {
    await this.relist();
  }

  onConnectionState(state: ConnectionState): void {
    if (state.state === "connected") return;
    const wasConnected = this.connected;
    this.connected = false;
    for (const slot of this.slots.values()) {
      clearTimer(slot, "retryTimer");
      slot.again = false;
      if (slot.phase === "queued") slot.phase = "idle";
      if (wasConnected && slot.card !== null && slot.freshness !== "offline") {
        slot.freshness = "offline";
        this.emitSlot(slot);
      }
    }
    this.waiting.length = 0;
    this.clearBudgetTimer();
  }

  /**
   * "List again", coalesced like reads: one list in flight, and hints meanwhile cause exactly
   * one more (a Gateway repeating keyless updates must not make us list for each).
   */
  private async relist(): Promise<void> {
    if (this.listInFlight) {
      this.listAgain = true;
      return;
    }
    this.listInFlight = true;
    try {
      do {
        this.listAgain = false;
        await this.resync(false);
      } while (this.listAgain && this.connected);
    } finally {
      this.listInFlight = false;
      this.listAgain = false;
    }
  }

  private async resync(subscribe: boolean): Promise<void> {
    try {
      const list = subscribe
        ? ((await this.opts.transport.request<{ list?: unknown }>("sessions.subscribe", this.opts.subscribeParams ?? DEFAULT_ROSTER_PARAMS)).list)
        : await this.opts.transport.request<unknown>("sessions.list", this.opts.subscribeParams ?? DEFAULT_ROSTER_PARAMS);
      this.applyRoster(list);
    } catch (err) {
      // Without a roster cards still load (titles fall back to keys); the next reconnect retries.
      if (!this.connected) return;
      this.log.warn("reading the session list failed", { error: errorFacts(err).message });
    }
    if (!this.connected) return;
    const keys = new Set<string>();
    for (const slot of this.slots.values()) {
      keys.add(slotKey(slot.sessionKey, slot.agentId));
      this.requestRead(slot);
    }
    for (const session of this.sessions.values()) {
      if (!keys.has(slotKey(session.key, null))) this.requestRead(this.slotFor(session.key, null));
    }
  }

  private applyRoster(list: unknown): void {
    const rows = Array.isArray((list as { sessions?: unknown })?.sessions) ? (list as { sessions: unknown[] }).sessions : [];
    for (const raw of rows) {
      const row = parseSessionRow(raw);
      if (row) this.upsertSession(row);
    }
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
    for (const slot of this.slotsForEvent(p.sessionKey)) {
      // Skip a hint for the revision we hold; a null (clear/reset) is always read again (§4.4).
      // Events arrive in order, so a lower revision than the one held means the card was
      // reset (an unconditional clear or a session reset restarts revisions at 1): read it.
      if (revision !== null && slot.card && slot.card.revision === revision && !slot.hidden) continue;
      this.requestRead(slot);
    }
  }

  private onSessionsChanged(payload: unknown): void {
    const p = (payload ?? {}) as Record<string, unknown>;
    if (typeof p.sessionKey === "string" && p.sessionKey.length > MAX_SESSION_KEY_LENGTH) return;
    const key = typeof p.sessionKey === "string" ? p.sessionKey : null;
    const reason = typeof p.reason === "string" ? p.reason : null;
    if (!key) {
      // A keyless `update` means "list again"; other keyless reasons are housekeeping.
      if (this.connected && (reason === "update" || reason === null)) void this.relist();
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
    const m = /^agent:([^:]+):(.+)$/.exec(sessionKey);
    if (m) {
      for (const key of [slotKey(m[2]!, m[1]!), slotKey(m[2]!, null)]) {
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

  private requestRead(slot: Slot): void {
    if (!this.connected) return;
    if (slot.phase === "queued") return; // the queued read has not started: it will see this change
    if (slot.phase === "reading") {
      slot.again = true;
      return;
    }
    clearTimer(slot, "retryTimer");
    // Behind others already waiting, or over a limit: wait in line (further hints coalesce there).
    if (this.waiting.length > 0 || this.readsInFlight >= (this.opts.maxConcurrentReads ?? 16) || !this.takeReadToken()) {
      slot.phase = "queued";
      this.waiting.push(slot);
      this.maxQueuedReads = Math.max(this.maxQueuedReads, this.waiting.length);
      return;
    }
    void this.read(slot);
  }

  private async read(slot: Slot): Promise<void> {
    if (slot.phase === "reading") {
      this.maxInFlightPerSession = Math.max(this.maxInFlightPerSession, 2); // never expected: recorded, not hidden
    }
    slot.phase = "reading";
    slot.again = false;
    this.readsInFlight += 1;
    this.readCount += 1;
    this.maxInFlightPerSession = Math.max(this.maxInFlightPerSession, 1);
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
        const reply = await this.opts.transport.request<{ card?: unknown }>("progressCard.get", target);
        this.applyRead(slot, reply?.card ?? null, epoch);
      } catch (err) {
        this.applyReadError(slot, err);
      }
    } finally {
      this.readsInFlight -= 1;
      slot.phase = "idle";
      if (slot.again && this.connected) this.requestRead(slot);
      this.drainWaiting();
    }
  }

  private drainWaiting(): void {
    while (this.connected && this.waiting.length > 0 && this.readsInFlight < (this.opts.maxConcurrentReads ?? 16)) {
      if (this.waiting[0]!.phase !== "queued") {
        this.waiting.shift();
        continue;
      }
      if (!this.takeReadToken()) return;
      void this.read(this.waiting.shift()!);
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
    const delay = code === "SESSION_MUTATION_AUTHORIZATION_CHANGED" ? 100 : Math.min(30_000, (this.opts.readRetryMs ?? 2000) * 2 ** slot.retryCount);
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
