// A FAKE Electron for the shell's wiring tests: no Electron binary can run here, so the
// tray, windows, screen, IPC, notifications, power events and shortcuts are recorded
// stand-ins with just the behaviour the shell relies on. Everything the shell passes to
// them is kept so tests can assert on it; `emit` plays the OS's part.
import type { MenuItemConstructorOptions } from "electron";
import type { ShellDeps, ShellWindow } from "../../main/electron/shell.ts";
import type { Rect } from "../../main/electron/window-geometry.ts";

type Handler = (...args: any[]) => unknown;

class Emitter {
  readonly handlers = new Map<string, Handler[]>();
  on(event: string, handler: Handler): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return this;
  }
  once(event: string, handler: Handler): this {
    return this.on(event, handler);
  }
  /** Fires `event` like the OS would; returns the event object (preventDefault is recorded). */
  emit(event: string, ...args: unknown[]): { defaultPrevented: boolean } {
    const e = { defaultPrevented: false, preventDefault: () => void (e.defaultPrevented = true) };
    for (const h of this.handlers.get(event) ?? []) h(e, ...args);
    return e;
  }
}

export class FakeTray extends Emitter {
  image: string;
  title = "";
  tooltip = "";
  contextMenu: FakeMenu | null = null;
  poppedUp: FakeMenu[] = [];
  destroyed = false;
  calls = { setImage: 0, setTitle: 0 };
  bounds: Rect = { x: 1000, y: 0, width: 22, height: 24 };
  constructor(image: string) {
    super();
    this.image = image;
  }
  setImage(image: string) {
    this.calls.setImage += 1;
    this.image = image;
  }
  setTitle(title: string) {
    this.calls.setTitle += 1;
    this.title = title;
  }
  setToolTip(tip: string) {
    this.tooltip = tip;
  }
  setContextMenu(menu: FakeMenu | null) {
    this.contextMenu = menu;
  }
  popUpContextMenu(menu: FakeMenu) {
    this.poppedUp.push(menu);
  }
  getBounds() {
    return this.bounds;
  }
  destroy() {
    this.destroyed = true;
  }
}

export type FakeMenu = { items: MenuItemConstructorOptions[] };

export class FakeWebContents extends Emitter {
  sent: { channel: string; payload: unknown }[] = [];
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  destroyed = false;
  send(channel: string, payload: unknown) {
    this.sent.push({ channel, payload });
  }
  isDestroyed() {
    return this.destroyed;
  }
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
    this.openHandler = h;
  }
}

export class FakeWindow extends Emitter {
  readonly options: Record<string, any>;
  readonly webContents = new FakeWebContents();
  urls: string[] = [];
  visible = false;
  focused = false;
  destroyed = false;
  onTop = false;
  position: [number, number] | null = null;
  bounds: Rect;
  allWorkspaces: unknown[] = [];
  constructor(options: Record<string, any>) {
    super();
    this.options = options;
    this.bounds = { x: options.x ?? 0, y: options.y ?? 0, width: options.width ?? 800, height: options.height ?? 600 };
    this.onTop = options.alwaysOnTop === true;
  }
  async loadURL(url: string) {
    this.urls.push(url);
  }
  show() {
    this.visible = true;
    this.focused = true;
  }
  hide() {
    this.visible = false;
    this.focused = false;
  }
  focus() {
    this.focused = true;
  }
  isVisible() {
    return this.visible;
  }
  isFocused() {
    return this.focused;
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.visible = false;
    this.emit("closed");
  }
  setPosition(x: number, y: number) {
    this.position = [x, y];
    this.bounds = { ...this.bounds, x, y };
  }
  getSize() {
    return [this.bounds.width, this.bounds.height];
  }
  getBounds() {
    return { ...this.bounds };
  }
  setAlwaysOnTop(on: boolean) {
    this.onTop = on;
  }
  isAlwaysOnTop() {
    return this.onTop;
  }
  setVisibleOnAllWorkspaces(...args: unknown[]) {
    this.allWorkspaces.push(args);
  }
  /** The person dragged the window. */
  moveTo(r: Rect) {
    this.bounds = r;
    this.emit("move");
  }
  /** The person clicked elsewhere. */
  blur() {
    this.focused = false;
    this.emit("blur");
  }
}

export class FakeNotification extends Emitter {
  readonly options: { title?: string; body?: string };
  shown = false;
  closed = false;
  constructor(options: { title?: string; body?: string }) {
    super();
    this.options = options;
  }
  show() {
    this.shown = true;
  }
  close() {
    this.closed = true;
  }
}

/** A reversible stand-in for OS encryption: enough to prove nothing is stored in clear. */
export const fakeSafeStorage = {
  isAsyncEncryptionAvailable: async () => true,
  getSelectedStorageBackend: () => "gnome_libsecret" as const,
  encryptStringAsync: async (s: string) => Buffer.from(`enc:${Buffer.from(s).toString("base64").split("").reverse().join("")}`),
  decryptStringAsync: async (b: Buffer) => ({ result: Buffer.from(b.toString().slice(4).split("").reverse().join(""), "base64").toString(), shouldReEncrypt: false }),
};

