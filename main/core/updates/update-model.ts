// U1–U5: the app's own updates, as a model driven by the updater's events (updater-port.ts).
// Pure: no Electron; the shell forwards the updater's events here and draws what view() says.
//
// - Checks at start, every CHECK_EVERY_MS and on wake (unless one ran within WAKE_MIN_MS) while
//   automatic updates are on; the
//   person's "Check for Updates" works either way, at most once per MANUAL_CHECK_MIN_MS.
// - Downloads are asked for by this model (autoDownload stays false): only here can an offer be
//   refused before a byte is fetched — an older version (no downgrade), a version whose checksum
//   failed, or a find of an automatic check while automatic updates are off.
// - Never while the person is busy (answering a needs-you notice, a Gateway reconnecting): a
//   check waits BUSY_RETRY_MS and tries again; an install waits until the person is free.
// - Verified: sha512 is electron-updater's default and nothing here turns it off. A checksum
//   mismatch refuses that version, told once; it is not downloaded again until the person
//   checks by hand (or the app restarts).
// - An unreachable feed backs off quietly (capped at the regular period): an automatic check
//   leaves only a quiet error for diagnostics; a manual one says why it failed.
// - Never a dialog: the tray's "Restart to Update" and the popover's footer ask; otherwise the
//   update installs when the app quits (autoInstallOnAppQuit while automatic updates are on).
import type { UpdateChannel, UpdateCheckResult, UpdateState, UpdateView } from "../../../common/updates.ts";
import { backoffDelay, type BackoffPolicy } from "../backoff.ts";
import type { DownloadProgressLike, UpdateAvailability, UpdateInfoLike, UpdaterEvents, UpdaterLike } from "./updater-port.ts";
import { isNewer } from "./version.ts";

export const CHECK_EVERY_MS = 6 * 60 * 60_000;
/** A wake (resume, unlock) checks only when the last check is at least this old: unlocking is frequent. */
export const WAKE_MIN_MS = 60 * 60_000;
/** A check the person's business put off is tried again this much later. */
export const BUSY_RETRY_MS = 60_000;
/** An install the person's business put off is tried again this much later. */
export const INSTALL_RETRY_MS = 5_000;
/** A page (or the tray) may ask for a check at most this often; calls in between only read the state. */
export const MANUAL_CHECK_MIN_MS = 30_000;
/** How long the result of a manual check stays in the menu. */
export const RESULT_SHOWN_MS = 60_000;
/** An unreachable feed: 5 min, 10 min, 20 min … up to the regular period. */
export const FEED_BACKOFF: BackoffPolicy = { initialMs: 5 * 60_000, maxMs: CHECK_EVERY_MS, multiplier: 2, jitter: 0.2 };

export type UpdatePrefs = { automatic: boolean; beta: boolean };

export type UpdateModelOptions = {
  currentVersion: string;
  availability: UpdateAvailability;
  /** Makes the updater; called once, and only when updates are available. */
  createUpdater: () => UpdaterLike;
  prefs: () => UpdatePrefs;
  /** Why not now (a needs-you notice is open, a Gateway is reconnecting), or null when the person is free. */
  busy: () => string | null;
  /** Saves everything before the updater quits the app to install (the shell's shutdown path). */
  beforeInstall: () => Promise<void>;
  /**
   * The updater could not quit and install after beforeInstall stopped everything: the app must
   * end on its own rather than stay without a tray (the update then installs on the next start's quit).
   */
  installFailed?: () => void;
  now: () => number;
  schedule: (fn: () => void, ms: number) => () => void;
  random?: () => number;
  log?: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void };
};

type ErrorKind = "checksum" | "network" | "other";

