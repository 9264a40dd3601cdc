// The cards of one Gateway (C2–C5, G3, G4, P4). The Gateway's saved card is the only truth: a
// change event is a hint to read, and no reply replaces a newer revision. A hint follows one
// path through this file: `onCardChanged` → the read scheduler (when the read goes out) →
// `read` → `applyRead` (the card state) → `emitSlot`. The roster (RosterSync) lists sessions
// and asks for reads the same way.
import { deriveCard, readCard, sameDerived } from "../../../common/card.ts";
import { ReadScheduler, type ReadLimits, type ReadStats, type Schedule } from "./read-scheduler.ts";
import { RosterSync, type CardsKnown } from "./roster-sync.ts";
import { shortKeyTitle } from "../../../common/sessions.ts";
import type { CardEntry, ConnectionState, DeskChange, ProgressCard, RefreshState, SessionInfo } from "../../../common/model.ts";
import { CardSlots, clearRefreshTimer, DEFAULT_MAX_SESSIONS, MAX_SESSION_KEY_LENGTH, publicEntry, readFailure } from "./card-slots.ts";
import { readTargetOf, type ReadTarget, type Slot } from "./card-slots.ts";
import { fallbackLogger, type Logger } from "../logger.ts";

/** What the store needs from a connection; tests inject a fake transport. */
export type Transport = {
  request<T>(method: string, params: unknown, opts?: { timeoutMs?: number | null }): Promise<T>;
  hasCapability(name: string): boolean;
};

export type CardStoreOptions = ReadLimits & {
  gatewayId: string;
  transport: Transport;
  emit: (change: DeskChange) => void;
  now?: () => number;
  /** Sessions that change events may add (see DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** Extra `sessions.subscribe`/`sessions.list` params for the roster (`limit` sets the page size). */
  subscribeParams?: Record<string, unknown>;
  /** Called when a connection's (or a gap's) roster was listed to the end and each card on it read once. */
  onCardsKnown?: (info: CardsKnown) => void;
  /** Every timer of the store and its reads (default: setTimeout, never keeping the process alive); tests pass a manual one. */
  schedule?: Schedule;
  logger?: Logger;
};

