// The core every surface uses: one connection and one card store per configured
// Gateway (G5), a typed snapshot, and a change stream. No windows, no protocol details
// leak out: surfaces get cards that are already read, ordered and derived.
import { dismissCard, refreshCard } from "./actions.ts";
import { ActivityTracker } from "./activity/tracker.ts";
import type { ActivityOptions } from "./activity/options.ts";
import { BoardStore } from "./boards.ts";
import { CardStore } from "./cards/card-store.ts";
import type { CardsKnown } from "./cards/roster-sync.ts";
import { CardHistory } from "../../common/card-history.ts";
import { deriveTiming } from "../../common/card-timing.ts";
import { GatewayConnection, type ClientFactory } from "./connection.ts";
import type { BackoffPolicy } from "./backoff.ts";
import { DeskError, ERROR_CODES } from "../../common/errors.ts";
import { gatewayIdForUrl, type GatewayCredentials } from "./discovery.ts";
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
import { errorFacts } from "./connection-state.ts";
import { truncate } from "../../common/truncate.ts";
import type { CredentialVault } from "./vault.ts";
import { fallbackLogger, type Logger } from "./logger.ts";
import { NeedsBook } from "./needs.ts";
import { answerRequest, appliedOutcome, NeedAnswerRefused } from "./needs-answer.ts";
import { NeedsRecord } from "./needs-record.ts";
import { NeedsSync } from "./needs-sync.ts";
import { needEntryKey } from "../../common/keys.ts";

export type GatewayConfig = GatewayCredentials & {
  /** Stable id keying every session and card of this Gateway; defaults to one from the URL. */
  id?: string;
  label?: string;
  color?: string;
  /** Answer approvals and questions from Progress Desk (Y6; off by default). */
  answerApprovals?: boolean;
};