/** What kind of failure an updater error is: a checksum mismatch, an unreachable feed, or anything else. */
export function classifyUpdateError(err: unknown): { kind: ErrorKind; reason: string } {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; statusCode?: unknown };
  const message = typeof e.message === "string" ? e.message : String(err);
  const code = typeof e.code === "string" ? e.code : "";
  if (code === "ERR_CHECKSUM_MISMATCH" || /sha512|checksum/i.test(message)) {
    return { kind: "checksum", reason: "its checksum did not match the release" };
  }
  const netCode = /\b(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b/.exec(`${code} ${message}`)?.[1];
  const chromium = /net::ERR_[A-Z_]+/.exec(message)?.[0];
  const status =
    typeof e.statusCode === "number" && e.statusCode >= 500 && e.statusCode < 600
      ? String(e.statusCode)
      : /(?:HttpError:?|status(?:Code)?:?|HTTP\/?[\d.]*)\s*(5\d\d)\b/i.exec(message)?.[1];
  if (netCode ?? chromium) return { kind: "network", reason: `the update server could not be reached (${netCode ?? chromium})` };
  if (status) return { kind: "network", reason: `the update server answered ${status}` };
  const firstLine = message.split("\n")[0]?.trim() ?? "";
  return { kind: "other", reason: firstLine.length > 0 ? firstLine.slice(0, 160) : "the updater failed" };
}

export class UpdateModel {
  private readonly opts: UpdateModelOptions;
  /** The updater (null where updates are disabled): the shell forwards its events here. */
  readonly updater: UpdaterLike | null;
  private state: UpdateState;
  /** The cycle under way was asked for by the person. */
  private manual = false;
  /** The version being downloaded. */
  private offered: string | null = null;
  /** Versions whose checksum failed this run (U2). */
  private readonly refused = new Set<string>();
  private quietError: string | null = null;
  private feedFailures = 0;
  private result: UpdateCheckResult | null = null;
  private lastManualAt = Number.NEGATIVE_INFINITY;
  private lastCheckAt = Number.NEGATIVE_INFINITY;
  private automatic: boolean;
  private cancelNext: (() => void) | null = null;
  private cancelResult: (() => void) | null = null;
  private cancelInstall: (() => void) | null = null;
  private installing = false;
  private stopped = false;
  private readonly listeners = new Set<() => void>();

  constructor(opts: UpdateModelOptions) {
    this.opts = opts;
    this.automatic = opts.prefs().automatic;
    if (opts.availability.enabled) {
      this.updater = opts.createUpdater();
      this.state = { state: "idle" };
      this.applyPrefs();
    } else {
      this.updater = null;
      this.state = { state: "disabled", reason: opts.availability.reason };
    }
  }

  // ——— what the shell calls ———

  /** The first check (automatic updates on). */
  start(): void {
    this.autoCheck();
  }

  /** Settings changed: the updater's flags follow; turning automatic updates off stops the schedule. */
  applyPrefs(): void {
    const updater = this.updater;
    if (!updater) return;
    const prefs = this.opts.prefs();
    // The model decides every download; a downgrade is never allowed (U3, U4).
    updater.autoDownload = false;
    updater.allowDowngrade = false;
    updater.allowPrerelease = prefs.beta;
    updater.autoInstallOnAppQuit = prefs.automatic;
    const was = this.automatic;
    this.automatic = prefs.automatic;
    if (!prefs.automatic) {
      this.cancelNext?.();
      this.cancelNext = null;
    } else if (!was) this.autoCheck();
    if (was !== prefs.automatic) this.changed();
  }

  /** The machine woke or was unlocked: check now (automatic updates on), unless a check ran within WAKE_MIN_MS. */
  wake(): void {
    if (this.opts.now() - this.lastCheckAt < WAKE_MIN_MS) return;
    this.autoCheck();
  }

  /**
   * The person asked (tray, Settings, a page): check now unless a check ran less than
   * MANUAL_CHECK_MIN_MS ago or one is under way. Clears the versions refused this run.
   */
  checkNow(): UpdateView {
    if (!this.updater || this.stopped) return this.view();
    const t = this.opts.now();
    if (t - this.lastManualAt < MANUAL_CHECK_MIN_MS) return this.view();
    this.lastManualAt = t;
    if (this.state.state === "ready") {
      this.showResult("ready", `Version ${this.state.version} is ready — restart to update`);
      return this.view();
    }
    if (this.state.state === "checking" || this.state.state === "downloading") {
      this.manual = true;
      return this.view();
    }
    const busy = this.opts.busy();
    if (busy !== null) {
      this.showResult("failed", `Update failed: not now, ${busy}`);
      return this.view();
    }
    this.refused.clear();
    this.runCheck(true);
    return this.view();
  }

