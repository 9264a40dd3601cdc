// The one FAKE Electron kit for every test of main/electron/: no Electron binary can run
// here, so the tray, windows, web contents, menus, screen, ipcMain, safeStorage,
// notifications, power events, theme and shortcuts are recorded stand-ins with just the
// behaviour the shell relies on. Each fake keeps what it was given so tests can assert on it; `emit` plays the
// OS's part with Electron's argument order (a preventable event first where Electron sends
// one: build it with `fakeEvent`). Timed behaviour uses test/unit/fake-clock.ts.
// Each fake is cast to the real Electron type at the point of use.
import type { MenuItemConstructorOptions, NotificationConstructorOptions } from "electron";
import type { SenderEvent } from "../../main/electron/ipc.ts";
import type { SafeStorageLike } from "../../main/electron/secret-storage.ts";
import type { ShellDeps, ShellWindow } from "../../main/electron/shell.ts";
import type { Rect } from "../../main/electron/window-geometry.ts";

type Listener = (...args: never[]) => unknown;

/** An event emitter that records its listeners and fires them when the test says. */
export class FakeEmitter {
  readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    return this.on(event, listener);
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

type OpenHandler = (details: { url: string }) => { action: string };

/** A FAKE webContents: what it was sent, its listeners and its window-open handler. */
export class FakeWebContents extends FakeEmitter {
  readonly sent: { channel: string; payload: unknown }[] = [];
  openHandler: OpenHandler | null = null;
  openHandlerSets = 0;
  destroyed = false;

  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: OpenHandler): void {
    this.openHandler = handler;
    this.openHandlerSets++;
  }

  /** The page tries to navigate its window; returns whether that was prevented. */
  navigate(url: string, event: "will-navigate" | "will-redirect" = "will-navigate"): boolean {
    const e = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
    this.emit(event, e, url);
    return e.defaultPrevented;
  }

  /** The page asks for a new window (window.open, target=_blank). */
  open(url: string): { action: string } {
    if (!this.openHandler) throw new Error("no window-open handler is set");
    return this.openHandler({ url });
  }
}

/**
 * A FAKE BrowserWindow with a call log. `destroy()` emits "closed" like the real one;
 * `userClose()` is the person clicking the close button (a preventable "close", then
 * "closed" unless prevented); `blur()` the person clicking elsewhere.
 */
export class FakeWindow extends FakeEmitter {
  /** What it was created with (a BrowserWindow's options, or just its bounds). */
  readonly options: Record<string, any>;
  readonly webContents = new FakeWebContents();
  visible = false;
  focused = false;
  destroyed = false;
  onTop: boolean;
  size: [number, number];
  bounds: Rect;
  readonly calls: string[] = [];
  readonly urls: string[] = [];
  readonly positions: [number, number, boolean | undefined][] = [];
  readonly workspaces: [boolean, unknown][] = [];
  readonly onTopCalls: [boolean, string | undefined][] = [];
  /** Set to make loadURL reject (a page that fails to load). */
  failLoad = false;

  constructor(options: Record<string, any> = {}) {
    super();
    this.options = options;
    this.bounds = { x: options.x ?? 0, y: options.y ?? 0, width: options.width ?? 380, height: options.height ?? 560 };
    this.size = [this.bounds.width, this.bounds.height];
    this.onTop = options.alwaysOnTop === true;
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
    this.webContents.destroyed = true;
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

  /** The person clicks elsewhere. */
  blur(): void {
    this.focused = false;
    this.emit("blur");
  }
}

/** A FAKE Menu: the template it was built from, numbered in build order. */
export type FakeMenu = { id: number; items: MenuItemConstructorOptions[] };

/** A FAKE Tray: its current image, title, tooltip and menu, and a log of every call. */
export class FakeTray extends FakeEmitter {
  /** The image it was created with. */
  readonly iconPath: string;
  image: string;
  title = "";
  tooltip = "";
  contextMenu: FakeMenu | null = null;
  readonly poppedUp: FakeMenu[] = [];
  destroyed = false;
  readonly calls: [string, ...unknown[]][] = [];
  bounds: Rect = { x: 1000, y: 0, width: 22, height: 24 };