export type FakeElectron = {
  deps: ShellDeps;
  trays: FakeTray[];
  windows: FakeWindow[];
  notifications: FakeNotification[];
  ipc: Map<string, Handler>;
  store: Map<string, unknown>;
  /** Power events; `idleSeconds` is what the OS reports as idle time, `idleQueries` how often the shell asked. */
  power: Emitter & { idleSeconds: number; idleQueries: number };
  /** The OS appearance; `theme.set(dark)` switches it and fires "updated" like Electron. */
  theme: Emitter & { shouldUseDarkColors: boolean; set(dark: boolean): void };
  shortcuts: Map<string, () => void>;
  takenShortcuts: Set<string>;
  opened: string[];
  loginItem: boolean[];
  warnings: string[];
  quits: number;
  /** The shell's clock: real time plus what the test skipped (a person waiting without the test sleeping). */
  clock: { offsetMs: number; now(): number; advance(ms: number): void };
  /** Calls a verb as the page in `win` would (by default its top frame, showing the window's page). */
  invoke(win: FakeWindow | FakeWebContents, method: string, args: unknown[], frame?: { url: string; parent: unknown } | null): Promise<unknown>;
};

export function fakeElectron(base: { dataDir: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform } & Partial<ShellDeps>): FakeElectron {
  const f: Omit<FakeElectron, "deps" | "invoke"> = {
    trays: [],
    windows: [],
    notifications: [],
    ipc: new Map(),
    store: new Map(),
    power: Object.assign(new Emitter(), { idleSeconds: 0, idleQueries: 0 }),
    theme: Object.assign(new Emitter(), {
      shouldUseDarkColors: false,
      set(this: Emitter & { shouldUseDarkColors: boolean }, dark: boolean) {
        this.shouldUseDarkColors = dark;
        this.emit("updated");
      },
    }),
    shortcuts: new Map(),
    takenShortcuts: new Set(),
    opened: [],
    loginItem: [],
    warnings: [],
    quits: 0,
    clock: {
      offsetMs: 0,
      now(this: { offsetMs: number }) {
        return Date.now() + this.offsetMs;
      },
      advance(this: { offsetMs: number }, ms: number) {
        this.offsetMs += ms;
      },
    },
  };
  const display = { id: 1, workArea: { x: 0, y: 25, width: 1440, height: 875 }, bounds: { x: 0, y: 0, width: 1440, height: 900 } };
  const deps: ShellDeps = {
    platform: "darwin",
    pagesDir: "dist/renderer",
    preloadPath: "dist/preload/preload.cjs",
    assetsDir: "assets",
    clientVersion: "0.0.0-test",
    store: { get: (k) => f.store.get(k), set: (k, v) => void f.store.set(k, structuredClone(v)) },
    safeStorage: fakeSafeStorage,
    createTray: (image) => {
      const t = new FakeTray(image);
      f.trays.push(t);
      return t as never;
    },
    buildMenu: (template) => ({ items: template }) as never,
    createWindow: (options) => {
      const w = new FakeWindow(options as Record<string, any>);
      f.windows.push(w);
      return w as unknown as ShellWindow;
    },
    screen: {
      getDisplayMatching: () => display as never,
      getDisplayNearestPoint: () => display as never,
      getCursorScreenPoint: () => ({ x: 700, y: 10 }),
      getAllDisplays: () => [display as never],
      getPrimaryDisplay: () => display as never,
    },
    ipcMain: {
      handle: (channel: string, h: Handler) => void f.ipc.set(channel, h),
      removeHandler: (channel: string) => void f.ipc.delete(channel),
    } as never,
    createNotification: (options) => {
      const n = new FakeNotification(options);
      f.notifications.push(n);
      return n as never;
    },
    notificationsSupported: () => true,
    openExternal: async (url) => void f.opened.push(url),
    powerMonitor: {
      on: (e: string, h: Handler) => f.power.on(e, () => h()),
      getSystemIdleTime: () => {
        f.power.idleQueries += 1;
        return f.power.idleSeconds;
      },
    } as never,
    nativeTheme: {
      get shouldUseDarkColors() {
        return f.theme.shouldUseDarkColors;
      },
      on: (e: string, h: Handler) => f.theme.on(e, () => h()),
    } as never,
    globalShortcut: {
      register: (acc: string, cb: () => void) => {
        if (f.takenShortcuts.has(acc)) return false;
        f.shortcuts.set(acc, cb);
        return true;
      },
      unregister: (acc: string) => void f.shortcuts.delete(acc),
    } as never,
    setLoginItem: (open) => void f.loginItem.push(open),
    quit: () => void (f as { quits: number }).quits++,
    warn: (m) => void f.warnings.push(m),
    idlePollMs: 0,
    now: () => f.clock.now(),
    ...base,
  };
  return Object.assign(f, {
    deps,
    invoke(target: FakeWindow | FakeWebContents, method: string, args: unknown[], frame?: { url: string; parent: unknown } | null) {
      const h = f.ipc.get(`progress-desk:${method}`);
      if (!h) throw new Error(`no handler for ${method}`);
      const sender = target instanceof FakeWindow ? target.webContents : target;
      // Like Electron: the sender's top frame shows what the window loaded last.
      const shown = (target instanceof FakeWindow ? target.urls.at(-1) : undefined) ?? "app://desk/popover.html";
      return Promise.resolve(h({ sender, senderFrame: frame === undefined ? { url: shown, parent: null } : frame }, ...args));
    },
  });
}
