// The main-process side of the page contract: every verb a page may call, validated, run
// against the core and the settings. Electron's IPC and the browser host both forward
// here, so the two behave the same. The service decides which Gateways the core uses:
// the ones in Settings, else the zero-configuration local one (G1).
import { forbiddenReason, isSafeExternalUrl, validateArgs } from "../../common/contract.ts";
import type { CardRef, DeskEvent, DeskHandlers, DeskMethod, Page, Settings } from "../../common/contract.ts";
import { DeskError, ERROR_CODES, isDeskError } from "../../common/errors.ts";
import type { ProgressDesk } from "./desk.ts";
import type { GatewayConfig } from "./desk-gateway.ts";
import { diagnosticsText } from "./diagnostics.ts";
import type { DeskChange, NeedAnswer, NeedRef } from "../../common/model.ts";
import { pageChangeFilter } from "./page-changes.ts";
import { cardSessionLink, needPageLink } from "../../common/session-link.ts";
import { discoveredGateway, type Discovered } from "./discovery.ts";
import { silentLogger, type Logger } from "./logger.ts";
import type { SettingsStore } from "./settings.ts";
import { disabledUpdateView, UPDATES_COME_WITH_THE_APP, type UpdateView } from "../../common/updates.ts";

export type DeskServiceOptions = {
  desk: ProgressDesk;
  settings: SettingsStore;
  /** The zero-configuration Gateway, used while Settings lists none. */
  discovered: Discovered;
  /** Explicit command-line Gateway: wins over Settings for this run. */
  override?: GatewayConfig;
  openExternal: (url: string) => Promise<boolean> | boolean;
  openPage?: (page: Page, card?: CardRef) => Promise<void> | void;
  /** Hides the popover window (Electron); absent where there is none. */
  closePopover?: () => void;
  /** The logger whose last lines "Copy diagnostics" includes (none: no lines). */
  logger?: Logger;
  /** Runtime versions for diagnostics (default process.versions). */
  versions?: Readonly<Record<string, string | undefined>>;
  clientVersion?: string;
  /** Puts text on the clipboard (Electron); without it the page copies what the verb returns. */
  copyText?: (text: string) => void;
  /** The app's own updates (the menu-bar app); absent, updates are disabled: "Updates come with the menu-bar app" (U7). */
  updates?: UpdatesPort;
};

/** What the pages may know and ask of the app's updates (main/electron/setup/updates.ts gives it). */
export type UpdatesPort = {
  view(): UpdateView;
  /** A check now, rate limited (U1); answers the state. */
  check(): UpdateView;
  /** Restart into a ready update; false (nothing done) unless one is ready. */
  install(): boolean;
  subscribe(listener: (view: UpdateView) => void): () => void;
};

/** Updates where the app cannot update itself: always the same disabled state. */
export function noUpdates(reason: string, currentVersion: string): UpdatesPort {
  const view = disabledUpdateView(reason, currentVersion);
  return { view: () => view, check: () => view, install: () => false, subscribe: () => () => undefined };
}

export type DeskService = {
  /**
   * Runs one verb for a page. `caller` is the page that asked, as the transport knows it
   * (never as the page says): some verbs are the Settings page's alone (forbiddenReason).
   */
  call(method: string, args: unknown, caller: Page): Promise<unknown>;
  subscribe(listener: (event: DeskEvent) => void): () => void;
  /** The Gateways the core should use now. */
  gateways(): GatewayConfig[];
  /** Opens the card's session in its Gateway's Control UI (the verb, for the tray and notices too). */
  openSession(card: CardRef): Promise<boolean>;
  /** Opens a needs-you entry's page in its Gateway's Control UI (the verb). */
  openNeed(need: NeedRef): Promise<boolean>;
};

/** The zero-configuration Gateway, labelled "Local". */
export function localGateway(discovered: Discovered): GatewayConfig {
  return discoveredGateway(discovered, "Local");
}

/**
 * One call, checked as the contract says before a handler runs: the verb and its arguments
 * (validateArgs), then who asks (forbiddenReason). A handler's failure is the page's to
 * hear as a FAILED DeskError with its message.
 */
export function serveContract(handlers: DeskHandlers): DeskService["call"] {
  return async (method, args, caller) => {
    // validateArgs admits only the table's verbs, with their arguments' types.
    const valid = validateArgs(method, args);
    const handler = handlers[method as DeskMethod] as (...validArgs: unknown[]) => unknown;
    const forbidden = forbiddenReason(method, valid, caller);
    if (forbidden !== null) throw new DeskError(ERROR_CODES.forbidden, `Refused: ${forbidden}.`);
    try {
      return (await handler(...valid)) ?? null;
    } catch (err) {
      if (isDeskError(err, ERROR_CODES.badRequest)) throw err;
      // Core errors (an unknown Gateway id, say) are the page's mistake, told plainly.
      throw new DeskError(ERROR_CODES.failed, (err as Error).message, { cause: err });
    }
  };
}