  constructor(iconPath: string) {
    super();
    this.iconPath = iconPath;
    this.image = iconPath;
  }
  setImage(image: string): void {
    this.calls.push(["setImage", image]);
    this.image = image;
  }
  setTitle(title: string, options?: unknown): void {
    this.calls.push(["setTitle", title, options]);
    this.title = title;
  }
  setToolTip(tip: string): void {
    this.calls.push(["setToolTip", tip]);
    this.tooltip = tip;
  }
  setContextMenu(menu: FakeMenu | null): void {
    this.calls.push(["setContextMenu", menu]);
    this.contextMenu = menu;
  }
  popUpContextMenu(menu: FakeMenu): void {
    this.calls.push(["popUpContextMenu", menu]);
    this.poppedUp.push(menu);
  }
  getBounds(): Rect {
    return this.bounds;
  }
  destroy(): void {
    this.calls.push(["destroy"]);
    this.destroyed = true;
  }
  /** How many times `name` was called. */
  count(name: string): number {
    return this.calls.filter((c) => c[0] === name).length;
  }
}

/** A FAKE Notification; `failOnShow` has the OS refuse it as soon as it is shown. */
export class FakeNotification extends FakeEmitter {
  readonly options: NotificationConstructorOptions;
  shows = 0;
  closes = 0;
  failOnShow: string | null = null;
  constructor(options: NotificationConstructorOptions) {
    super();
    this.options = options;
  }
  get shown(): boolean {
    return this.shows > 0;
  }
  show(): void {
    this.shows++;
    if (this.failOnShow !== null) this.emit("failed", fakeEvent(), this.failOnShow);
  }
  close(): void {
    this.closes++;
  }
}

type Backend = ReturnType<SafeStorageLike["getSelectedStorageBackend"]>;

/**
 * A FAKE safeStorage: ciphertext is `<key>:` + base64(plaintext), so it is reversible but
 * never contains the plaintext. Decrypting text under an older key works and asks for
 * re-encryption, as Electron does after a key rotation. `available`, `backend` and
 * `failDecrypt` play a keychain that is missing, weak or broken.
 */
export class FakeSafeStorage {
  available = true;
  backend: Backend = "gnome_libsecret";
  key = "K1";
  failDecrypt: string | null = null;
  encrypts = 0;
  decrypts = 0;
  async isAsyncEncryptionAvailable(): Promise<boolean> {
    return this.available;
  }
  getSelectedStorageBackend(): Backend {
    return this.backend;
  }
  async encryptStringAsync(plain: string): Promise<Buffer> {
    this.encrypts++;
    return Buffer.from(`${this.key}:${Buffer.from(plain, "utf8").toString("base64")}`, "utf8");
  }
  async decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }> {
    this.decrypts++;
    if (this.failDecrypt !== null) throw new Error(this.failDecrypt);
    const m = /^(K\d+):(.*)$/s.exec(encrypted.toString("utf8"));
    if (!m) throw new Error("Error while decrypting the ciphertext provided to safeStorage.decryptString.");
    return { result: Buffer.from(m[2]!, "base64").toString("utf8"), shouldReEncrypt: m[1] !== this.key };
  }
}

type IpcHandler = (event: SenderEvent, ...args: unknown[]) => unknown;

/** A FAKE ipcMain: one handler per channel, like Electron (a second `handle` throws). */
export class FakeIpcMain {
  readonly handlers = new Map<string, IpcHandler>();
  readonly removed: string[] = [];
  handle(channel: string, handler: IpcHandler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.removed.push(channel);
    this.handlers.delete(channel);
  }
  /** What the renderer's `ipcRenderer.invoke(channel, ...args)` would get. */
  async invoke(channel: string, event: SenderEvent, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    return h(event, ...args);
  }
}

/** The one display of the fake screen: a 1440×900 Mac with its menu bar. */
export const FAKE_DISPLAY = {
  id: 1,
  workArea: { x: 0, y: 25, width: 1440, height: 875 },
  bounds: { x: 0, y: 0, width: 1440, height: 900 },
};

type Handler = (...args: any[]) => unknown;

