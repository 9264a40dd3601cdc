// Small FAKE stand-ins for Electron objects (windows, emitters) and a manual clock and
// scheduler, shared by the unit tests of main/electron/. No Electron binary exists where
// these tests run; each fake is cast to the real Electron type at the point of use.
import type { Rect } from "../../main/electron/window-geometry.ts";

type Listener = (...args: never[]) => unknown;

/** An event emitter that records its listeners and can fire them by hand. */
export class FakeEmitter {
  readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    return this;
  }

  emit(event: string, ...args: unknown[]): void {
    for (const l of [...(this.listeners.get(event) ?? [])]) (l as (...a: unknown[]) => unknown)(...args);
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

/** A preventable Electron-style event. */
export function fakeEvent<T extends object>(extra: T = {} as T): T & { defaultPrevented: boolean; preventDefault(): void } {
  const e = {
    ...extra,
    defaultPrevented: false,
    preventDefault() {
      e.defaultPrevented = true;
    },
  };
  return e;
}

/**
 * A manual clock and scheduler: nothing runs until `advance` moves time past a task's
 * due time; tasks run in due order (then in the order they were scheduled).
 */
export class ManualScheduler {
  private time: number;
  private seq = 0;
  private tasks: { at: number; seq: number; fn: () => void; ms: number }[] = [];
  /** Every delay ever asked for, in order. */
  readonly requested: number[] = [];

  constructor(start = 1_000_000) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly schedule = (fn: () => void, ms: number): (() => void) => {
    const task = { at: this.time + ms, seq: this.seq++, fn, ms };
    this.tasks.push(task);
    this.requested.push(ms);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  };

  /** How many tasks are waiting. */
  pending(): number {
    return this.tasks.length;
  }

  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.tasks.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.tasks = this.tasks.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }
}

/**
 * A FAKE BrowserWindow: the parts the popover and page-window controllers use, with a
 * call log. `destroy()` emits "closed" like the real one; `userClose()` is the person
 * clicking the close button (a preventable "close", then "closed" unless prevented).
 */
export class FakeWindow extends FakeEmitter {
  visible = false;
  focused = false;
  destroyed = false;
  onTop = false;
  size: [number, number];
  bounds: Rect;
  readonly calls: string[] = [];
  readonly urls: string[] = [];
  readonly positions: [number, number, boolean | undefined][] = [];
  readonly workspaces: [boolean, unknown][] = [];
  readonly onTopCalls: [boolean, string | undefined][] = [];
  /** Set to make loadURL reject (a page that fails to load). */
  failLoad = false;

  constructor(bounds: Rect = { x: 0, y: 0, width: 380, height: 560 }) {
    super();
    this.bounds = { ...bounds };
    this.size = [bounds.width, bounds.height];
  }

  private live(name: string): void {
    if (this.destroyed) throw new Error(`Object has been destroyed (${name})`);
    this.calls.push(name);
  }

  show(): void {
    this.live("show");
    this.visible = true;
  }
  hide(): void {
    this.live("hide");
    this.visible = false;
    this.focused = false;
  }
  focus(): void {
    this.live("focus");
    this.focused = true;
  }
  isVisible(): boolean {
    return !this.destroyed && this.visible;
  }
  isFocused(): boolean {
    return !this.destroyed && this.focused;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.calls.push("destroy");
    this.destroyed = true;
    this.visible = false;
    this.emit("closed");
  }
  setPosition(x: number, y: number, animate?: boolean): void {
    this.live("setPosition");
    this.positions.push([x, y, animate]);
    this.bounds = { ...this.bounds, x, y };
  }
  getSize(): number[] {
    return [...this.size];
  }
  getBounds(): Rect {
    return { ...this.bounds };
  }
  async loadURL(url: string): Promise<void> {
    this.live("loadURL");
    this.urls.push(url);
    if (this.failLoad) throw new Error("ERR_FAILED");
  }
  setVisibleOnAllWorkspaces(visible: boolean, options?: unknown): void {
    this.live("setVisibleOnAllWorkspaces");
    this.workspaces.push([visible, options]);
  }
  setAlwaysOnTop(flag: boolean, level?: string): void {
    this.live("setAlwaysOnTop");
    this.onTopCalls.push([flag, level]);
    this.onTop = flag;
  }
  isAlwaysOnTop(): boolean {
    return this.onTop;
  }

  /** The person clicks the close button; returns whether the close was prevented. */
  userClose(): boolean {
    const event = fakeEvent();
    this.emit("close", event);
    if (!event.defaultPrevented) this.destroy();
    return event.defaultPrevented;
  }

  /** The person moves or resizes the window. */
  moveTo(bounds: Partial<Rect>, event: "move" | "resize" = "move"): void {
    this.bounds = { ...this.bounds, ...bounds };
    this.emit(event);
  }
}
