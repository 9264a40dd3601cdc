// The menu-bar app, put together: the core (desk, settings, vault), the tray glance, the
// popover, the dashboard and Settings windows, notifications, IPC, power events and the
// login item. Every Electron API arrives through `ShellDeps`, so this file has no
// `electron` import at run time: app.ts passes the real modules, tests pass a fake.
import type { BrowserWindowConstructorOptions, GlobalShortcut, IpcMain, NativeTheme, NotificationConstructorOptions, PowerMonitor, Screen, WebContents } from "electron";
import { join } from "node:path";
import type { CardRef, Page, Settings } from "../../preload/contract.ts";
import { createDeskService, type DeskService } from "../core/desk-service.ts";
import { ProgressDesk } from "../core/desk.ts";
import { discoverGateway } from "../core/discovery.ts";
import { cardKeyOf, pinKeyOf, visibleCards } from "../core/glance.ts";
import { NotificationPolicy, type PolicyOptions } from "../core/notification-policy.ts";
import { SettingsStore } from "../core/settings.ts";
import { TrayTracker } from "../core/tray-model.ts";
import type { CardEntry, DeskChange } from "../core/types.ts";
import { CredentialVault } from "../core/vault.ts";
import { fallbackLogger, type Logger } from "../core/logger.ts";
import { broadcast, registerIpc } from "./ipc.ts";
import { Notifier, type NotificationLike } from "./notifier.ts";
import { PageWindowController, type PageWindow } from "./page-window.ts";
import { PopoverController, type PopoverWindow, type Schedule } from "./popover.ts";
import { safeStorageFile, type SafeStorageLike } from "./secret-storage.ts";
import { storeSettingsBackend, storeWindowFrames, type KeyValueStore } from "./store-backend.ts";
import { trayIconPath, trayIconVariant } from "./tray-icons.ts";
import { TrayController, type TrayDeps } from "./tray.ts";
import { lockNavigation, secureWebPreferences } from "./window-security.ts";

/** A window as the shell uses it: what the popover and page controllers need, plus its contents. */
export type ShellWindow = PopoverWindow & PageWindow & { webContents: Pick<WebContents, "send" | "isDestroyed" | "on" | "setWindowOpenHandler"> };

export type ShellDeps = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** The app's data folder (userData): credentials live here. */
  dataDir: string;
  pagesDir: string;
  preloadPath: string;
  assetsDir: string;
  clientVersion: string;
  store: KeyValueStore;
  safeStorage: SafeStorageLike;
  createTray: TrayDeps["createTray"];
  buildMenu: TrayDeps["buildMenu"];
  createWindow: (options: BrowserWindowConstructorOptions) => ShellWindow;
  screen: Pick<Screen, "getDisplayMatching" | "getDisplayNearestPoint" | "getCursorScreenPoint" | "getAllDisplays" | "getPrimaryDisplay">;
  ipcMain: Pick<IpcMain, "handle" | "removeHandler">;
  createNotification: (options: NotificationConstructorOptions) => NotificationLike;
  notificationsSupported: () => boolean;
  openExternal: (url: string) => Promise<void>;
  powerMonitor: Pick<PowerMonitor, "on" | "getSystemIdleTime">;
  /** The OS appearance: picks the tray glyphs off macOS, where the system does not tint them. */
  nativeTheme: Pick<NativeTheme, "shouldUseDarkColors" | "on">;
  globalShortcut: Pick<GlobalShortcut, "register" | "unregister">;
  setLoginItem: (openAtLogin: boolean) => void;
  /** Ends the app (Electron's app.quit); the shell has already saved everything. */
  quit: () => void;
  warn: (message: string) => void;
  /** The app's logger (app.ts: electron-log's file); the core logs through it. Default: warnings on stderr. */
  logger?: Logger;
  /** The folder holding the log file, and the OS shell's way to open it ("Show Logs" in the tray menu). */
  logFolder?: string;
  openPath?: (path: string) => Promise<string>;
  /** Puts text on the clipboard ("Copy diagnostics": the pages have no clipboard permission). */
  writeClipboard?: (text: string) => void;
  now?: () => number;
  schedule?: Schedule;
  /** Idle polling for the away summary (N6); 0 turns it off. */
  idlePollMs?: number;
  /** Tests shorten the notification throttle windows. */
  policy?: Partial<Pick<PolicyOptions, "perSessionIntervalMs" | "globalWindowMs" | "globalMaxPerWindow" | "awayThresholdMs">>;
};