/** Timers that never keep a process alive by themselves: the Gateway's socket does. */
const unrefSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export class CardStore {
  private readonly opts: CardStoreOptions;
  private readonly log: Logger;
  private readonly schedule: Schedule;
  private readonly slots: CardSlots;
  private connected = false;
  /** When each read goes out: queues, budgets, pacing a busy Gateway. */
  private readonly reads: ReadScheduler<Slot>;
  /** The session list and when it is listed. */
  private readonly roster: RosterSync<Slot>;

  constructor(opts: CardStoreOptions) {
    this.opts = opts;
    this.log = opts.logger ?? fallbackLogger();
    this.schedule = opts.schedule ?? unrefSchedule;
    const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.slots = new CardSlots({
      gatewayId: opts.gatewayId,
      maxSessions,
      titleOf: (key) => this.roster.session(key)?.title ?? shortKeyTitle(key),
      connected: () => this.connected,
      log: this.log,
    });
    this.reads = new ReadScheduler<Slot>({
      ...opts,
      schedule: this.schedule,
      open: () => this.connected,
      start: (slot) => void this.read(slot),
    });
    this.roster = new RosterSync<Slot>({
      ...opts,
      request: (method, params) => opts.transport.request<unknown>(method, params),
      maxSessions,
      connected: () => this.connected,
      readsSoFar: () => this.reads.stats.reads,
      slots: this.slots,
      requestRead: (slot, roster) => this.reads.request(slot, roster ? { roster: true } : {}),
      sessionChanged: (row) => this.sessionChanged(row),
      emitSessions: (sessions) => opts.emit({ type: "sessions", gatewayId: opts.gatewayId, sessions }),
      log: this.log,
    });
  }

  /** Counts for tests, benchmarks and diagnostics (read-only); `droppedHints`: hints for new sessions past the cap. */
  get stats(): Readonly<ReadStats & { droppedHints: number; lastCardsKnown: CardsKnown | null }> {
    return Object.freeze({ ...this.reads.stats, droppedHints: this.slots.droppedHints, lastCardsKnown: this.roster.lastCardsKnown });
  }

  /** Whether change-driven reads are paced now because the Gateway is busy (not in `stats`: asking moves the gauge's clock). */
  get gatewayBusy(): boolean {
    return this.reads.gatewayBusy;
  }

  /** Starts a new observation of `stats.peakReadsInFlight` (e.g. just before a reconnect). */
  resetReadPeak(): void {
    this.reads.resetReadPeak();
  }

  entries(): CardEntry[] {
    return this.slots.entries();
  }

  entry(sessionKey: string, agentId: string | null = null): CardEntry | null {
    const slot = this.slots.get(sessionKey, agentId);
    return slot ? publicEntry(slot) : null;
  }

  sessionList(): SessionInfo[] {
    return this.roster.sessionList();
  }

  /** A fresh connection: subscribe, list the whole roster page by page, and read every card (C4, G3). */
  async onReady(): Promise<void> {
    this.connected = true;
    this.reads.connected(this.slots.values());
    await this.roster.connected();
  }

  /** Events were dropped: the subscription still lives, but everything is re-read. */
  async onGap(): Promise<void> {
    await this.roster.gap();
  }

  onConnectionState(state: ConnectionState): void {
    if (state.state === "connected") return;
    const wasConnected = this.connected;
    this.connected = false;
    this.roster.disconnected();
    this.reads.disconnected(this.slots.values());
    if (wasConnected) for (const slot of this.slots.markOffline()) this.emitSlot(slot);
  }

  // ——— events: a change hint, read top-down ———

  onEvent(event: string, payload: unknown): void {
    if (event === "progressCard.changed") this.onCardChanged(payload);
    else if (event === "sessions.changed") this.roster.onSessionsChanged(payload, MAX_SESSION_KEY_LENGTH);
  }

  private onCardChanged(payload: unknown): void {
    const p = (payload ?? {}) as { sessionKey?: unknown; revision?: unknown };
    if (typeof p.sessionKey !== "string" || p.sessionKey === "" || p.sessionKey.length > MAX_SESSION_KEY_LENGTH) return;
    const revision = typeof p.revision === "number" ? p.revision : null;
    this.reads.noteHint(p.sessionKey);
    for (const slot of this.slots.forEvent(p.sessionKey)) {
      // Skip a hint for the revision we hold; a null (clear/reset) is always read again (§4.4).
      // Events arrive in order, so a lower revision than the one held means the card was
      // reset (an unconditional clear or a session reset restarts revisions at 1): read it.
      if (revision !== null && slot.card && slot.card.revision === revision && !slot.hidden) continue;
      this.reads.request(slot, { hint: revision });
    }
  }

  /** The scheduler starts this when the read of `slot` may go out. */

  private async read(slot: Slot): Promise<void> {
    this.reads.began(slot);
    const round = this.roster.roundOf(slot);
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
        const reply = await this.reads.timed(
          () => this.opts.transport.request<{ card?: unknown }>("progressCard.get", target),
          round !== null,
        );
        this.applyRead(slot, reply?.card ?? null, epoch);
      } catch (err) {
        this.applyReadError(slot, err);
      }
    } finally {
      this.reads.ended(slot);
      if (round) this.roster.readReturned(round, slot);
    }
  }

  private applyRead(slot: Slot, value: unknown, epoch: number): void {
    // A reply that lands after the connection dropped must not show the card as live while
    // offline (G3); the reconnect re-reads everything.
    if (!this.connected) return;
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
      this.reads.readAgainAfter(slot);
      return;
    }
    slot.hidden = false;
    slot.error = null;
    slot.updateRequired = false;
    slot.freshness = "live";
    slot.confirmedAt = this.now();
    this.setCard(slot, card, true);
    this.log.debug("card read", { sessionKey: slot.sessionKey, agentId: slot.agentId, revision: card?.revision ?? null });
    this.emitSlot(slot);
    this.reads.returned(slot, card?.revision ?? null);
  }

  /**
   * Sets the shown card. Reads of one session are serialized, so a read is the Gateway's
   * latest state and always applies (an unconditional clear or a session reset restarts
   * revisions at 1 — seen on 2026.9.6 — so a lower revision from a read is a new card).
   * Anything else (a write reply) only moves forward, and a null from it must be confirmed by a read.
   */
  private setCard(slot: Slot, card: ProgressCard | null, fromRead: boolean): boolean {
    if (!fromRead && (!card || (slot.card && card.revision <= slot.card.revision))) return false;
    slot.card = card;
    this.rederive(slot);
    if (card && slot.refresh && slot.refresh.status !== "failed" && card.revision > slot.refresh.baseline) {
      // A2: a newer saved card confirms the refresh.
      clearRefreshTimer(slot);
      slot.refresh = null;
    }
    return true;
  }

  private applyReadError(slot: Slot, err: unknown): void {
    if (!this.connected) return; // the reconnect re-reads everything
    const failure = readFailure(err);
    if (failure === "denied") {
      if (!slot.hidden) {
        slot.hidden = true;
        this.emitSlot(slot);
      }
    } else if (failure === "agent-gone") {
      if (this.slots.drop(slot)) this.emitSlot(slot);
    } else if (failure !== "not-connected") {
      slot.error = failure;
      if (slot.card) slot.freshness = "stale";
      this.emitSlot(slot);
      // Keep the last card and retry with backoff while connected (P4).
      this.reads.retryLater(slot, { soon: failure.code === "SESSION_MUTATION_AUTHORIZATION_CHANGED" });
    }
  }

  private rederive(slot: Slot): boolean {
    const next = slot.card ? deriveCard(slot.card, this.roster.session(slot.sessionKey) ?? null) : null;
    if (sameDerived(next, slot.derived)) return false;
    slot.derived = next;
    return true;
  }

  private emitSlot(slot: Slot): void {
    this.opts.emit({ type: "card", gatewayId: this.opts.gatewayId, entry: publicEntry(slot) });
  }

  /** A roster row changed: the card's title and derived state follow it. */
  private sessionChanged(row: SessionInfo): void {
    const slot = this.slots.get(row.key, null);
    if (!slot) return;
    const changedTitle = slot.title !== row.title;
    slot.title = row.title;
    if (this.rederive(slot) || changedTitle) this.emitSlot(slot);
  }

  /** Start tracking a card the person asked for (e.g. a bare key with an agent id). */
  track(sessionKey: string, agentId: string | null = null): CardEntry {
    const slot = this.slots.slotFor(sessionKey, agentId);
    if (this.connected) this.reads.request(slot);
    return publicEntry(slot);
  }

  /** What `progressCard.get` and writes name for a card (G4), or null when this Gateway cannot read it. */
  readTarget(entry: Pick<CardEntry, "sessionKey" | "agentId">): ReadTarget | null {
    return readTargetOf(entry, this.opts.transport);
  }

  // ——— used by actions ———

  /** Applies a card that a write returned (never a regression, never a bare null). */
  applyWriteReply(sessionKey: string, agentId: string | null, value: unknown): ProgressCard | null {
    const slot = this.slots.slotFor(sessionKey, agentId);
    const read = readCard(value);
    const card = read.ok ? read.value : null;
    if (card === null) {
      this.reads.request(slot);
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
    const slot = this.slots.slotFor(sessionKey, agentId);
    if (slot.card && slot.card.revision === revision) {
      slot.writeEpoch += 1;
      slot.card = null;
      slot.derived = null;
      clearRefreshTimer(slot);
      slot.refresh = null;
      this.emitSlot(slot);
    }
    this.reads.request(slot);
  }

  setRefresh(sessionKey: string, agentId: string | null, state: RefreshState | null, timeoutMs?: number): void {
    const slot = this.slots.slotFor(sessionKey, agentId);
    clearRefreshTimer(slot);
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
    this.reads.cancelAll(this.slots.values());
    for (const slot of this.slots.values()) clearRefreshTimer(slot);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}