export function createDeskService(opts: DeskServiceOptions): DeskService {
  const { desk, settings } = opts;
  const updates = opts.updates ?? noUpdates(UPDATES_COME_WITH_THE_APP, opts.clientVersion ?? "unknown");
  const gateways = (): GatewayConfig[] => {
    if (opts.override) return [opts.override];
    const configured = settings.gatewayConfigs();
    if (configured.length > 0) return configured;
    // The Local Gateway is not saved in Settings: its answering choice is a preference of its own (Y15).
    const local: GatewayConfig = localGateway(opts.discovered);
    if (settings.view().localAnswerApprovals) local.answerApprovals = true;
    return [local];
  };
  const reconfigure = (): void => desk.configure(gateways());
  // Pages hear the desk's changes through one filter, kept from the service's start (page-changes.ts).
  const pageListeners = new Set<(change: DeskChange) => void>();
  const forPages = pageChangeFilter(desk.snapshot());
  desk.subscribe((change) => {
    if (!forPages(change)) return;
    for (const listener of pageListeners) {
      try {
        listener(change);
      } catch (err) {
        (opts.logger ?? silentLogger).error("a page listener failed", { error: err });
      }
    }
  });
  const subscribePages = (listener: (change: DeskChange) => void): (() => void) => {
    pageListeners.add(listener);
    return () => pageListeners.delete(listener);
  };
  // Turning answering on or off for the Local Gateway reconnects it with (or without) the two scopes.
  let localAnswering = settings.view().localAnswerApprovals;
  settings.onChange((s) => {
    if (s.localAnswerApprovals === localAnswering) return;
    localAnswering = s.localAnswerApprovals;
    if (!opts.override && s.gateways.length === 0) reconfigure();
  });
  // How activity is shown and when a run counts as stalled come from Settings.
  const applyActivity = (s: Settings): void =>
    desk.setActivityOptions({
      mode: s.activity.mode,
      commandText: s.activity.commandText,
      stall: {
        enabled: s.detector.enabled,
        pollingRepeats: s.detector.pollingRepeats,
        silentMs: s.detector.silentMinutes * 60_000,
        idleChildMs: s.detector.silentMinutes * 60_000,
      },
    });
  applyActivity(settings.view());
  settings.onChange(applyActivity);

  // The Gateway URL as the core has it; sessionLink keeps only scheme, host and port of it.
  const openSession = async (card: CardRef): Promise<boolean> => {
    const link = cardSessionLink(desk.snapshot().gateways, card);
    return link !== null && isSafeExternalUrl(link) ? await opts.openExternal(link) : false;
  };

  // The link comes from the entry the core holds, never from the page: only a pending
  // entry's own page on its own Gateway can be opened this way.
  const openNeed = async (need: NeedRef): Promise<boolean> => {
    const link = needPageLink(desk.snapshot().gateways, need);
    return link !== null && isSafeExternalUrl(link) ? await opts.openExternal(link) : false;
  };

  // One handler per verb of the contract, typed from its table: a missing verb, an extra
  // one or a handler with other parameter or result types does not compile.
  const handlers: DeskHandlers = {
    snapshot: () => ({ ...desk.snapshot(), updates: updates.view() }),
    dismiss: (card, revision, confirmed) => desk.dismiss(card.gatewayId, card.sessionKey, { revision, confirmed, agentId: card.agentId }),
    refresh: (card, retry) => desk.refresh(card.gatewayId, card.sessionKey, { retry, agentId: card.agentId }),
    retryConnection: (gatewayId) => desk.retry(gatewayId),
    getSettings: () => settings.view(),
    updateSettings: (patch) => settings.update(patch),
    saveGateway: (input) => {
      const s = settings.saveGateway(input);
      reconfigure();
      return s;
    },
    removeGateway: (id) => {
      const s = settings.removeGateway(id);
      reconfigure();
      return s;
    },
    openExternal: (url) => (isSafeExternalUrl(url) ? opts.openExternal(url) : false),
    openPage: (page, card) => opts.openPage?.(page, card),
    copyDiagnostics: () => {
      const text = diagnosticsText({
        appVersion: opts.clientVersion ?? "unknown",
        versions: opts.versions ?? process.versions,
        platform: process.platform,
        snapshot: desk.snapshot(),
        updates: updates.view(),
        logger: opts.logger ?? silentLogger,
      });
      if (!opts.copyText) return { text, copied: false };
      opts.copyText(text);
      return { text, copied: true };
    },
    openSession,
    openNeed,
    answerNeed: (need, answer) => desk.answerNeed(need, answer as NeedAnswer),
    closePopover: () => opts.closePopover?.(),
    checkForUpdates: () => updates.check(),
    installUpdate: () => updates.install(),
  };

  return {
    gateways,
    openSession,
    openNeed,
    call: serveContract(handlers),
    subscribe(listener) {
      const offDesk = subscribePages((change) => listener({ type: "change", change }));
      const offSettings = settings.onChange((s) => listener({ type: "settings", settings: s }));
      const offUpdates = updates.subscribe((view) => listener({ type: "change", change: { type: "updates", updates: view } }));
      return () => {
        offDesk();
        offSettings();
        offUpdates();
      };
    },
  };
}
