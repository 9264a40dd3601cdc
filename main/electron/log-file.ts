// The app's log file, through electron-log: one file under the OS's logs folder
// (app.getPath("logs")), rotated by size to `main.old.log`, so a bug report can attach it.
// electron-log arrives as a parameter (app.ts imports its Electron entry; tests pass a fake
// or the Node entry): this file has no electron import at run time. Records reach it already
// redacted and formatted by the core's logger.
import { join } from "node:path";
import { createLogger, formatFields, type LogLevel, type Logger } from "../core/logger.ts";

export const LOG_FILE_NAME = "main.log";
/** Past this the file is moved to main.old.log and a new one started: at most about twice this on disk. */
export const MAX_LOG_BYTES = 1024 * 1024;

/** The slice of electron-log this module configures and writes through. */
export type ElectronLogLike = {
  transports: {
    file: { level: string | false; maxSize: number; format: unknown; resolvePathFn: (...args: never[]) => string };
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

export function fileLogger(log: ElectronLogLike, opts: FileLogOptions): { logger: Logger; file: string } {
  const file = join(opts.logsDir, LOG_FILE_NAME);
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
  return { logger, file };
}
