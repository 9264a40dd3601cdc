// P3 and Settings: ordinary windows for the dashboard and the Settings page. Closing one
// hides it (quitting closes for real) and a hidden one is destroyed after ten minutes;
// the dashboard's frame is saved as it moves and restored onto a display that exists.
import type { BrowserWindow } from "electron";
import type { Page } from "../../common/contract.ts";
import { pageUrl } from "./app-protocol.ts";
import { IdleWindowSlot, type AppWindow } from "./idle-window.ts";
import type { Schedule } from "./popover.ts";
import { restoreBounds, type Rect, type Size } from "./window-geometry.ts";

export type PageWindow = AppWindow & Pick<BrowserWindow, "getBounds" | "setAlwaysOnTop" | "isAlwaysOnTop">;

export type PageWindowDeps = {
  page: Exclude<Page, "popover">;
  createWindow: (bounds: Rect) => PageWindow;
  /** Work areas of the displays, the primary first. */
  workAreas: () => Rect[];
  preferred: Size;
  loadBounds?: () => Rect | null;
  saveBounds?: (bounds: Rect) => void;
  onTop?: () => boolean;
  quitting: () => boolean;
  schedule: Schedule;
  idleDestroyMs?: number;
};

const SAVE_DEBOUNCE_MS = 400;

export class PageWindowController {
  private readonly slot: IdleWindowSlot<PageWindow>;
  private cancelSave: (() => void) | null = null;
  private readonly deps: PageWindowDeps;

  constructor(deps: PageWindowDeps) {
    this.deps = deps;
    this.slot = new IdleWindowSlot(deps.schedule, deps.idleDestroyMs ?? 10 * 60_000);
  }

  window(): PageWindow | null {
    return this.slot.current();
  }

  isFocused(): boolean {
    return this.slot.isFocused();
  }

  async open(): Promise<void> {
    this.slot.keep();
    let win = this.window();
    if (!win) {
      win = this.create();
      await win.loadURL(pageUrl(this.deps.page)).catch(() => undefined);
      if (win.isDestroyed()) return;
    }
    win.show();
    win.focus();
  }

  /** Keep above other windows (the dashboard's pin). */
  applyOnTop(onTop: boolean): void {
    const w = this.window();
    if (w && w.isAlwaysOnTop() !== onTop) w.setAlwaysOnTop(onTop, "floating");
  }

  destroy(): void {
    this.slot.keep();
    this.flushBounds();
    this.slot.destroy();
  }

  private create(): PageWindow {
    const bounds = restoreBounds(this.deps.loadBounds?.() ?? null, this.deps.workAreas(), this.deps.preferred);
    const win = this.deps.createWindow(bounds);
    if (this.deps.onTop?.()) win.setAlwaysOnTop(true, "floating");
    const remember = (): void => {
      if (!this.deps.saveBounds) return;
      this.cancelSave?.();
      this.cancelSave = this.deps.schedule(() => this.flushBounds(), SAVE_DEBOUNCE_MS);
    };
    win.on("resize", remember);
    win.on("move", remember);
    win.on("close", (event) => {
      this.flushBounds();
      if (this.deps.quitting()) return;
      event.preventDefault();
      win.hide();
      this.slot.destroyWhenIdle(() => this.destroy());
    });
    return this.slot.hold(win);
  }

  private flushBounds(): void {
    this.cancelSave?.();
    this.cancelSave = null;
    const w = this.window();
    if (w && this.deps.saveBounds) this.deps.saveBounds(w.getBounds());
  }
}
