// The core every surface uses: one connection and one card store per configured
// Gateway (G5, wired in desk-gateway.ts), a typed snapshot, and a change stream. No windows,
// no protocol details leak out: surfaces get cards that are already read, ordered and derived.
import { dismissCard, refreshCard } from "./actions.ts";
import { ActivityTracker } from "./activity/tracker.ts";
import type { ActivityOptions } from "./activity/options.ts";
import type { CardsKnown } from "./cards/roster-sync.ts";
import { CardHistory } from "../../common/card-history.ts";
import { deriveTiming } from "../../common/card-timing.ts";
import { DeskError, ERROR_CODES } from "../../common/errors.ts";
import { gatewayIdForUrl } from "./discovery.ts";
import { createDeskGateway, type DeskGateway, type DeskShared, type GatewayConfig, type GatewayDefaults } from "./desk-gateway.ts";
import { DeskNeeds } from "./desk-needs.ts";
import type {
  CardEntry,
  DeskChange,
  DeskSnapshot,
  DismissResult,
  GatewaySnapshot,
  NeedAnswer,
  NeedRecord,
  NeedRef,
  RefreshState,
  Unsubscribe,
} from "../../common/model.ts";
import { fallbackLogger, type Logger } from "./logger.ts";
import type { NeedsRecord } from "./needs-record.ts";

/** The desk's options; those every Gateway's connection and card store are made with are GatewayDefaults. */
export type DeskOptions = GatewayDefaults & {
  gateways: GatewayConfig[];
  refreshTimeoutMs?: number;
  /** Display and detector options of the activity lines (Settings can change them later). */
  activity?: Partial<Omit<ActivityOptions, "now" | "schedule">>;
  now?: () => number;
  /** The local card history (card-history-file.ts keeps it on disk); in memory only when absent. */
  history?: { history: CardHistory; flush(): void };
  /** Where the core's warnings and debug lines go (default: warnings on stderr). */
  logger?: Logger;
  /** The needs-you record (needs-record-file.ts keeps it on disk); in memory only when absent. */
  needsRecord?: { record: NeedsRecord; flush(): void };
};

/** How often the activity tracker re-checks silent runs and expires old lines while it needs to. */
const ACTIVITY_TICK_MS = 30_000;

export type DeskStats = {
  /** Socket attempts made. */
  attempts: number;
  /** Port probes made while a loopback Gateway refused connections. */
  probes: number;
  /** Card reads sent. */
  reads: number;
  maxInFlightPerSession: number;
  maxQueuedReads: number;
  /** Most card reads in flight at once since the last resetReadPeak. */
  peakReadsInFlight: number;
  /** Re-reads not sent because the read in flight already returned the hinted revision. */
  skippedRereads: number;
  /** The last roster whose cards were all read once, or null before the first. */
  cardsKnown: CardsKnown | null;
  /** Card reads started while the Gateway answered slowly (paced), and the spells of that. */
  busyReads: number;
  busySpells: number;
};

const unknownGatewayMessage = (gatewayId: string): string => `No Gateway with id "${gatewayId}"`;

export class ProgressDesk {
  private readonly members = new Map<string, DeskGateway>();
  private readonly listeners = new Set<(change: DeskChange) => void>();
  private readonly opts: DeskOptions;
  private readonly log: Logger;

  private started = false;
  /** What each Gateway is wired to (desk-gateway.ts). */
  private readonly shared: DeskShared;
  private readonly activity: ActivityTracker;
  private activityTick: ReturnType<typeof setTimeout> | null = null;
  /** The local card history; `flushHistory` writes what is pending to its file (a no-op when kept in memory only). */
  private readonly history: CardHistory;
  private readonly flushHistory: () => void;
  private readonly needs: DeskNeeds;

  constructor(opts: DeskOptions) {
    this.opts = opts;
    this.log = opts.logger ?? fallbackLogger();
    const historyFile = opts.history ?? { history: new CardHistory(), flush: () => {} };
    this.history = historyFile.history;
    this.flushHistory = () => historyFile.flush();
    this.activity = new ActivityTracker({
      ...opts.activity,
      now: opts.now ?? Date.now,
      schedule: (fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref?.();
        return () => clearTimeout(t);
      },
    });
    this.activity.subscribe((activity) => this.emit({ type: "activity", gatewayId: activity.gatewayId, activity }));
    this.needs = new DeskNeeds({
      record: opts.needsRecord,
      now: () => this.now(),
      known: (gatewayId) => this.members.has(gatewayId),
      onChange: (gatewayId, needs, event) => this.emit({ type: "needs", gatewayId, needs, event }),
    });
    this.shared = {
      defaults: opts,
      identity: opts.vault.deviceIdentity(),
      log: this.log,
      history: this.history,
      activity: this.activity,
      needs: this.needs.book,
      now: () => this.now(),
      emit: (change) => this.emit(change),
      withTiming: (entry) => this.withTiming(entry),
      activityFed: () => this.armActivityTick(),
    };
    for (const config of opts.gateways) this.addMember(config);
  }