const AWAY_IDLE_SECONDS = 5 * 60;
const REDRAW_COALESCE_MS = 50;

const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

export type Shell = {
  desk: ProgressDesk;
  settings: SettingsStore;
  service: DeskService;
  tray: TrayController;
  tracker: TrayTracker;
  popover: PopoverController;
  dashboard: PageWindowController;
  settingsWindow: PageWindowController;
  notifier: Notifier;
  policy: NotificationPolicy;
  openPage(page: Page, card?: CardRef): Promise<void>;
  /** Redraw the tray now (tests; the shell coalesces on its own). */
  redraw(): void;
  /** Saves and stops everything; then the app may exit. */
  shutdown(): Promise<void>;
  isQuitting(): boolean;
};

/** Opens the log folder in the file manager; a failure is logged (there is nowhere else to say it). */
async function showLogs(folder: string, openPath: (path: string) => Promise<string>, log: Pick<Logger, "warn">): Promise<void> {
  const failure = await openPath(folder).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
  if (failure) log.warn("could not open the log folder", { folder, error: failure });
}

export async function startShell(deps: ShellDeps): Promise<Shell> {
  const now = deps.now ?? Date.now;
  const schedule = deps.schedule ?? realSchedule;
  let quitting = false;

  // ——— the core ———
  const logger = deps.logger ?? fallbackLogger();
  const vault = await CredentialVault.open(await safeStorageFile(join(deps.dataDir, "credentials.json"), deps.safeStorage, deps.platform, deps.warn), logger);
  const settings = new SettingsStore(storeSettingsBackend(deps.store), vault, logger);
  const frames = storeWindowFrames(deps.store);
  const discovered = discoverGateway({ env: deps.env });
  for (const note of discovered.notes) deps.warn(`Progress Desk: ${note}`);
  for (const secret of [discovered.token, discovered.password, discovered.bootstrapToken]) logger.protect(secret);
  const desk = new ProgressDesk({ gateways: [], vault, clientVersion: deps.clientVersion, platform: deps.platform, logger });

  // ——— windows ———
  const windows = new Set<ShellWindow>();
  const makeWindow = (options: BrowserWindowConstructorOptions): ShellWindow => {
    const win = deps.createWindow({ ...options, show: false, webPreferences: secureWebPreferences(deps.preloadPath) });
    lockNavigation(win.webContents, (url) => void deps.openExternal(url));
    windows.add(win);
    win.on("closed", () => windows.delete(win));
    return win;
  };
  const workAreas = () => {
    const primary = deps.screen.getPrimaryDisplay();
    return [primary, ...deps.screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  };

  const tracker = new TrayTracker();
  let tray: TrayController;
  const popover = new PopoverController({
    createWindow: () =>
      makeWindow({
        width: 380,
        height: 560,
        frame: false,
        resizable: false,
        movable: false,
        minimizable: false,
        maximizable: false,
        fullscreenable: false,
        skipTaskbar: true,
        alwaysOnTop: true,
        title: "Task progress",
        ...(deps.platform === "darwin" ? { type: "panel" as const, vibrancy: "popover" as const, visualEffectState: "active" as const } : {}),
      }),
    screen: deps.screen,
    trayBounds: () => tray.bounds(),
    schedule,
    now,
    onShow: () => markSeenInPopover(),
    keepOpenOnBlur: () => deps.env.PROGRESS_DESK_KEEP_POPOVER === "1",
  });
  const dashboard = new PageWindowController({
    page: "dashboard",
    createWindow: (bounds) => makeWindow({ ...bounds, minWidth: 360, minHeight: 260, title: "Progress Desk — Dashboard" }),
    workAreas,
    preferred: { width: 900, height: 640 },
    loadBounds: () => frames.load("dashboard"),
    saveBounds: (b) => frames.save("dashboard", b),
    onTop: () => settings.view().dashboardOnTop,
    quitting: () => quitting,
    schedule,
  });
  const settingsWindow = new PageWindowController({
    page: "settings",
    createWindow: (bounds) => makeWindow({ ...bounds, minWidth: 420, minHeight: 400, title: "Progress Desk — Settings" }),
    workAreas,
    preferred: { width: 560, height: 720 },
    quitting: () => quitting,
    schedule,
  });

  const openPage = async (page: Page, card?: CardRef): Promise<void> => {
    if (page === "popover") {
      if (card) markSeen(findEntries([card]));
      return popover.show(card);
    }
    return (page === "dashboard" ? dashboard : settingsWindow).open();
  };

  const service = createDeskService({
    desk,
    settings,
    discovered,
    openExternal: async (url) => {
      await deps.openExternal(url);
      return true;
    },
    openPage,
    logger,
    clientVersion: deps.clientVersion,
    ...(deps.writeClipboard ? { copyText: deps.writeClipboard } : {}),
  });

  // ——— what the person has seen (P1 "ready") and what is in front of them (N3) ———
  const allCards = (): CardEntry[] => visibleCards(desk.snapshot());
  const findEntries = (refs: CardRef[]): CardEntry[] => {
    const keys = new Set(refs.map(cardKeyOf));
    return allCards().filter((e) => keys.has(cardKeyOf(e)));
  };
  const markSeen = (entries: CardEntry[]): void => {
    if (tracker.markSeen(entries)) scheduleRedraw();
  };
  const markSeenInPopover = (): void => {
    if (settings.view().showCards) markSeen(allCards());
  };
  const isVisibleInFocusedWindow = (ref: CardRef): boolean => {
    const s = settings.view();
    if (popover.isFocused() && s.showCards) return true;
    if (dashboard.isFocused()) return s.pinned.includes(pinKeyOf(ref));
    return false;
  };

  // ——— notifications ———
  const notifier = new Notifier({
    create: deps.createNotification,
    isSupported: deps.notificationsSupported,
    onClick: (card) => void openPage("popover", card ?? undefined),
    onRefused: (notice, reason) => {
      // N7: the milestone stays visible as the tray's attention state.
      if (notice.card) tracker.flag(notice.card, `notification refused: ${reason}`);
      scheduleRedraw();
    },
  });
  const gatewayLabels = new Map<string, string>();
  const policy = new NotificationPolicy({
    ...deps.policy,
    now,
    schedule,
    deliver: (notice) => notifier.deliver(notice),
    settings: () => settings.view().notifications,
    isVisibleInFocusedWindow,
    gatewayLabel: (id) => gatewayLabels.get(id) ?? null,
    gatewayCount: () => gatewayLabels.size,
  });

  // ——— the tray ———
  tray = new TrayController({
    createTray: deps.createTray,
    buildMenu: deps.buildMenu,
    iconPath: (state) => trayIconPath(deps.assetsDir, state, trayIconVariant(deps.platform, deps.env, deps.nativeTheme.shouldUseDarkColors)),
    platform: deps.platform,
    actions: {
      togglePopover: () => popover.toggle(),
      openCard: (ref) => void openPage("popover", ref),
      openDashboard: () => void dashboard.open(),
      openSettings: () => void settingsWindow.open(),
      retryGateway: (id) => desk.retry(id),
      quit: () => void quit(),
      ...(deps.logFolder && deps.openPath ? { showLogs: () => void showLogs(deps.logFolder!, deps.openPath!, logger) } : {}),
    },
  });
  // A theme switch can flip a dark panel light (or back): redraw the glyph in the other colour.
  deps.nativeTheme.on("updated", () => tray.refreshIcon());

  let cancelRedraw: (() => void) | null = null;
  let cancelDebounce: (() => void) | null = null;
  const redraw = (): void => {
    cancelRedraw?.();
    cancelRedraw = null;
    const t = now();
    tray.render(tracker.model(desk.snapshot(), t, { showTitle: settings.view().trayTitle }));
    // A disconnect that has not lasted yet: draw again when it has.
    cancelDebounce?.();
    const next = tracker.nextChangeAt(t);
    cancelDebounce = next === null ? null : schedule(redraw, next - t);
  };
  const scheduleRedraw = (): void => {
    if (!cancelRedraw) cancelRedraw = schedule(redraw, REDRAW_COALESCE_MS);
  };

  const refreshLabels = (): void => {
    gatewayLabels.clear();
    for (const g of desk.snapshot().gateways) gatewayLabels.set(g.id, g.label);
  };
  const onChange = (change: DeskChange): void => {
    if (change.type === "connection") tracker.noteConnection(change.gatewayId, change.connection, now());
    if (change.type === "gateways") {
      refreshLabels();
      for (const g of desk.snapshot().gateways) tracker.noteConnection(g.id, g.connection, now());
    }
    if (change.type === "activity") policy.observeActivity(change.activity);
    if (change.type === "card") {
      policy.observe(change.entry);
      if (popover.isFocused() && settings.view().showCards) markSeen([change.entry]);
    }
    scheduleRedraw();
  };
  desk.subscribe(onChange);

  // ——— IPC: the pages ———
  const ours = (contents: WebContents): boolean => [...windows].some((w) => (w.webContents as unknown) === contents);
  const unregisterIpc = registerIpc({ ipcMain: deps.ipcMain, service, isOurContents: ours, onOwnAction: (card) => policy.noteOwnAction(card), warn: deps.warn });
  const unsubscribePages = service.subscribe((event) => broadcast([...windows].map((w) => w.webContents), event));

  // ——— settings that the shell applies ———
  let shortcut = "";
  let loginItem: boolean | null = null;
  const applySettings = (s: Settings): void => {
    if (s.launchAtLogin !== loginItem) {
      loginItem = s.launchAtLogin;
      deps.setLoginItem(s.launchAtLogin);
    }
    dashboard.applyOnTop(s.dashboardOnTop);
    if (s.popoverShortcut !== shortcut) {
      if (shortcut) deps.globalShortcut.unregister(shortcut);
      shortcut = "";
      if (s.popoverShortcut) {
        if (deps.globalShortcut.register(s.popoverShortcut, () => popover.toggle())) shortcut = s.popoverShortcut;
        else deps.warn(`Progress Desk: the shortcut ${s.popoverShortcut} is taken by another app.`);
      }
    }
    scheduleRedraw();
  };
  const unsubscribeSettings = settings.onChange(applySettings);
  applySettings(settings.view());

  // ——— sleep, lock and idle: reconnect after wake (G3), sum up after an absence (N6) ———
  deps.powerMonitor.on("suspend", () => policy.away());
  deps.powerMonitor.on("lock-screen", () => policy.away());
  deps.powerMonitor.on("resume", () => {
    desk.wake();
    policy.back();
  });
  deps.powerMonitor.on("unlock-screen", () => {
    desk.wake();
    policy.back();
  });
  let idleAway = false;
  let cancelIdle: (() => void) | null = null;
  const pollIdle = (): void => {
    const idle = deps.powerMonitor.getSystemIdleTime();
    if (!idleAway && idle >= AWAY_IDLE_SECONDS) {
      idleAway = true;
      policy.away();
    } else if (idleAway && idle < AWAY_IDLE_SECONDS) {
      idleAway = false;
      policy.back();
    }
    cancelIdle = schedule(pollIdle, deps.idlePollMs ?? 60_000);
  };
  if ((deps.idlePollMs ?? 60_000) > 0) cancelIdle = schedule(pollIdle, deps.idlePollMs ?? 60_000);

  // ——— start ———
  desk.configure(service.gateways());
  refreshLabels();
  for (const g of desk.snapshot().gateways) tracker.noteConnection(g.id, g.connection, now());
  desk.start();
  redraw();

  let shutdown: Promise<void> | null = null;
  const stopAll = (): Promise<void> =>
    (shutdown ??= (async () => {
      quitting = true;
      cancelRedraw?.();
      cancelDebounce?.();
      cancelIdle?.();
      if (shortcut) deps.globalShortcut.unregister(shortcut);
      unsubscribeSettings();
      unsubscribePages();
      unregisterIpc();
      policy.dispose();
      popover.destroy();
      dashboard.destroy();
      settingsWindow.destroy();
      desk.stop();
      await settings.flush();
      tray.destroy();
    })());
  const quit = async (): Promise<void> => {
    await stopAll();
    deps.quit();
  };

  return {
    desk,
    settings,
    service,
    tray,
    tracker,
    popover,
    dashboard,
    settingsWindow,
    notifier,
    policy,
    openPage,
    redraw,
    shutdown: stopAll,
    isQuitting: () => quitting,
  };
}

