// The thin adapter between the shell's update model and electron-updater: it decides whether
// this build can update (main/core/updates/availability.ts, from facts read here) before
// anything is created, and creates electron-updater's autoUpdater only when asked. Loading
// electron-updater requires `electron`, so it happens in create(), never at import: the shell's
// tests never load it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { AppUpdater } from "electron-updater";
import type { AppUpdaterEvents } from "electron-updater/out/AppUpdater.js";
import type { Logger } from "../core/logger.ts";
import { updateAvailability, type AvailabilityFacts, type BuildRecord } from "../core/updates/availability.ts";
import type { UpdateAvailability, UpdaterEvents, UpdaterLike } from "../core/updates/updater-port.ts";

// AppUpdater's typed `on` names more events than the port, so TypeScript cannot match the two
// generic methods; this fails to compile instead if an event the port names ever carries other
// arguments than electron-updater's.
type Holds<T extends true> = T;
type _PortEventsMatchElectronUpdater = Holds<
  { [E in keyof UpdaterEvents]: Parameters<AppUpdaterEvents[E]> extends Parameters<UpdaterEvents[E]> ? true : false }[keyof UpdaterEvents]
>;

export type UpdaterHost = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Electron's app.isPackaged. */
  isPackaged: boolean;
  /** Electron's process.resourcesPath: where electron-builder puts app-update.yml and package-type. */
  resourcesPath: string | undefined;
  /** The folder holding the app's package.json (inside app.asar when packaged). */
  appRoot: string;
  logger: Logger;
  /** A file's text, or null when it cannot be read (default: node:fs). */
  readText?: (path: string) => string | null;
  /** electron-updater's autoUpdater for this platform (default: required on first use). */
  loadAutoUpdater?: () => AppUpdater;
};

function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The signing record scripts/dist.ts leaves in the packaged package.json; null when there is none. */
export function buildRecord(packageJson: string | null): BuildRecord | null {
  if (packageJson === null) return null;
  try {
    const record = (JSON.parse(packageJson) as { progressDeskBuild?: unknown }).progressDeskBuild;
    return record && typeof record === "object" ? (record as BuildRecord) : null;
  } catch {
    return null;
  }
}

/** What updateAvailability decides from, read from this build's files and environment. */
export function availabilityFacts(host: UpdaterHost): AvailabilityFacts {
  const read = host.readText ?? readTextOrNull;
  const resources = host.isPackaged && host.resourcesPath ? host.resourcesPath : null;
  return {
    platform: host.platform,
    isPackaged: host.isPackaged,
    updateConfig: resources === null ? null : read(join(resources, "app-update.yml")),
    build: buildRecord(read(join(host.appRoot, "package.json"))),
    appImage: host.env.APPIMAGE,
    linuxPackageType: resources === null ? null : (read(join(resources, "package-type"))?.trim() ?? null) || null,
  };
}

/** electron-updater's log lines through ours (it passes strings, sometimes errors). */
export function updaterLogger(logger: Logger): {
  info(m: unknown): void;
  warn(m: unknown): void;
  error(m: unknown): void;
  debug(m: unknown): void;
} {
  const text = (m: unknown) => `updater: ${m instanceof Error ? (m.stack ?? m.message) : String(m)}`;
  return {
    info: (m) => logger.info(text(m)),
    warn: (m) => logger.warn(text(m)),
    error: (m) => logger.error(text(m)),
    debug: (m) => logger.debug(text(m)),
  };
}

/**
 * Sets an electron-updater AppUpdater up the way the update model drives it: the model asks
 * for the download (autoDownload off), an older feed version is never installed, and the
 * sha512 check of every download is electron-updater's own, left as it is.
 */
export function configureUpdater(updater: AppUpdater, logger: Logger): UpdaterLike {
  updater.logger = updaterLogger(logger);
  updater.autoDownload = false;
  updater.allowDowngrade = false;
  return updater as unknown as UpdaterLike;
}

function requireAutoUpdater(): AppUpdater {
  const require = createRequire(import.meta.url);
  return (require("electron-updater") as typeof import("electron-updater")).autoUpdater;
}

/** ShellDeps.updater: whether this build can update, and the real updater when it can. */
export function electronUpdater(host: UpdaterHost): { availability: UpdateAvailability; create(): UpdaterLike } {
  const availability = updateAvailability(availabilityFacts(host));
  if (!availability.enabled) host.logger.info("updates off", { reason: availability.reason });
  return {
    availability,
    create: () => {
      if (!availability.enabled) throw new Error(`updates are off: ${availability.reason}`);
      return configureUpdater((host.loadAutoUpdater ?? requireAutoUpdater)(), host.logger);
    },
  };
}
