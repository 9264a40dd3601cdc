// P2: the popover under the tray icon. Created on first open (no hidden renderer at
// start), placed on the display that holds the icon, hidden on blur, destroyed after ten
// minutes hidden so an idle menu-bar app keeps no renderer alive.
import type { BrowserWindow, Screen } from "electron";
import type { CardRef } from "../../common/contract.ts";
import type { NeedRef } from "../../common/model.ts";
import { pageUrl } from "./app-protocol.ts";
import { IdleWindowSlot, type AppWindow } from "./idle-window.ts";
import { popoverPosition, type Rect } from "./window-geometry.ts";

export type PopoverWindow = AppWindow & Pick<BrowserWindow, "setPosition" | "getSize" | "setVisibleOnAllWorkspaces">;

export type Schedule = (fn: () => void, ms: number) => () => void;

export type PopoverDeps = {
  createWindow: () => PopoverWindow;
  screen: Pick<Screen, "getDisplayMatching" | "getDisplayNearestPoint" | "getCursorScreenPoint">;
  trayBounds: () => Rect;
  schedule: Schedule;
  now: () => number;
  onShow?: () => void;
  onHide?: () => void;
  /** Tests and DevTools keep it open while it loses focus. */
  keepOpenOnBlur?: () => boolean;
  idleDestroyMs?: number;
  blurGuardMs?: number;
};

export const POPOVER_IDLE_DESTROY_MS = 10 * 60_000;
/** Clicking the tray icon blurs the popover first; that click must not reopen it. */
export const POPOVER_BLUR_GUARD_MS = 300;

export class PopoverController {
  private readonly slot: IdleWindowSlot<PopoverWindow>;
  private blurHiddenAt = Number.NEGATIVE_INFINITY;
  private readonly deps: PopoverDeps;

  constructor(deps: PopoverDeps) {
    this.deps = deps;
    this.slot = new IdleWindowSlot(deps.schedule, deps.idleDestroyMs ?? POPOVER_IDLE_DESTROY_MS);
  }

  window(): PopoverWindow | null {
    return this.slot.current();
  }

  isVisible(): boolean {
    return this.window()?.isVisible() ?? false;
  }

  isFocused(): boolean {
    return this.slot.isFocused();
  }

  /** The tray click (or the shortcut): open when closed, close when open. */
  toggle(): void {
    if (this.isVisible()) return this.hide();
    if (this.deps.now() - this.blurHiddenAt < (this.deps.blurGuardMs ?? POPOVER_BLUR_GUARD_MS)) return;
    void this.show();
  }

  /** Opens the popover; with a card (or a needs-you entry), scrolls to it and opens it (N4, tray menu). */
  async show(card?: CardRef | NeedRef): Promise<void> {
    this.slot.keep();
    let win = this.window();
    const fresh = !win;
    if (!win) win = this.create();
    if (fresh || card) {
      // A card only changes the hash of a loaded page: no reload, the page focuses it.
      await win.loadURL(pageUrl("popover", card)).catch(() => undefined);
      if (win.isDestroyed()) return;
    }
    this.place(win);
    win.show();
    win.focus();
    this.deps.onShow?.();
  }

  hide(): void {
    const win = this.window();
    if (!win || !win.isVisible()) return;
    win.hide();
    this.deps.onHide?.();
    this.slot.destroyWhenIdle(() => this.slot.destroy());
  }

  destroy(): void {
    this.slot.destroy();
  }

  private create(): PopoverWindow {
    const win = this.deps.createWindow();
    // Follows the person across Spaces without bringing back a Dock icon.
    win.setVisibleOnAllWorkspaces(true, { skipTransformProcessType: true });
    win.on("blur", () => {
      // Hiding a focused window also blurs it: only a blur of the open popover counts.
      if (this.deps.keepOpenOnBlur?.() || !win.isVisible()) return;
      this.blurHiddenAt = this.deps.now();
      this.hide();
    });
    return this.slot.hold(win);
  }

  private place(win: PopoverWindow): void {
    let tray = this.deps.trayBounds();
    // Some Linux panels report no tray bounds: open at the pointer instead.
    if (tray.width === 0 && tray.height === 0) {
      const p = this.deps.screen.getCursorScreenPoint();
      tray = { x: p.x, y: p.y, width: 1, height: 1 };
    }
    const display = this.deps.screen.getDisplayMatching(tray);
    const [width = 380, height = 560] = win.getSize();
    const { x, y } = popoverPosition(tray, { width, height }, display.workArea);
    win.setPosition(x, y, false);
  }
}
