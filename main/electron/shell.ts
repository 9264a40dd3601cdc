// The menu-bar app, put together: the core, the windows, what the person has seen, the
// notifications, the pages' IPC, the tray and the operating system's hooks, each set up by
// its own module in setup/ from a small context, in the order below. Every Electron API
// arrives through `ShellDeps`, so this file has no `electron` import at run time: app.ts
// passes the real modules, tests pass a fake.
import type {
  BrowserWindowConstructorOptions,
  GlobalShortcut,
  IpcMain,
  NativeTheme,
  NotificationConstructorOptions,
  PowerMonitor,
  Screen,
} from "electron";
import type { CardRef, Page } from "../../common/contract.ts";
import type { DeskService } from "../core/desk-service.ts";
import type { ProgressDesk } from "../core/desk.ts";
import { fallbackLogger, type Logger } from "../core/logger.ts";
import type { NotificationPolicy } from "../core/notifications/policy.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { TrayTracker } from "../core/tray-model.ts";
import type { UpdateAvailability, UpdaterLike } from "../core/updates/updater-port.ts";
import type { Notifier, NotificationLike } from "./notifier.ts";
import type { PageWindowController } from "./page-window.ts";
import type { PopoverController, Schedule } from "./popover.ts";
import type { SafeStorageLike } from "./secret-storage.ts";
import { setupAttention } from "./setup/attention.ts";
import { setupCore } from "./setup/core.ts";
import { setupNotifications, type PolicyTuning } from "./setup/notifications.ts";
import { setupPages } from "./setup/pages.ts";
import { setupSystemHooks } from "./setup/system-hooks.ts";
import { setupTrayPresenter } from "./setup/tray-presenter.ts";
import { setupWindows, type ShellWindow } from "./setup/windows.ts";
import type { KeyValueStore } from "./store-backend.ts";
import type { TrayController, TrayDeps } from "./tray.ts";

export type { ShellWindow };

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
  policy?: PolicyTuning;
  /**
   * Self-update (issue 22): whether this build can update, decided before any updater exists,
   * and the updater, created only when it can (app.ts: main/electron/updater.ts, electron-updater's
   * autoUpdater). Absent: no updates.
   */
  updater?: { availability: UpdateAvailability; create(): UpdaterLike };
};

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

export async function startShell(deps: ShellDeps): Promise<Shell> {
  const now = deps.now ?? Date.now;
  const schedule = deps.schedule ?? realSchedule;
  let quitting = false;
  const logger = deps.logger ?? fallbackLogger();
  const base = { ...deps, now, schedule, logger, isQuitting: () => quitting };

  // Two pairs need each other: the popover opens under the tray icon and the tray opens the
  // popover; what is in front of the person depends on the windows, which report what was
  // seen. The later one of each pair is looked up when first used, after setup.
  const { settings, frames, discovered, desk } = await setupCore(base);
  const attention = setupAttention({
    ...base,
    desk,
    settings,
    inFront: { popoverFocused: () => windows.popover.isFocused(), dashboardFocused: () => windows.dashboard.isFocused() },
  });
  const windows = setupWindows({ ...base, settings, frames, attention, trayBounds: () => presenter.tray.bounds() });
  const notifications = setupNotifications({
    ...base,
    desk,
    settings,
    attention,
    openCard: (card) => void windows.openPage("popover", card),
    openNeed: (need) => void windows.openNeed(need),
    openSession: (card) => void pages.service.openSession(card),
  });
  const pages = setupPages({
    ...base,
    desk,
    settings,
    discovered,
    windows,
    openPage: windows.openPage,
    closePopover: () => windows.popover.hide(),
    onOwnAction: (card) => notifications.policy.noteOwnAction(card),
  });
  const presenter = setupTrayPresenter({
    ...base,
    desk,
    settings,
    attention,
    actions: {
      togglePopover: () => windows.popover.toggle(),
      openCard: (ref) => void windows.openPage("popover", ref),
      openNeed: (ref) => void windows.openNeed(ref),
      openSession: (ref) => void pages.service.openSession(ref),
      openDashboard: () => void windows.dashboard.open(),
      openSettings: () => void windows.settingsWindow.open(),
      retryGateway: (id) => desk.retry(id),
      quit: () => void quit(),
    },
  });
  const system = setupSystemHooks({
    ...base,
    settings,
    presence: notifications.policy,
    wake: () => desk.wake(),
    togglePopover: () => windows.popover.toggle(),
  });

  // ——— start: every listener is in place ———
  desk.configure(pages.service.gateways());
  desk.start();
  presenter.redraw();

  let shutdown: Promise<void> | null = null;
  const stopAll = (): Promise<void> =>
    (shutdown ??= (async () => {
      quitting = true;
      presenter.stop();
      system.dispose();
      pages.dispose();
      notifications.dispose();
      attention.dispose();
      windows.dispose();
      desk.stop();
      await settings.flush();
      presenter.destroy();
    })());
  const quit = async (): Promise<void> => {
    await stopAll();
    deps.quit();
  };

  return {
    desk,
    settings,
    service: pages.service,
    tray: presenter.tray,
    tracker: attention.tracker,
    popover: windows.popover,
    dashboard: windows.dashboard,
    settingsWindow: windows.settingsWindow,
    notifier: notifications.notifier,
    policy: notifications.policy,
    openPage: windows.openPage,
    redraw: presenter.redraw,
    shutdown: stopAll,
    isQuitting: () => quitting,
  };
}
