// A REAL electron-updater against a local update feed on loopback, for tests of issue 22 and
// for driving the update model from real events:
// - startLocalFeed: a folder served over node:http holding what `npm run dist` publishes for
//   Linux (latest-linux.yml, named as electron-updater asks on this machine, and the AppImage it
//   lists, with its sha512 and size), the payload sent in timed chunks so the download lasts
//   long enough for electron-updater's progress events (it reports at most once a second, and
//   once more at the end);
// - createRealUpdater: electron-updater's AppImageUpdater, set up by main/electron/updater.ts's
//   configureUpdater exactly as the app sets up its autoUpdater, reading an app-update.yml like
//   the one electron-builder writes. Electron is the FAKE of fake-electron-for-updater.ts, put
//   in place of `electron` for electron-updater's files by a module-resolution hook;
// - recordUpdaterEvents: every UpdaterEvents event in order, and a bounded wait for the next.
//
// Why AppImageUpdater: of electron-updater's updaters it is the one whose whole path runs in
// Node without an OS installer: feed fetch (GenericProvider through ElectronHttpExecutor),
// latest*.yml parse, version comparison, download with progress, and the sha512 check
// (builder-util-runtime's DigestTransform) into its cache folder. MacUpdater hands the verified
// zip to Squirrel.Mac (electron.autoUpdater), which a fake would only pretend to run; its feed,
// download and sha512 steps are the same AppUpdater code exercised here.
//
// Process-wide effects (each test file runs in its own process): the hook maps `electron` for
// files under node_modules/electron-updater only; APPIMAGE and XDG_CACHE_HOME are set to temp
// paths (electron-updater reads both from the environment).
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire, registerHooks } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AppImageUpdater } from "electron-updater";
import { createLogger, type LogRecord, type Logger } from "../../main/core/logger.ts";
import type { UpdaterEvents, UpdaterLike } from "../../main/core/updates/updater-port.ts";
import { configureUpdater } from "../../main/electron/updater.ts";
import { fakeAppState } from "./fake-electron-for-updater.ts";

const FAKE_ELECTRON = pathToFileURL(join(import.meta.dirname, "fake-electron-for-updater.ts")).href;
let hooked = false;

/** Maps `electron`, as required by electron-updater's own files, to the FAKE; nothing else changes. */
export function fakeElectronForUpdater(): void {
  if (hooked) return;
  hooked = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === "electron" && /[\\/]node_modules[\\/]electron-updater[\\/]/.test(context.parentURL ?? "")) {
        return { url: FAKE_ELECTRON, format: "module", shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}

/** The feed file electron-updater asks for here (its Provider: "-linux" plus the arch unless x64, "-mac" on macOS). */
export function channelFileName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  if (platform === "linux") return `latest-linux${arch === "x64" ? "" : `-${arch}`}.yml`;
  return platform === "darwin" ? "latest-mac.yml" : "latest.yml";
}

export type LocalFeedOptions = {
  /** The version latest*.yml announces. */
  version: string;
  /** Payload size (random bytes; default 1 MiB). */
  size?: number;
  /** Change bytes of the payload after its sha512 went into latest*.yml (same size). */
  tamper?: boolean;
  /** The payload is sent in this many chunks... (default 12) */
  chunks?: number;
  /** ...this far apart (default 120 ms: about 1.4 s in all, so one progress event comes before the last). */
  chunkDelayMs?: number;
};

export type LocalFeed = {
  /** The feed's base URL, `http://127.0.0.1:PORT/`. */
  url: string;
  dir: string;
  fileName: string;
  /** What latest*.yml says of the payload: sha512 (base64) and size. */
  sha512: string;
  size: number;
  /** The bytes the yml describes (before any tampering). */
  payload: Buffer;
  /** Request paths in order, without the query (electron-updater adds ?noCache=…). */
  requests: string[];
  close(): Promise<void>;
};