  /**
   * Restart to install (U5): only when an update is ready. Waits while the person is busy;
   * saves everything (beforeInstall), then the updater quits and installs. True when accepted.
   */
  install(): boolean {
    if (!this.updater || this.state.state !== "ready") return false;
    if (this.installing) return true;
    const busy = this.opts.busy();
    if (busy !== null) {
      this.cancelInstall ??= this.opts.schedule(() => {
        this.cancelInstall = null;
        this.install();
      }, INSTALL_RETRY_MS);
      return true;
    }
    this.installing = true;
    const updater = this.updater;
    void this.opts.beforeInstall().then(
      () => {
        try {
          updater.quitAndInstall();
        } catch (err) {
          this.opts.log?.warn("the updater could not restart into the update", { error: err });
          this.opts.installFailed?.();
        }
      },
      (err: unknown) => {
        this.installing = false;
        this.opts.log?.warn("could not save before installing the update", { error: err });
      },
    );
    return true;
  }

  view(): UpdateView {
    const prefs = this.opts.prefs();
    const channel: UpdateChannel = prefs.beta ? "beta" : "stable";
    return {
      ...this.state,
      currentVersion: this.opts.currentVersion,
      channel,
      automatic: this.updater !== null && prefs.automatic,
      result: this.result,
      quietError: this.quietError,
    };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  dispose(): void {
    this.stopped = true;
    this.cancelNext?.();
    this.cancelResult?.();
    this.cancelInstall?.();
    this.cancelNext = this.cancelResult = this.cancelInstall = null;
    this.listeners.clear();
  }

  // ——— the updater's events ———

  onChecking(): void {
    if (this.state.state === "checking") return;
    if (this.state.state === "downloading" || this.state.state === "ready") return;
    this.set({ state: "checking" });
  }

  onAvailable(info: UpdateInfoLike): void {
    const version = info.version;
    // U4: never a downgrade, nor the running version again.
    if (!isNewer(version, this.opts.currentVersion)) {
      this.opts.log?.info("an update that is not newer was ignored", { offered: version, current: this.opts.currentVersion });
      this.settle({ state: "idle" }, this.manual ? ["up-to-date", "Up to date"] : null);
      return;
    }
    // U2: a version whose checksum failed is not fetched again this run.
    if (this.refused.has(version)) {
      this.settle(refusedState(version), null);
      return;
    }
    if (!this.automatic && !this.manual) {
      this.settle({ state: "available", version }, null);
      return;
    }
    this.offered = version;
    // The person's check stays theirs through the download: a failure there is told to them too.
    if (this.manual) this.showResult("found", `Update found: ${version} — downloading`);
    this.set({ state: "downloading", version, percent: 0, transferred: 0, total: 0 });
    const updater = this.updater;
    if (updater) void updater.downloadUpdate().catch((err: unknown) => this.failedCall(err));
  }

  onNotAvailable(): void {
    this.feedFailures = 0;
    this.quietError = null;
    this.settle({ state: "idle" }, this.manual ? ["up-to-date", "Up to date"] : null);
  }

  onProgress(p: DownloadProgressLike): void {
    const version = this.offered;
    if (version === null || (this.state.state !== "downloading" && this.state.state !== "available")) return;
    const percent = Math.max(0, Math.min(100, Math.round(p.percent)));
    this.set({ state: "downloading", version, percent, transferred: p.transferred, total: p.total });
  }

  onDownloaded(info: UpdateInfoLike): void {
    this.offered = null;
    this.feedFailures = 0;
    this.quietError = null;
    this.manual = false;
    this.set({ state: "ready", version: info.version });
    this.scheduleNext(CHECK_EVERY_MS);
  }

  onError(err: unknown): void {
    const { kind, reason } = classifyUpdateError(err);
    const manual = this.manual;
    if (kind === "checksum") {
      const version = this.offered;
      this.offered = null;
      if (version !== null) this.refused.add(version);
      this.opts.log?.warn("an update was refused: its checksum did not match", { version });
      this.settle(version === null ? { state: "error", reason: `The update was refused: ${reason}.` } : refusedState(version), [
        "failed",
        `Update failed: ${reason}`,
      ]);
      return;
    }
    this.offered = null;
    if (kind === "network") {
      this.feedFailures += 1;
      this.quietError = reason;
      this.opts.log?.info("update check failed", { reason, attempt: this.feedFailures });
      const delay = backoffDelay(this.feedFailures, FEED_BACKOFF, this.opts.random);
      // Quiet for an automatic check (U3): the state goes back to idle; a manual one says why.
      this.settle(
        manual ? { state: "error", reason: capitalise(reason) } : { state: "idle" },
        ["failed", `Update failed: ${reason}`],
        delay,
      );
      return;
    }
    this.opts.log?.warn("the updater failed", { reason });
    this.settle({ state: "error", reason: capitalise(reason) }, ["failed", `Update failed: ${reason}`]);
  }

  // ——— inside ———

  private autoCheck(): void {
    if (!this.updater || this.stopped || !this.opts.prefs().automatic) return;
    const s = this.state.state;
    if (s === "checking" || s === "downloading" || s === "ready") return this.scheduleNext(CHECK_EVERY_MS);
    if (this.opts.busy() !== null) return this.scheduleNext(BUSY_RETRY_MS);
    this.runCheck(false);
  }

  private runCheck(manual: boolean): void {
    const updater = this.updater;
    if (!updater) return;
    this.manual = manual;
    this.lastCheckAt = this.opts.now();
    this.cancelNext?.();
    this.cancelNext = null;
    this.set({ state: "checking" });
    void updater.checkForUpdates().catch((err: unknown) => this.failedCall(err));
  }

  /** A check or download whose promise failed without an `error` event (electron-updater sends both). */
  private failedCall(err: unknown): void {
    if (this.state.state === "checking" || this.state.state === "downloading") this.onError(err);
  }

  /** A cycle ended: the state, the person's result when they asked, and the next automatic check. */
  private settle(state: UpdateState, result: [UpdateCheckResult["kind"], string] | null, nextMs = CHECK_EVERY_MS): void {
    if (this.manual && result) this.showResult(result[0], result[1]);
    this.manual = false;
    this.set(state);
    this.scheduleNext(nextMs);
  }

  private scheduleNext(ms: number): void {
    this.cancelNext?.();
    this.cancelNext = null;
    if (!this.updater || this.stopped || !this.opts.prefs().automatic) return;
    this.cancelNext = this.opts.schedule(() => {
      this.cancelNext = null;
      this.autoCheck();
    }, ms);
  }

  private showResult(kind: UpdateCheckResult["kind"], text: string): void {
    this.result = { kind, text };
    this.cancelResult?.();
    this.cancelResult = this.opts.schedule(() => {
      this.cancelResult = null;
      this.result = null;
      this.changed();
    }, RESULT_SHOWN_MS);
    this.changed();
  }

  private set(state: UpdateState): void {
    this.state = state;
    this.changed();
  }

  private changed(): void {
    if (this.stopped) return;
    for (const l of [...this.listeners]) l();
  }
}

function refusedState(version: string): UpdateState {
  return { state: "error", reason: `Version ${version} was refused: its checksum did not match the release.` };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Hands each of the updater's events to the model; returns the way to stop. */
export function forwardUpdaterEvents(updater: UpdaterLike, model: UpdateModel): () => void {
  const handlers = {
    "checking-for-update": () => model.onChecking(),
    "update-available": (info: UpdateInfoLike) => model.onAvailable(info),
    "update-not-available": () => model.onNotAvailable(),
    "download-progress": (p: DownloadProgressLike) => model.onProgress(p),
    "update-downloaded": (info: UpdateInfoLike) => model.onDownloaded(info),
    error: (err: Error) => model.onError(err),
  } satisfies { [E in keyof UpdaterEvents]: UpdaterEvents[E] };
  for (const [event, handler] of Object.entries(handlers)) updater.on(event as keyof UpdaterEvents, handler as never);
  return () => {
    for (const [event, handler] of Object.entries(handlers)) updater.removeListener?.(event as keyof UpdaterEvents, handler as never);
  };
}