export type DeskOptions = {
  gateways: GatewayConfig[];
  vault: CredentialVault;
  clientVersion: string;
  /** process.platform by default; "darwin" connects as the macOS app (a card renderer). */
  platform?: string;
  refreshTimeoutMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  createClient?: ClientFactory;
  requestTimeoutMs?: number;
  readRetryMs?: number;
  /** Card reads in flight at once per Gateway (default DEFAULT_MAX_READS_IN_FLIGHT, 8). */
  maxConcurrentReads?: number;
  /**
   * Called per Gateway when its roster (after a connect or a gap) was listed to the end and
   * every session on it read once: every card is known (benchmarks time start-up to it).
   */
  onCardsKnown?: (info: CardsKnown) => void;
  /** Display and detector options of the activity lines (Settings can change them later). */
  activity?: Partial<Omit<ActivityOptions, "now" | "schedule">>;
  now?: () => number;
  /** Runs `fn` after `ms` and returns its cancel, for connection and card retries (default: setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
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

type Member = {
  id: string;
  label: string;
  color: string | null;
  connection: GatewayConnection;
  store: CardStore;
  boards: BoardStore;
  needs: NeedsSync;
  config: GatewayConfig;
};

const unknownGatewayMessage = (gatewayId: string): string => `No Gateway with id "${gatewayId}"`;

export class ProgressDesk {
  private readonly members = new Map<string, Member>();
  private readonly listeners = new Set<(change: DeskChange) => void>();
  private readonly opts: DeskOptions;
  private readonly log: Logger;

  private started = false;
  private readonly identity;
  private readonly activity: ActivityTracker;
  private activityTick: ReturnType<typeof setTimeout> | null = null;
  /** The local card history; `flushHistory` writes what is pending to its file (a no-op when kept in memory only). */
  private readonly history: CardHistory;
  private readonly flushHistory: () => void;
  private readonly needsRecord: { record: NeedsRecord; flush(): void };
  private readonly needs: NeedsBook;
  private needsExpiry: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  /** Entries with an answer on its way to the Gateway (one answer at a time per entry). */
  private readonly answering = new Set<string>();

  constructor(opts: DeskOptions) {
    this.opts = opts;
    this.log = opts.logger ?? fallbackLogger();
    this.identity = opts.vault.deviceIdentity();
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
    this.needsRecord = opts.needsRecord ?? { record: new NeedsRecord(), flush: () => {} };
    this.needs = new NeedsBook({
      now: () => this.now(),
      record: this.needsRecord.record,
      onChange: (gatewayId, event) => {
        if (!this.members.has(gatewayId)) return;
        this.armNeedsExpiry();
        this.emit({ type: "needs", gatewayId, needs: this.needs.state(gatewayId), event });
      },
    });
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

  /** One timer, for the earliest expiry among pending entries (Y4). */
  private armNeedsExpiry(): void {
    const at = this.needs.nextExpiry();
    if (this.needsExpiry?.at === at) return;
    if (this.needsExpiry) clearTimeout(this.needsExpiry.timer);
    this.needsExpiry = null;
    if (at === null || !this.started) return;
    const timer = setTimeout(
      () => {
        this.needsExpiry = null;
        this.needs.expire();
        this.armNeedsExpiry();
      },
      Math.min(Math.max(0, at - this.now()), 2 ** 31 - 1),
    );
    timer.unref?.();
    this.needsExpiry = { at, timer };
  }

  private onAgentSideEvent(gatewayId: string, event: string, payload: unknown, store: CardStore): void {
    const p = (payload ?? {}) as { sessionKey?: unknown };
    if (event === "agent") this.activity.handleAgentEvent(gatewayId, payload);
    else if (event === "progressCard.changed" && typeof p.sessionKey === "string") {
      // Revision 1 announced live: that card's creation is being watched (its first step's start is known).
      if ((payload as { revision?: unknown }).revision === 1) this.history.noteCreated(gatewayId, p.sessionKey, null);
      this.activity.noteCardChange(gatewayId, p.sessionKey);
    } else if (event === "sessions.changed" && typeof p.sessionKey === "string") {
      const row = store.sessionList().find((r) => r.key === p.sessionKey);
      if (row) this.activity.noteSessionInfo(gatewayId, row);
    } else return;
    this.armActivityTick();
  }

  private addMember(config: GatewayConfig): Member {
    const opts = this.opts;
    const identity = this.identity;
    const platform = opts.platform ?? process.platform;
    const id = config.id ?? gatewayIdForUrl(config.url);
    if (this.members.has(id)) throw new Error(`Two Gateways share the id "${id}"; give each its own id.`);
    const log = this.log.child({ gateway: id });
    for (const secret of [config.token, config.password, config.bootstrapToken]) log.protect(secret);
    log.debug("gateway added", { config });
    // The connection's callbacks close over both stores, and onState may run before they exist (hence `?.`).
    // eslint-disable-next-line prefer-const -- assigned once below, but read by callbacks created first
    let store: CardStore, boards: BoardStore, needs: NeedsSync;
    const connection = new GatewayConnection({
      url: config.url,
      ...(config.token ? { token: config.token } : {}),
      ...(config.password ? { password: config.password } : {}),
      ...(config.bootstrapToken ? { bootstrapToken: config.bootstrapToken } : {}),
      vault: opts.vault,
      identity,
      clientName: platform === "darwin" ? "openclaw-macos" : "openclaw-linux",
      platform,
      clientVersion: opts.clientVersion,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.createClient ? { createClient: opts.createClient } : {}),
      ...(opts.requestTimeoutMs ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
      ...(opts.schedule ? { schedule: opts.schedule } : {}),
      ...(config.answerApprovals ? { answerApprovals: true } : {}),
      logger: log,
      onState: (state) => {
        store?.onConnectionState(state);
        if (state.state !== "connected") {
          this.history.unwatched(id, this.now());
          boards?.onDisconnected();
          this.activity.resetGateway(id);
        }
        this.emit({ type: "connection", gatewayId: id, connection: state });
      },
      onReady: (hello) => {
        void store.onReady();
        void boards.onReady();
        void needs.onReady(hello);
      },
      onEvent: (evt) => {
        store.onEvent(evt.event, evt.payload);
        boards.onEvent(evt.event, evt.payload);
        this.needs.handleEvent(id, evt.event, evt.payload);
        this.onAgentSideEvent(id, evt.event, evt.payload, store);
      },
      onGap: () => {
        void store.onGap();
        void boards.onReady();
        void needs.onGap();
      },
    });
    store = new CardStore({
      gatewayId: id,
      transport: connection,
      emit: (change) => {
        if (change.type === "sessions") for (const row of change.sessions) this.activity.noteSessionInfo(id, row);
        if (change.type === "card") {
          this.history.observe(change.entry, this.now());
          change = { ...change, entry: this.withTiming(change.entry) };
        }
        this.emit(change);
      },
      ...(opts.readRetryMs ? { readRetryMs: opts.readRetryMs } : {}),
      ...(opts.maxConcurrentReads ? { maxConcurrentReads: opts.maxConcurrentReads } : {}),
      ...(opts.onCardsKnown ? { onCardsKnown: opts.onCardsKnown } : {}),
      ...(opts.schedule ? { schedule: opts.schedule } : {}),
      logger: log,
    });
    boards = new BoardStore({
      logger: log,
      transport: connection,
      emit: (state) => this.emit({ type: "boards", gatewayId: id, boards: state }),
      follow: (sessionKey) => {
        if (!store.entry(sessionKey)) store.track(sessionKey);
      },
    });
    needs = new NeedsSync({
      gatewayId: id,
      book: this.needs,
      transport: connection,
      answer: config.answerApprovals === true,
      now: () => this.now(),
      log,
    });
    const member: Member = {
      id,
      label: config.label ?? new URL(config.url).host,
      color: config.color ?? null,
      connection,
      store,
      boards,
      needs,
      config,
    };
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
        this.needs.forget(id);
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
    this.armNeedsExpiry();
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
    if (this.needsExpiry) clearTimeout(this.needsExpiry.timer);
    this.needsExpiry = null;
    this.needsRecord.flush();
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
    return this.needs.state(gatewayId);
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
    const request = answerRequest(this.needs.entry(ref.gatewayId, ref.id), this.needs.state(ref.gatewayId).answering, answer);
    const key = needEntryKey(ref);
    if (this.answering.has(key)) throw new NeedAnswerRefused("This request is being answered already.");
    this.answering.add(key);
    this.needs.answerSent(ref.gatewayId, ref.id);
    try {
      let reply: unknown;
      try {
        reply = await m.connection.request<unknown>(request.method, request.params);
      } catch (err) {
        this.needs.answerFailed(ref.gatewayId, ref.id);
        void m.needs.onGap();
        throw new NeedAnswerRefused(`The Gateway did not take the answer: ${truncate(errorFacts(err).message, 300)}`, { cause: err });
      }
      const outcome = appliedOutcome(request, reply);
      const record = outcome === null ? null : this.needs.answeredHere(ref.gatewayId, ref.id, outcome);
      if (record === null) {
        this.needs.answerFailed(ref.gatewayId, ref.id);
        void m.needs.onGap();
        throw new NeedAnswerRefused("The Gateway did not apply the answer: the request was answered elsewhere or has expired.");
      }
      return record;
    } finally {
      this.answering.delete(key);
    }
  }

  /** The ended needs-you entries, oldest first (the last 200, Y5). */
  needsHistory() {
    return this.needsRecord.record.list();
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

  private gatewaySnapshot(m: Member): GatewaySnapshot {
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
      needs: this.needs.state(m.id),
    };
  }

  private member(gatewayId: string): Member {
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