/** A local update feed on 127.0.0.1 (a free port) serving latest*.yml and the AppImage it names. */
export async function startLocalFeed(options: LocalFeedOptions): Promise<LocalFeed> {
  const dir = mkdtempSync(join(tmpdir(), "pd-update-feed-"));
  const fileName = `Progress-Desk-${options.version}.AppImage`;
  const payload = randomBytes(options.size ?? 1024 * 1024);
  const sha512 = createHash("sha512").update(payload).digest("base64");
  const channelFile = channelFileName();
  // The shape electron-builder writes (files with url, sha512, size; path and sha512 repeated
  // for older updaters; a release date).
  const yml = [
    `version: ${options.version}`,
    "files:",
    `  - url: ${fileName}`,
    `    sha512: ${sha512}`,
    `    size: ${payload.length}`,
    `path: ${fileName}`,
    `sha512: ${sha512}`,
    "releaseDate: '2026-12-06T00:00:00.000Z'",
    "",
  ].join("\n");
  writeFileSync(join(dir, channelFile), yml);
  const served = Buffer.from(payload);
  if (options.tamper) {
    for (let i = 0; i < served.length; i += 4096) served[i] = (served[i]! + 1) % 256;
  }
  writeFileSync(join(dir, fileName), served);

  const chunks = Math.max(1, options.chunks ?? 12);
  const delay = options.chunkDelayMs ?? 120;
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    requests.push(path);
    if (path === `/${channelFile}`) {
      res.writeHead(200, { "content-type": "text/yaml", "content-length": Buffer.byteLength(yml) });
      res.end(yml);
      return;
    }
    if (path === `/${fileName}`) {
      const bytes = readFileSync(join(dir, fileName));
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
      const step = Math.ceil(bytes.length / chunks);
      let offset = 0;
      const send = (): void => {
        if (res.destroyed) return;
        const end = Math.min(offset + step, bytes.length);
        res.write(bytes.subarray(offset, end));
        offset = end;
        if (offset >= bytes.length) {
          res.end();
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, delay);
        timers.add(timer);
      };
      send();
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    dir,
    fileName,
    sha512,
    size: payload.length,
    payload,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of a feed that is down: a loopback port that was free a moment ago and is closed now. */
export async function closedFeedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

export type RealUpdater = {
  /** electron-updater's AppImageUpdater as the update model sees it. */
  updater: UpdaterLike;
  /** Where electron-updater keeps downloads for this app (pending/ holds a verified update). */
  cacheDir: string;
  /** What it logged, through our logger. */
  log: LogRecord[];
  close(): void;
};

let processSetUp = false;

/**
 * This process as a running AppImage, as electron-updater sees one: APPIMAGE names a file (the
 * "running AppImage", which no test installs over) and XDG_CACHE_HOME a temp folder (electron-
 * updater's download cache on Linux). Once per process; removed when it exits.
 */
export function fakeAppImageProcess(): void {
  if (processSetUp) return;
  processSetUp = true;
  const shared = mkdtempSync(join(tmpdir(), "pd-updater-process-"));
  writeFileSync(join(shared, "Progress-Desk-current.AppImage"), "not really an AppImage");
  process.env.APPIMAGE = join(shared, "Progress-Desk-current.AppImage");
  process.env.XDG_CACHE_HOME = join(shared, "cache");
  process.once("exit", () => rmSync(shared, { recursive: true, force: true }));
}

/**
 * electron-updater's real AppImageUpdater for an app at `currentVersion` whose app-update.yml
 * names the generic feed at `feedUrl`, set up by the app's own configureUpdater (autoDownload
 * off, no downgrades). Create one at a time: the FAKE app's version is read in the constructor.
 */
export function createRealUpdater(feedUrl: string, currentVersion: string, options: { logger?: Logger } = {}): RealUpdater {
  fakeElectronForUpdater();
  const root = mkdtempSync(join(tmpdir(), "pd-updater-"));
  fakeAppImageProcess();
  const cacheDirName = `progress-desk-updater-${root.slice(-6)}`;
  const configPath = join(root, "app-update.yml");
  // What electron-builder writes into the app's resources for a generic feed.
  writeFileSync(configPath, `provider: generic\nurl: ${feedUrl}\nupdaterCacheDirName: ${cacheDirName}\n`);
  mkdirSync(join(root, "user-data"));
  Object.assign(fakeAppState, { version: currentVersion, isPackaged: true, appPath: root, userData: join(root, "user-data") });

  const log: LogRecord[] = [];
  const logger = options.logger ?? createLogger({ sink: (r) => log.push(r), level: "debug" });
  const require = createRequire(import.meta.url);
  const { AppImageUpdater: Updater } = require("electron-updater") as { AppImageUpdater: new () => AppImageUpdater };
  const real = new Updater();
  // electron-updater's setter for where app-update.yml is (its own tests use it); the app reads
  // it from process.resourcesPath, which plain Node has not got.
  real.updateConfigPath = configPath;
  // The payload is random bytes with no block map inside, so a differential download could only
  // fail and fall back: download in full, the path every first install of an update takes.
  real.disableDifferentialDownload = true;
  const updater = configureUpdater(real, logger);
  return {
    updater,
    cacheDir: join(process.env.XDG_CACHE_HOME!, cacheDirName),
    log,
    close: () => {
      real.removeAllListeners();
      rmSync(root, { recursive: true, force: true });
      rmSync(join(process.env.XDG_CACHE_HOME!, cacheDirName), { recursive: true, force: true });
    },
  };
}

export type UpdaterEventName = keyof UpdaterEvents;
export type RecordedUpdaterEvent = { [E in UpdaterEventName]: { event: E; args: Parameters<UpdaterEvents[E]> } }[UpdaterEventName];

const EVENTS: UpdaterEventName[] = [
  "checking-for-update",
  "update-available",
  "update-not-available",
  "download-progress",
  "update-downloaded",
  "error",
];

export type UpdaterEventLog = {
  /** Every event so far, in order, with its arguments as electron-updater gave them. */
  readonly events: RecordedUpdaterEvent[];
  names(): UpdaterEventName[];
  /** The first recorded `event` (already seen, or the next to come); fails after `timeoutMs`. */
  waitFor<E extends UpdaterEventName>(event: E, timeoutMs?: number): Promise<Parameters<UpdaterEvents[E]>>;
  /**
   * Emits the recorded events, in order and with their arguments, on `target`: a FAKE updater
   * (an EventEmitter standing in for UpdaterLike) whose listeners are an update model's.
   */
  replay(target: { emit(event: string, ...args: unknown[]): unknown }): void;
};

/** Records what `updater` reports, from now on, in order. */
export function recordUpdaterEvents(updater: UpdaterLike): UpdaterEventLog {
  const events: RecordedUpdaterEvent[] = [];
  const waiters = new Set<() => void>();
  for (const event of EVENTS) {
    updater.on(event, ((...args: never[]) => {
      events.push({ event, args } as unknown as RecordedUpdaterEvent);
      for (const wake of [...waiters]) wake();
    }) as UpdaterEvents[typeof event]);
  }
  return {
    events,
    names: () => events.map((e) => e.event),
    waitFor: (event, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const look = (): boolean => {
          const found = events.find((e) => e.event === event);
          if (!found) return false;
          resolve(found.args as never);
          return true;
        };
        if (look()) return;
        const wake = (): void => {
          if (!look()) return;
          waiters.delete(wake);
          clearTimeout(timer);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for "${event}"; events so far: ${events.map((e) => e.event).join(", ") || "none"}`,
            ),
          );
        }, timeoutMs);
        waiters.add(wake);
      }),
    replay: (target) => {
      for (const { event, args } of events) target.emit(event, ...args);
    },
  };
}
