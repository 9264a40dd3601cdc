// The shell's windows: the popover under the tray icon and the dashboard and Settings
// windows. Each is created hidden with the locked-down web preferences and navigation, and
// only when first opened (no hidden renderer at start). The dashboard follows the
// "keep on top" setting. Which contents are ours is what IPC trusts.
import type { BrowserWindowConstructorOptions, Screen, WebContents } from "electron";
import type { CardRef, Page, Settings } from "../../../common/contract.ts";
import type { NeedRef } from "../../../common/model.ts";
import { PageWindowController, type PageWindow } from "../page-window.ts";
import { PopoverController, type PopoverWindow, type Schedule } from "../popover.ts";
import type { WindowFrames } from "../store-backend.ts";
import type { Rect } from "../window-geometry.ts";
import { lockNavigation, secureWebPreferences } from "../window-security.ts";
import type { Attention } from "./attention.ts";

/** A window as the shell uses it: what the popover and page controllers need, plus its contents. */
export type ShellWindow = PopoverWindow &
  PageWindow & { webContents: Pick<WebContents, "send" | "isDestroyed" | "on" | "setWindowOpenHandler"> };

export type WindowsContext = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  preloadPath: string;
  createWindow: (options: BrowserWindowConstructorOptions) => ShellWindow;
  screen: Pick<Screen, "getDisplayMatching" | "getDisplayNearestPoint" | "getCursorScreenPoint" | "getAllDisplays" | "getPrimaryDisplay">;
  /** Opens a link from a page in the system browser (the caller checks the scheme). */
  openExternal: (url: string) => Promise<void>;
  settings: { view(): Pick<Settings, "dashboardOnTop">; onChange(listener: (s: Settings) => void): () => void };
  frames: WindowFrames;
  attention: Pick<Attention, "seeCards" | "seePopover">;
  /** Where the tray icon is, to open the popover under it. */
  trayBounds: () => Rect;
  isQuitting: () => boolean;
  now: () => number;
  schedule: Schedule;
};

export type Windows = {
  popover: PopoverController;
  dashboard: PageWindowController;
  settingsWindow: PageWindowController;
  /** Opens a page; the popover may open on one card, which the person then has seen. */
  openPage(page: Page, card?: CardRef): Promise<void>;
  /** Opens the popover at a needs-you entry (tray row, notice click). */
  openNeed(need: NeedRef): Promise<void>;
  /** The contents of every open window, for events. */
  contents(): ShellWindow["webContents"][];
  /** True for the contents of one of our open windows (IPC answers only these). */
  isOurContents(contents: WebContents): boolean;
  /** Closes every window for real (quitting). */
  dispose(): void;
};

const POPOVER_OPTIONS: BrowserWindowConstructorOptions = {
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
};
/** On macOS a non-activating panel with the system's popover material. */
const MAC_POPOVER_OPTIONS: BrowserWindowConstructorOptions = { type: "panel", vibrancy: "popover", visualEffectState: "active" };

export function setupWindows(ctx: WindowsContext): Windows {
  const open = new Set<ShellWindow>();
  const makeWindow = (options: BrowserWindowConstructorOptions): ShellWindow => {
    const win = ctx.createWindow({ ...options, show: false, webPreferences: secureWebPreferences(ctx.preloadPath) });
    lockNavigation(win.webContents, (url) => void ctx.openExternal(url));
    open.add(win);
    win.on("closed", () => open.delete(win));
    return win;
  };
  const workAreas = (): Rect[] => {
    const primary = ctx.screen.getPrimaryDisplay();
    return [primary, ...ctx.screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  };

  const popover = new PopoverController({
    createWindow: () =>
      makeWindow({
        ...POPOVER_OPTIONS,
        ...(ctx.platform === "darwin" ? MAC_POPOVER_OPTIONS : {}),
      }),
    screen: ctx.screen,
    trayBounds: ctx.trayBounds,
    schedule: ctx.schedule,
    now: ctx.now,
    onShow: () => ctx.attention.seePopover(),
    keepOpenOnBlur: () => ctx.env.PROGRESS_DESK_KEEP_POPOVER === "1",
  });
  const dashboard = new PageWindowController({
    page: "dashboard",
    createWindow: (bounds) => makeWindow({ ...bounds, minWidth: 360, minHeight: 260, title: "Progress Desk — Dashboard" }),
    workAreas,
    preferred: { width: 900, height: 640 },
    loadBounds: () => ctx.frames.load("dashboard"),
    saveBounds: (b) => ctx.frames.save("dashboard", b),
    onTop: () => ctx.settings.view().dashboardOnTop,
    quitting: ctx.isQuitting,
    schedule: ctx.schedule,
  });
  const settingsWindow = new PageWindowController({
    page: "settings",
    createWindow: (bounds) => makeWindow({ ...bounds, minWidth: 420, minHeight: 400, title: "Progress Desk — Settings" }),
    workAreas,
    preferred: { width: 560, height: 720 },
    quitting: ctx.isQuitting,
    schedule: ctx.schedule,
  });

  const unsubscribe = ctx.settings.onChange((s) => dashboard.applyOnTop(s.dashboardOnTop));
  dashboard.applyOnTop(ctx.settings.view().dashboardOnTop);

  return {
    popover,
    dashboard,
    settingsWindow,
    openPage(page, card) {
      if (page === "popover") {
        if (card) ctx.attention.seeCards([card]);
        return popover.show(card);
      }
      return (page === "dashboard" ? dashboard : settingsWindow).open();
    },
    openNeed: (need) => popover.show(need),
    contents: () => [...open].map((w) => w.webContents),
    isOurContents: (contents) => [...open].some((w) => (w.webContents as unknown) === contents),
    dispose() {
      unsubscribe();
      popover.destroy();
      dashboard.destroy();
      settingsWindow.destroy();
    },
  };
}
