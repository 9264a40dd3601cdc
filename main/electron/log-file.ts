// The app's log file, through electron-log: one file under the OS's logs folder
// (app.getPath("logs")), rotated by size to `main.old.log`, so a bug report can attach it.
// electron-log arrives as a parameter (app.ts imports its Electron entry; tests pass a fake
// or the Node entry): this file has no electron import at run time. Records reach it already
// redacted and formatted by the core's logger. The log holds session keys and Gateway URLs:
// the folder is 0700 and the files 0600, also ones an earlier version made 0644.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createLogger, formatFields, type LogLevel, type Logger } from "../core/logger.ts";

export const LOG_FILE_NAME = "main.log";
/** Past this the file is moved to main.old.log and a new one started: at most about twice this on disk. */
export const MAX_LOG_BYTES = 1024 * 1024;
/** The rotated file electron-log renames the log to (its name, `.old` before the extension). */
export const OLD_LOG_FILE_NAME = "main.old.log";
export const LOG_FILE_MODE = 0o600;
export const LOG_FOLDER_MODE = 0o700;

/** The slice of electron-log this module configures and writes through. */
export type ElectronLogLike = {
  transports: {
    file: {
      level: string | false;
      maxSize: number;
      format: unknown;
      resolvePathFn: (...args: never[]) => string;
      /** How electron-log opens the file; its default mode is 0666 (0644 after the usual umask). */
      writeOptions?: { flag?: string; mode?: number; encoding?: string };
    };
    console: { level: string | false };
  };
} & Record<LogLevel, (text: string) => void>;

export type FileLogOptions = {
  logsDir: string;
  /** The lowest level written (default info; debug for troubleshooting). */
  level?: LogLevel;
  maxBytes?: number;
  /** Also print warnings and errors on the terminal the app was started from (npm start). */
  console?: boolean;
};

/** The logs folder made (or tightened to) 0700, and log files already there tightened to 0600. */
export function secureLogFolder(logsDir: string): void {
  mkdirSync(logsDir, { recursive: true, mode: LOG_FOLDER_MODE });
  chmodSync(logsDir, LOG_FOLDER_MODE);
  for (const name of [LOG_FILE_NAME, OLD_LOG_FILE_NAME]) {
    const path = join(logsDir, name);
    if (existsSync(path)) chmodSync(path, LOG_FILE_MODE);
  }
}

export function fileLogger(log: ElectronLogLike, opts: FileLogOptions): { logger: Logger; file: string } {
  const file = join(opts.logsDir, LOG_FILE_NAME);
  let unsecured: unknown = null;
  try {
    secureLogFolder(opts.logsDir);
  } catch (err) {
    unsecured = err; // told through the logger below; electron-log reports a folder it cannot write
  }
  // New files (the first one, and each one after a rotation) are made 0600.
  log.transports.file.writeOptions = { flag: "a", mode: LOG_FILE_MODE, encoding: "utf8" };
  log.transports.file.resolvePathFn = () => file;
  log.transports.file.maxSize = opts.maxBytes ?? MAX_LOG_BYTES;
  log.transports.file.level = "debug"; // the core's logger decides what is written
  log.transports.file.format = "[{y}-{m}-{d} {h}:{i}:{s}.{ms}] [{level}] {text}";
  log.transports.console.level = opts.console ? "warn" : false;
  const logger = createLogger({
    level: opts.level ?? "info",
    // One record, one line: a newline in a message would read as a second record.
    sink: (r) => log[r.level](`${r.message}${formatFields(r.fields)}`.replace(/\r?\n/g, "\\n")),
  });
  if (unsecured !== null) logger.warn("could not make the log folder private", { folder: opts.logsDir, error: String(unsecured) });
  return { logger, file };
}
