// A FAKE `electron` module, only for electron-updater: test/harness/update-feed.ts maps the
// specifier `electron` to this file when electron-updater's own files require it (no Electron
// binary can run here). It has just what electron-updater 6.8 uses of Electron:
// - app (ElectronAppAdapter): getVersion, getName, isPackaged, getAppPath, getPath, whenReady,
//   quit, relaunch, once("quit");
// - net.request and session.fromPartition (ElectronHttpExecutor): net.request is Node's
//   http.request on loopback, so the real download code (progress, sha512) reads a real socket.
//   Node's errors are not Chromium's: a refused connection is ECONNREFUSED here, where the
//   packaged app's electron.net says net::ERR_CONNECTION_REFUSED;
// - autoUpdater (BaseUpdater.quitAndInstall emits "before-quit-for-update" on it) and
//   Notification (checkForUpdatesAndNotify, which we do not use).
import { EventEmitter } from "node:events";
import { request as httpRequest, type ClientRequest, type OutgoingHttpHeaders } from "node:http";

/** The state a test sets before it creates an updater (electron-updater reads the version once, in its constructor). */
export const fakeAppState = {
  version: "0.0.0",
  name: "Progress Desk",
  isPackaged: true,
  appPath: "/nonexistent/fake-electron-app",
  userData: "/nonexistent/fake-electron-user-data",
  quits: 0,
  relaunches: 0,
};

class FakeApp extends EventEmitter {
  get isPackaged(): boolean {
    return fakeAppState.isPackaged;
  }
  getVersion(): string {
    return fakeAppState.version;
  }
  getName(): string {
    return fakeAppState.name;
  }
  getAppPath(): string {
    return fakeAppState.appPath;
  }
  getPath(name: string): string {
    if (name === "userData") return fakeAppState.userData;
    throw new Error(`fake electron: app.getPath("${name}") is not faked`);
  }
  whenReady(): Promise<void> {
    return Promise.resolve();
  }
  quit(): void {
    fakeAppState.quits += 1;
  }
  relaunch(): void {
    fakeAppState.relaunches += 1;
  }
}

export const app = new FakeApp();

type NetRequestOptions = {
  protocol?: string;
  hostname?: string;
  port?: string | number;
  path?: string;
  method?: string;
  headers?: OutgoingHttpHeaders;
};

export const net = {
  /** Electron's net.request, played by Node's http.request (plain http on loopback only). */
  request(options: NetRequestOptions): ClientRequest {
    if (options.protocol !== "http:") throw new Error(`fake electron: net.request serves http only (got ${String(options.protocol)})`);
    return httpRequest({
      protocol: "http:",
      hostname: options.hostname,
      port: options.port,
      path: options.path,
      method: options.method ?? "GET",
      headers: options.headers,
    });
  },
};

export const session = {
  fromPartition(_partition: string, _options?: unknown): Record<string, never> {
    return {};
  },
};

export const autoUpdater = new EventEmitter();

export class Notification {
  readonly options: unknown;
  constructor(options: unknown) {
    this.options = options;
  }
  show(): void {}
}