  /** Settings changed how activity is shown or when a run counts as stalled. */
  setActivityOptions(options: Partial<Omit<ActivityOptions, "now" | "schedule">>): void {
    this.activity.setOptions(options);
    this.armActivityTick();
  }

  private armActivityTick(): void {
    if (this.activityTick || !this.activity.needsTick()) return;
    this.activityTick = setTimeout(() => {
      this.activityTick = null;
      this.activity.tick();
      this.armActivityTick();
    }, ACTIVITY_TICK_MS);
    this.activityTick.unref?.();
  }

  private addMember(config: GatewayConfig): DeskGateway {
    const id = config.id ?? gatewayIdForUrl(config.url);
    if (this.members.has(id)) throw new Error(`Two Gateways share the id "${id}"; give each its own id.`);
    const member = createDeskGateway(id, config, this.shared);
    this.members.set(id, member);
    return member;
  }

  /**
   * Replaces the Gateway list (Settings changed it). Unchanged Gateways keep their
   * connection and cards; removed ones stop; new or edited ones connect afresh.
   */
  configure(gateways: GatewayConfig[]): void {
    const wanted = new Map(gateways.map((g) => [g.id ?? gatewayIdForUrl(g.url), g]));
    for (const [id, m] of this.members) {
      const next = wanted.get(id);
      if (!next || JSON.stringify(next) !== JSON.stringify(m.config)) {
        m.connection.stop();
        m.store.dispose();
        this.history.unwatched(id, this.now());
        this.members.delete(id);
        this.activity.forget(id);
        this.needs.book.forget(id);
      }
    }
    for (const [id, config] of wanted) {
      if (this.members.has(id)) continue;
      const m = this.addMember({ ...config, id });
      if (this.started) m.connection.start();
    }
    this.emit({
      type: "gateways",
      gateways: [...this.members.values()].map((m) => ({ id: m.id, label: m.label, url: m.connection.url, color: m.color })),
    });
  }

  start(): void {
    this.started = true;
    for (const m of this.members.values()) m.connection.start();
    this.needs.start();
  }

  stop(): void {
    this.started = false;
    if (this.activityTick) clearTimeout(this.activityTick);
    this.activityTick = null;
    this.activity.dispose();
    for (const m of this.members.values()) {
      m.connection.stop();
      m.store.dispose();
    }
    // From now on nothing is watched: the next start records the time between as a gap.
    this.history.unwatched(null, this.now());
    this.flushHistory();
    this.needs.stop();
  }

  /** Call after sleep, unlock or network change: reconnect and re-read now (G3, C4). */
  wake(): void {
    for (const m of this.members.values()) m.connection.wake();
  }

  /** Try a Gateway again at once, e.g. after the person approved pairing. */
  retry(gatewayId: string): void {
    this.member(gatewayId).connection.retryNow();
  }

  subscribe(listener: (change: DeskChange) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): DeskSnapshot {
    return { gateways: [...this.members.values()].map((m) => this.gatewaySnapshot(m)), credentials: this.opts.vault.protection };
  }

  gatewayIds(): string[] {
    return [...this.members.keys()];
  }

  entry(gatewayId: string, sessionKey: string, agentId: string | null = null): CardEntry | null {
    const e = this.member(gatewayId).store.entry(sessionKey, agentId);
    return e ? this.withTiming(e) : null;
  }

  /** The Gateway's needs-you state: pending entries and whether this desk answers them (Y1). */
  needsState(gatewayId: string) {
    this.member(gatewayId);
    return this.needs.book.state(gatewayId);
  }

