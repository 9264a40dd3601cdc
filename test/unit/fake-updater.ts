// A FAKE updater (updater-port.ts's UpdaterLike): an event emitter that records what it was asked
// to do and the flags it was given. Nothing is fetched: the test plays the feed's part by emitting
// electron-updater's events with `emit`.
import { EventEmitter } from "node:events";
import type { UpdaterEvents, UpdaterLike } from "../../main/core/updates/updater-port.ts";

export class FakeUpdater implements UpdaterLike {
  private readonly emitter = new EventEmitter();
  autoDownload = true;
  autoInstallOnAppQuit = true;
  allowPrerelease = false;
  allowDowngrade = false;
  checks = 0;
  downloads = 0;
  installs = 0;
  /** What checkForUpdates and downloadUpdate answer (a rejection plays a failure without its event). */
  answer: () => Promise<unknown> = () => Promise.resolve(null);

  on<E extends keyof UpdaterEvents>(event: E, listener: UpdaterEvents[E]): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return this;
  }
  removeListener<E extends keyof UpdaterEvents>(event: E, listener: UpdaterEvents[E]): this {
    this.emitter.removeListener(event, listener as (...args: unknown[]) => void);
    return this;
  }
  emit<E extends keyof UpdaterEvents>(event: E, ...args: Parameters<UpdaterEvents[E]>): void {
    this.emitter.emit(event, ...args);
  }
  listenerCount(event: keyof UpdaterEvents): number {
    return this.emitter.listenerCount(event);
  }
  checkForUpdates(): Promise<unknown> {
    this.checks += 1;
    return this.answer();
  }
  downloadUpdate(): Promise<unknown> {
    this.downloads += 1;
    return this.answer();
  }
  quitAndInstall(): void {
    this.installs += 1;
  }

  /** A feed that offers `version`: checking, then available. */
  offer(version: string): void {
    this.emit("checking-for-update");
    this.emit("update-available", { version, files: [{ url: `app-${version}.zip`, sha512: "x" }] });
  }
}

/** electron-updater's error for a download whose sha512 differs from the feed's. */
export function checksumError(): Error {
  return Object.assign(new Error("sha512 checksum mismatch, expected abc, got def"), { code: "ERR_CHECKSUM_MISMATCH" });
}

/** A feed host that does not resolve. */
export function offlineError(): Error {
  return Object.assign(new Error("getaddrinfo ENOTFOUND updates.example.invalid"), { code: "ENOTFOUND" });
}
