// The tray glance, kept current: any desk change, settings change or change in what asks
// for a look redraws it, coalesced so a burst of card writes draws once. A disconnect is
// shown only once it has lasted (the tracker's debounce), so the presenter draws again
// when it would become visible. The glyphs follow the OS appearance where the system
// does not tint them.
import type { NativeTheme } from "electron";
import type { Settings } from "../../../common/contract.ts";
import type { UpdateView } from "../../../common/updates.ts";
import type { DeskChange, DeskSnapshot, Unsubscribe } from "../../../common/model.ts";
import { fallbackLogger, type Logger } from "../../core/logger.ts";
import type { Schedule } from "../popover.ts";
import { trayIconPath, trayIconVariant } from "../tray-icons.ts";
import { TrayController, type TrayActions, type TrayDeps } from "../tray.ts";
import type { Attention } from "./attention.ts";

/** Changes closer together than this are drawn once. */
export const REDRAW_COALESCE_MS = 50;

export type TrayPresenterContext = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  assetsDir: string;
  createTray: TrayDeps["createTray"];
  buildMenu: TrayDeps["buildMenu"];
  nativeTheme: Pick<NativeTheme, "shouldUseDarkColors" | "on">;
  desk: { snapshot(): DeskSnapshot; subscribe(listener: (change: DeskChange) => void): Unsubscribe };
  settings: { view(): Pick<Settings, "trayTitle">; onChange(listener: (s: Settings) => void): () => void };
  attention: Pick<Attention, "tracker" | "onChanged">;
  actions: TrayActions;
  /** The app's own updates (U5): their rows in the menu, drawn again when they change. */
  updates?: { view(): UpdateView; onChanged(listener: () => void): () => void };
  /** The folder holding the log file, and the OS shell's way to open it: with both the menu has "Show Logs". */
  logFolder?: string;
  openPath?: (path: string) => Promise<string>;
  /** Where a failure to open the log folder is told (default: stderr). */
  logger?: Pick<Logger, "warn">;
  now: () => number;
  schedule: Schedule;
};

export type TrayPresenter = {
  tray: TrayController;
  /** Draws now (and cancels a pending coalesced draw). */
  redraw(): void;
  /** Draws soon, once for every change until then. */
  scheduleRedraw(): void;
  /** Stops drawing: no listener or timer is left. The tray stays until destroy(). */
  stop(): void;
  destroy(): void;
};

/** Opens the log folder in the file manager; a failure is logged (there is nowhere else to say it). */
export async function showLogs(folder: string, openPath: (path: string) => Promise<string>, log: Pick<Logger, "warn">): Promise<void> {
  const failure = await openPath(folder).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
  if (failure) log.warn("could not open the log folder", { folder, error: failure });
}

export function setupTrayPresenter(ctx: TrayPresenterContext): TrayPresenter {
  const tracker = ctx.attention.tracker;
  const { logFolder, openPath } = ctx;
  const log = ctx.logger ?? fallbackLogger();
  const actions: TrayActions =
    logFolder && openPath ? { ...ctx.actions, showLogs: () => void showLogs(logFolder, openPath, log) } : ctx.actions;
  const tray = new TrayController({
    createTray: ctx.createTray,
    buildMenu: ctx.buildMenu,
    iconPath: (state) => trayIconPath(ctx.assetsDir, state, trayIconVariant(ctx.platform, ctx.env, ctx.nativeTheme.shouldUseDarkColors)),
    platform: ctx.platform,
    actions,
  });
  // A theme switch can flip a dark panel light (or back): redraw the glyph in the other colour.
  ctx.nativeTheme.on("updated", () => tray.refreshIcon());

  let cancelRedraw: (() => void) | null = null;
  let cancelDebounce: (() => void) | null = null;
  const redraw = (): void => {
    cancelRedraw?.();
    cancelRedraw = null;
    const t = ctx.now();
    const updates = ctx.updates?.view();
    tray.render(tracker.model(ctx.desk.snapshot(), t, { showTitle: ctx.settings.view().trayTitle, ...(updates ? { updates } : {}) }));
    // A disconnect that has not lasted yet: draw again when it has.
    cancelDebounce?.();
    const next = tracker.nextChangeAt(t);
    cancelDebounce = next === null ? null : ctx.schedule(redraw, next - t);
  };
  const scheduleRedraw = (): void => {
    if (!cancelRedraw) cancelRedraw = ctx.schedule(redraw, REDRAW_COALESCE_MS);
  };

  const unsubscribers = [
    ctx.desk.subscribe(scheduleRedraw),
    ctx.settings.onChange(scheduleRedraw),
    ctx.attention.onChanged(scheduleRedraw),
    ...(ctx.updates ? [ctx.updates.onChanged(scheduleRedraw)] : []),
  ];

  return {
    tray,
    redraw,
    scheduleRedraw,
    stop() {
      for (const u of unsubscribers) u();
      cancelRedraw?.();
      cancelRedraw = null;
      cancelDebounce?.();
      cancelDebounce = null;
    },
    destroy: () => tray.destroy(),
  };
}
