// One configured Gateway inside the desk: its connection, card store, boards and needs sync,
// wired to each other and to what the desk shares across Gateways (the card history, live
// activity, the needs-you book and the change stream). Every frame of the Gateway fans out
// from here.
import type { ActivityTracker } from "./activity/tracker.ts";
import { BoardStore } from "./boards.ts";
import { CardStore } from "./cards/card-store.ts";
import type { CardsKnown } from "./cards/roster-sync.ts";
import type { CardHistory } from "../../common/card-history.ts";
import { GatewayConnection, type ClientFactory } from "./connection.ts";
import type { BackoffPolicy } from "./backoff.ts";
import type { GatewayCredentials } from "./discovery.ts";
import type { CardEntry, DeskChange } from "../../common/model.ts";
import type { DeviceIdentity } from "./identity.ts";
import type { CredentialVault } from "./vault.ts";
import type { Logger } from "./logger.ts";
import type { NeedsBook } from "./needs.ts";
import { NeedsSync } from "./needs-sync.ts";

export type GatewayConfig = GatewayCredentials & {
  /** Stable id keying every session and card of this Gateway; defaults to one from the URL. */
  id?: string;
  label?: string;
  color?: string;
  /** Answer approvals and questions from Progress Desk (Y6; off by default). */
  answerApprovals?: boolean;
};

/** The desk's options every Gateway's connection and card store are made with. */
export type GatewayDefaults = {
  vault: CredentialVault;
  clientVersion: string;
  /** process.platform by default; "darwin" connects as the macOS app (a card renderer). */
  platform?: string;
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
  /** Runs `fn` after `ms` and returns its cancel, for connection and card retries (default: setTimeout). */
  schedule?: (fn: () => void, ms: number) => () => void;
};

/** What the desk shares with each of its Gateways. */
export type DeskShared = {
  defaults: GatewayDefaults;
  identity: DeviceIdentity;
  log: Logger;
  history: CardHistory;
  activity: ActivityTracker;
  needs: NeedsBook;
  now: () => number;
  emit: (change: DeskChange) => void;
  /** The entry with its timing, as every surface gets it. */
  withTiming: (entry: CardEntry) => CardEntry;
  /** The activity tracker was fed something: it may need its periodic tick now. */
  activityFed: () => void;
};

export type DeskGateway = {
  id: string;
  label: string;
  color: string | null;
  connection: GatewayConnection;
  store: CardStore;
  boards: BoardStore;
  needs: NeedsSync;
  config: GatewayConfig;
};

/** Connects the Gateway's parts; nothing starts until the desk starts its connection. */
export function createDeskGateway(id: string, config: GatewayConfig, shared: DeskShared): DeskGateway {
  const { defaults: opts, history, activity } = shared;
  const platform = opts.platform ?? process.platform;
  const log = shared.log.child({ gateway: id });
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
    identity: shared.identity,
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
        history.unwatched(id, shared.now());
        boards?.onDisconnected();
        activity.resetGateway(id);
      }
      shared.emit({ type: "connection", gatewayId: id, connection: state });
    },
    onReady: (hello) => {
      void store.onReady();
      void boards.onReady();
      void needs.onReady(hello);
    },
    onEvent: (evt) => {
      store.onEvent(evt.event, evt.payload);
      boards.onEvent(evt.event, evt.payload);
      shared.needs.handleEvent(id, evt.event, evt.payload);
      if (noteAgentSideEvent(shared, id, evt.event, evt.payload, store)) shared.activityFed();
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
      if (change.type === "sessions") for (const row of change.sessions) activity.noteSessionInfo(id, row);
      if (change.type === "card") {
        history.observe(change.entry, shared.now());
        change = { ...change, entry: shared.withTiming(change.entry) };
      }
      shared.emit(change);
    },
    ...(opts.readRetryMs ? { readRetryMs: opts.readRetryMs } : {}),
    ...(opts.maxConcurrentReads ? { maxConcurrentReads: opts.maxConcurrentReads } : {}),
    onCardsKnown: (info) => {
      opts.onCardsKnown?.(info);
      shared.emit({ type: "cardsKnown", gatewayId: id, complete: info.complete });
    },
    ...(opts.schedule ? { schedule: opts.schedule } : {}),
    logger: log,
  });
  boards = new BoardStore({
    logger: log,
    transport: connection,
    emit: (state) => shared.emit({ type: "boards", gatewayId: id, boards: state }),
    follow: (sessionKey) => {
      if (!store.entry(sessionKey)) store.track(sessionKey);
    },
  });
  needs = new NeedsSync({
    gatewayId: id,
    book: shared.needs,
    transport: connection,
    answer: config.answerApprovals === true,
    now: () => shared.now(),
    log,
  });
  return {
    id,
    label: config.label ?? new URL(config.url).host,
    color: config.color ?? null,
    connection,
    store,
    boards,
    needs,
    config,
  };
}

/** Feeds live activity and the card history from an agent-side event; false when the event is none of theirs. */
function noteAgentSideEvent(shared: DeskShared, gatewayId: string, event: string, payload: unknown, store: CardStore): boolean {
  const p = (payload ?? {}) as { sessionKey?: unknown };
  if (event === "agent") shared.activity.handleAgentEvent(gatewayId, payload);
  else if (event === "progressCard.changed" && typeof p.sessionKey === "string") {
    // Revision 1 announced live: that card's creation is being watched (its first step's start is known).
    if ((payload as { revision?: unknown }).revision === 1) shared.history.noteCreated(gatewayId, p.sessionKey, null);
    shared.activity.noteCardChange(gatewayId, p.sessionKey);
  } else if (event === "sessions.changed" && typeof p.sessionKey === "string") {
    const row = store.sessionList().find((r) => r.key === p.sessionKey);
    if (row) shared.activity.noteSessionInfo(gatewayId, row);
  } else return false;
  return true;
}
