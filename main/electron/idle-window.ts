// The one window a controller owns (the popover, the dashboard, Settings): made on first use,
// and destroyed once it has stayed hidden for a while, so an idle menu-bar app keeps no
// renderer alive. Each controller decides what hiding and destroying also mean for it.
import type { BrowserWindow } from "electron";

/** What the app does with each of its windows (the popover, the dashboard, Settings). */
export type AppWindow = Pick<
  BrowserWindow,
  "show" | "hide" | "focus" | "isVisible" | "isFocused" | "isDestroyed" | "destroy" | "on" | "loadURL"
>;

export class IdleWindowSlot<W extends AppWindow> {
  private win: W | null = null;
  private cancelDestroy: (() => void) | null = null;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private readonly idleDestroyMs: number;

  constructor(schedule: (fn: () => void, ms: number) => () => void, idleDestroyMs: number) {
    this.schedule = schedule;
    this.idleDestroyMs = idleDestroyMs;
  }

  /** The window, unless there is none or it is destroyed. */
  current(): W | null {
    return this.win && !this.win.isDestroyed() ? this.win : null;
  }

  isFocused(): boolean {
    const w = this.current();
    return !!w && w.isVisible() && w.isFocused();
  }

  /** Holds a new window; it leaves the slot when it closes for good. */
  hold(win: W): W {
    win.on("closed", () => {
      if (this.win === win) this.win = null;
    });
    this.win = win;
    return win;
  }

  /** Called on showing: a destruction still pending is called off. */
  keep(): void {
    this.cancelDestroy?.();
    this.cancelDestroy = null;
  }

  /** Called on hiding: `destroy` runs if this same window is still there and hidden after the idle time. */
  destroyWhenIdle(destroy: () => void): void {
    this.keep();
    const win = this.current();
    this.cancelDestroy = this.schedule(() => {
      this.cancelDestroy = null;
      if (win && this.current() === win && !win.isVisible()) destroy();
    }, this.idleDestroyMs);
  }

  destroy(): void {
    this.keep();
    this.current()?.destroy();
    this.win = null;
  }
}
