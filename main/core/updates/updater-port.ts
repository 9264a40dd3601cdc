// What the update model needs of an updater: the shape of electron-updater's AppUpdater that we
// use, so the model and the shell are tested with a fake and the real one is passed in by
// main/electron. Events and argument shapes are electron-updater's own (6.x).

export type UpdateFileInfo = { url: string; sha512: string; size?: number };

/** electron-updater's UpdateInfo: what a feed's latest*.yml says. */
export type UpdateInfoLike = {
  version: string;
  files?: UpdateFileInfo[];
  releaseDate?: string;
  releaseName?: string | null;
  releaseNotes?: unknown;
};

/** electron-updater's ProgressInfo, sent with `download-progress`. */
export type DownloadProgressLike = {
  total: number;
  transferred: number;
  percent: number;
  bytesPerSecond: number;
  delta?: number;
};

export type UpdaterEvents = {
  "checking-for-update": () => void;
  "update-available": (info: UpdateInfoLike) => void;
  "update-not-available": (info: UpdateInfoLike) => void;
  "download-progress": (progress: DownloadProgressLike) => void;
  "update-downloaded": (info: UpdateInfoLike & { downloadedFile?: string }) => void;
  error: (error: Error, message?: string) => void;
};

export type UpdaterLike = {
  on<E extends keyof UpdaterEvents>(event: E, listener: UpdaterEvents[E]): unknown;
  removeListener?<E extends keyof UpdaterEvents>(event: E, listener: UpdaterEvents[E]): unknown;
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowPrerelease: boolean;
  allowDowngrade: boolean;
};

/**
 * Whether this build can update at all, decided by the shell before any updater exists:
 * a source checkout, a build without a feed, an ad hoc signed macOS build and a Linux package
 * electron-updater cannot replace are each disabled with a reason the person can read.
 */
export type UpdateAvailability = { enabled: true; feed: string } | { enabled: false; reason: string };