/** Power events; `idleSeconds` is what the OS reports as idle time, `idleQueries` how often it was asked. */
export type FakePower = FakeEmitter & { idleSeconds: number; idleQueries: number };
/** The OS appearance; `set(dark)` switches it and fires "updated" like Electron. */
export type FakeTheme = FakeEmitter & { shouldUseDarkColors: boolean; set(dark: boolean): void };

export type FakeElectron = {
  deps: ShellDeps;
  ipcMain: FakeIpcMain;
  safeStorage: FakeSafeStorage;
  trays: FakeTray[];
  windows: FakeWindow[];
  menus: FakeMenu[];
  notifications: FakeNotification[];
  /** The shell's IPC handlers, by channel. */
  ipc: Map<string, IpcHandler>;
  store: Map<string, unknown>;
  power: FakePower;
  theme: FakeTheme;
  shortcuts: Map<string, () => void>;
  takenShortcuts: Set<string>;
  opened: string[];
  loginItem: boolean[];
  warnings: string[];
  quits: number;
  /** The shell's clock: real time plus what the test skipped (a person waiting without the test sleeping). */
  clock: { offsetMs: number; now(): number; advance(ms: number): void };
  /** Calls a verb as the page in `win` would (by default its top frame, showing the window's page). */
  invoke(
    win: FakeWindow | FakeWebContents,
    method: string,
    args: unknown[],
    frame?: { url: string; parent: unknown } | null,
  ): Promise<unknown>;
};

/**
 * The whole fake Electron as the shell's dependencies (`deps`), with everything it records.
 * `base` supplies the data folder and environment and may replace any dependency.
 */
export function fakeElectron(
  base: { dataDir: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform } & Partial<ShellDeps>,
): FakeElectron {
  const ipcMain = new FakeIpcMain();
  const f: Omit<FakeElectron, "deps" | "invoke"> = {
    ipcMain,
    safeStorage: new FakeSafeStorage(),
    trays: [],
    windows: [],
    menus: [],
    notifications: [],
    ipc: ipcMain.handlers,
    store: new Map(),
    power: Object.assign(new FakeEmitter(), { idleSeconds: 0, idleQueries: 0 }),
    theme: Object.assign(new FakeEmitter(), {
      shouldUseDarkColors: false,
      set(this: FakeTheme, dark: boolean) {
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
  const deps: ShellDeps = {
    platform: "darwin",
    pagesDir: "dist/renderer",
    preloadPath: "dist/preload/preload.cjs",
    assetsDir: "assets",
    clientVersion: "0.0.0-test",
    store: { get: (k) => f.store.get(k), set: (k, v) => void f.store.set(k, structuredClone(v)) },
    safeStorage: f.safeStorage as unknown as SafeStorageLike,
    createTray: (image) => {
      const t = new FakeTray(image);
      f.trays.push(t);
      return t as never;
    },
    buildMenu: (template) => {
      const m: FakeMenu = { id: f.menus.length + 1, items: template };
      f.menus.push(m);
      return m as never;
    },
    createWindow: (options) => {
      const w = new FakeWindow(options as Record<string, any>);
      f.windows.push(w);
      return w as unknown as ShellWindow;
    },
    screen: {
      getDisplayMatching: () => FAKE_DISPLAY as never,
      getDisplayNearestPoint: () => FAKE_DISPLAY as never,
      getCursorScreenPoint: () => ({ x: 700, y: 10 }),
      getAllDisplays: () => [FAKE_DISPLAY as never],
      getPrimaryDisplay: () => FAKE_DISPLAY as never,
    },
    ipcMain: ipcMain as never,
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
      const sender = target instanceof FakeWindow ? target.webContents : target;
      // Like Electron: the sender's top frame shows what the window loaded last.
      const shown = (target instanceof FakeWindow ? target.urls.at(-1) : undefined) ?? "app://desk/popover.html";
      const senderFrame = frame === undefined ? { url: shown, parent: null } : frame;
      return ipcMain.invoke(`progress-desk:${method}`, { sender, senderFrame } as unknown as SenderEvent, ...args);
    },
  });
}
