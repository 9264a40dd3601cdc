// The main-process side of the page contract: every verb a page may call, validated, run
// against the core and the settings. Electron's IPC and the browser host both forward
// here, so the two behave the same. The service decides which Gateways the core uses:
// the ones in Settings, else the zero-configuration local one (G1).
import { forbiddenReason, isSafeExternalUrl, validateArgs, type CardRef, type DeskEvent, type DiagnosticsCopy, type GatewayInput, type Page, type Settings, type SettingsPatch } from "../../preload/contract.ts";
import type { ProgressDesk, GatewayConfig } from "./desk.ts";
import type { Discovered } from "./discovery.ts";
import { diagnosticsText } from "./diagnostics.ts";
import { silentLogger, type Logger } from "./logger.ts";
import { DeskError, ERROR_CODES, isDeskError } from "./errors.ts";
import type { SettingsStore } from "./settings.ts";

export type DeskServiceOptions = {
  desk: ProgressDesk;
  settings: SettingsStore;
  /** The zero-configuration Gateway, used while Settings lists none. */
  discovered: Discovered;
  /** Explicit command-line Gateway: wins over Settings for this run. */
  override?: GatewayConfig;
  openExternal: (url: string) => Promise<boolean> | boolean;
  openPage?: (page: Page, card?: CardRef) => Promise<void> | void;
  /** The logger whose last lines "Copy diagnostics" includes (none: no lines). */
  logger?: Logger;
  /** Runtime versions for diagnostics (default process.versions). */
  versions?: Readonly<Record<string, string | undefined>>;
  clientVersion?: string;
  /** Puts text on the clipboard (Electron); without it the page copies what the verb returns. */
  copyText?: (text: string) => void;
};

export type DeskService = {
  /**
   * Runs one verb for a page. `caller` is the page that asked, as the transport knows it
   * (never as the page says): some verbs are the Settings page's alone (forbiddenReason).
   */
  call(method: string, args: unknown, caller: Page): Promise<unknown>;
  subscribe(listener: (event: DeskEvent) => void): () => void;
  /** The Gateways the core should use now. */
  gateways(): GatewayConfig[];
};

export function localGateway(discovered: Discovered): GatewayConfig {
  const c: GatewayConfig = { url: discovered.url, label: "Local" };
  if (discovered.token) c.token = discovered.token;
  if (discovered.password) c.password = discovered.password;
  if (discovered.bootstrapToken) c.bootstrapToken = discovered.bootstrapToken;
  return c;
}

export function createDeskService(opts: DeskServiceOptions): DeskService {
  const { desk, settings } = opts;
  const gateways = (): GatewayConfig[] => {
    if (opts.override) return [opts.override];
    const configured = settings.gatewayConfigs();
    return configured.length > 0 ? configured : [localGateway(opts.discovered)];
  };
  const reconfigure = (): void => desk.configure(gateways());
  // How activity is shown and when a run counts as stalled come from Settings.
  const applyActivity = (s: Settings): void =>
    desk.setActivityOptions({
      mode: s.activity.mode,
      commandText: s.activity.commandText,
      stall: { enabled: s.detector.enabled, pollingRepeats: s.detector.pollingRepeats, silentMs: s.detector.silentMinutes * 60_000, idleChildMs: s.detector.silentMinutes * 60_000 },
    });
  applyActivity(settings.view());
  settings.onChange(applyActivity);

  const handlers: Record<string, (...args: any[]) => unknown> = {
    snapshot: () => desk.snapshot(),
    dismiss: (card: CardRef, revision: number, confirmed: boolean) =>
      desk.dismiss(card.gatewayId, card.sessionKey, { revision, confirmed, agentId: card.agentId }),
    refresh: (card: CardRef, retry: boolean) => desk.refresh(card.gatewayId, card.sessionKey, { retry, agentId: card.agentId }),
    retryConnection: (gatewayId: string) => desk.retry(gatewayId),
    getSettings: () => settings.view(),
    updateSettings: (patch: SettingsPatch) => settings.update(patch),
    saveGateway: (input: GatewayInput) => {
      const s = settings.saveGateway(input);
      reconfigure();
      return s;
    },
    removeGateway: (id: string) => {
      const s = settings.removeGateway(id);
      reconfigure();
      return s;
    },
    openExternal: (url: string) => (isSafeExternalUrl(url) ? opts.openExternal(url) : false),
    openPage: (page: Page, card?: CardRef) => opts.openPage?.(page, card),
    copyDiagnostics: (): DiagnosticsCopy => {
      const text = diagnosticsText({
        appVersion: opts.clientVersion ?? "unknown",
        versions: opts.versions ?? process.versions,
        platform: process.platform,
        snapshot: desk.snapshot(),
        logger: opts.logger ?? silentLogger,
      });
      if (!opts.copyText) return { text, copied: false };
      opts.copyText(text);
      return { text, copied: true };
    },
  };

  return {
    gateways,
    async call(method, args, caller) {
      const valid = validateArgs(method, args);
      const handler = handlers[method];
      if (!handler) throw new DeskError(ERROR_CODES.badRequest, `unknown method ${method}`);
      const forbidden = forbiddenReason(method, valid, caller);
      if (forbidden !== null) throw new DeskError(ERROR_CODES.forbidden, `Refused: ${forbidden}.`);
      try {
        return (await handler(...valid)) ?? null;
      } catch (err) {
        if (isDeskError(err, ERROR_CODES.badRequest)) throw err;
        // Core errors (an unknown Gateway id, say) are the page's mistake, told plainly.
        throw new DeskError(ERROR_CODES.failed, (err as Error).message, { cause: err });
      }
    },
    subscribe(listener) {
      const offDesk = desk.subscribe((change) => listener({ type: "change", change }));
      const offSettings = settings.onChange((s) => listener({ type: "settings", settings: s }));
      return () => {
        offDesk();
        offSettings();
      };
    },
  };
}