  /**
   * Answers a pending entry (Y13, Y14): the answer is checked against the entry this core
   * holds, sent as the one Gateway request that carries it, and the entry leaves with its
   * record once the Gateway applied it. Refused (NeedAnswerRefused) when the entry is gone,
   * this desk does not answer on its Gateway, the answer does not fit the entry, the same
   * entry is being answered already, or the Gateway did not apply it (then the lists are read
   * again, so an entry answered elsewhere leaves with its outcome).
   */
  async answerNeed(ref: NeedRef, answer: NeedAnswer): Promise<NeedRecord> {
    const m = this.member(ref.gatewayId);
    return this.needs.answer(ref, answer, m.connection, m.needs);
  }

  /** The ended needs-you entries, oldest first (the last 200, Y5). */
  needsHistory() {
    return this.needs.history();
  }

  /** The card's local history (every history of it, oldest first), for surfaces and tests. */
  cardHistory(gatewayId: string, sessionKey: string, agentId: string | null = null) {
    return this.history.all(gatewayId, sessionKey, agentId);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** The entry with its timing (issue 12), derived from the card's open history. */
  private withTiming(entry: CardEntry): CardEntry {
    const h = entry.card && !entry.hidden ? this.history.current(entry.gatewayId, entry.sessionKey, entry.agentId) : null;
    const matches = h !== null && h.records.at(-1)?.revision === entry.card?.revision;
    return { ...entry, timing: matches && entry.derived ? deriveTiming(h, entry.derived.state, this.now()) : null };
  }

  /** Follow a card by key (for example a bare `global` key with its agent id, G4). */
  track(gatewayId: string, sessionKey: string, agentId: string | null = null): CardEntry {
    return this.member(gatewayId).store.track(sessionKey, agentId);
  }

  async dismiss(
    gatewayId: string,
    sessionKey: string,
    opts: { revision: number; confirmed?: boolean; agentId?: string | null },
  ): Promise<DismissResult> {
    // A stale Gateway id (removed in Settings meanwhile) is an outcome like any other failed write.
    const m = this.members.get(gatewayId);
    if (!m) return { outcome: "error", code: ERROR_CODES.unknownGateway, message: unknownGatewayMessage(gatewayId) };
    const entry = m.store.entry(sessionKey, opts.agentId ?? null);
    if (!entry) return { outcome: "gone" };
    return dismissCard(m.store, m.connection, entry, opts);
  }

  async refresh(
    gatewayId: string,
    sessionKey: string,
    opts: { retry?: boolean; agentId?: string | null } = {},
  ): Promise<RefreshState | null> {
    const m = this.member(gatewayId);
    const entry = m.store.entry(sessionKey, opts.agentId ?? null);
    if (!entry?.card) return null;
    return refreshCard(m.store, m.connection, entry, {
      ...(opts.retry ? { retry: true } : {}),
      timeoutMs: this.opts.refreshTimeoutMs ?? 120_000,
    });
  }

  /** Diagnostics for tests and benchmarks. */
  stats(gatewayId: string): DeskStats {
    const m = this.member(gatewayId);
    const stats = m.store.stats;
    return {
      attempts: m.connection.attempts,
      probes: m.connection.probes,
      reads: stats.reads,
      maxInFlightPerSession: stats.maxInFlightPerSession,
      maxQueuedReads: stats.maxQueuedReads,
      peakReadsInFlight: stats.peakReadsInFlight,
      skippedRereads: stats.skippedRereads,
      cardsKnown: stats.lastCardsKnown,
      busyReads: stats.busyReads,
      busySpells: stats.busySpells,
    };
  }

  /** Starts a new observation of `stats().peakReadsInFlight` (e.g. before forcing a reconnect). */
  resetReadPeak(gatewayId: string): void {
    this.member(gatewayId).store.resetReadPeak();
  }

  private gatewaySnapshot(m: DeskGateway): GatewaySnapshot {
    return {
      id: m.id,
      label: m.label,
      color: m.color,
      url: m.connection.url,
      connection: m.connection.state,
      sessions: m.store.sessionList(),
      cards: m.store.entries().map((e) => this.withTiming(e)),
      boards: m.boards.state(),
      activity: this.activity.list().filter((a) => a.gatewayId === m.id),
      needs: this.needs.book.state(m.id),
      cardsKnown: m.store.stats.lastCardsKnown !== null,
    };
  }

  private member(gatewayId: string): DeskGateway {
    const m = this.members.get(gatewayId);
    if (!m) throw new DeskError(ERROR_CODES.unknownGateway, unknownGatewayMessage(gatewayId));
    return m;
  }

  private emit(change: DeskChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (err) {
        this.log.error("a change listener failed", { error: err });
      }
    }
  }
}
