// The app's logger, as the core sees it: four levels, a message for people and structured
// fields for the rest. Where lines go is the entry point's choice (a rotated file in the app,
// stderr in `watch` and `host`): it passes a sink in and hands the logger to what it builds.
// Every record is redacted before any sink sees it, and the last lines are kept for the
// Settings page's "Copy diagnostics".
import { lineWithoutControls } from "../../common/control-chars.ts";
import { createRedactor, type Redactor } from "./log-redaction.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Readonly<Record<string, unknown>>;

/** One redacted record, as a sink receives it. */
export type LogRecord = { time: number; level: LogLevel; message: string; fields: LogFields };
export type LogSink = (record: LogRecord) => void;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The same logger, adding `fields` to every record (a Gateway id, say). */
  child(fields: LogFields): Logger;
  /** Registers a value no line may ever show, in whole or in part (a token, a URL secret). */
  protect(secret: string | null | undefined): void;
  /** The last lines logged at any level the sink would take, redacted, oldest first. */
  recent(): string[];
  /** `text` as a log line would show it (for diagnostics built outside the log). */
  redact(text: string): string;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

export type LoggerOptions = {
  sink: LogSink;
  /** The lowest level passed on (default info). */
  level?: LogLevel;
  /** How many recent lines to keep for diagnostics (default 200). */
  keep?: number;
  now?: () => number;
  /** For tests: a redactor of their own (the default is a fresh one). */
  redactor?: Redactor;
};

/** `12:03:04.567Z warn  message key=value key2="two words"`: one line, for people and grep. */
export function formatRecord(record: LogRecord): string {
  const time = new Date(record.time).toISOString().slice(11);
  return `${time} ${record.level.padEnd(5)} ${messageAndFields(record)}`;
}

/** `progress-desk: warn: message key=value`: a record on stderr. */
export function stderrLine(record: LogRecord): string {
  return `progress-desk: ${record.level}: ${messageAndFields(record)}\n`;
}

/** Messages and fields quote what a Gateway sent (errors, labels): shown in a terminal, never terminal control. */
function messageAndFields(record: LogRecord): string {
  return lineWithoutControls(`${record.message}${formatFields(record.fields)}`);
}

export function formatFields(fields: LogFields): string {
  let out = "";
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const text = typeof v === "string" ? (/^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)) : (JSON.stringify(v) ?? String(v));
    out += ` ${k}=${text}`;
  }
  return out;
}

export function createLogger(opts: LoggerOptions): Logger {
  const redactor = opts.redactor ?? createRedactor();
  const min = RANK[opts.level ?? "info"];
  const keep = opts.keep ?? 200;
  const now = opts.now ?? Date.now;
  const lines: string[] = [];

  const write = (level: LogLevel, message: string, base: LogFields, fields: LogFields | undefined): void => {
    if (RANK[level] < min) return;
    const record: LogRecord = {
      time: now(),
      level,
      message: redactor.text(message),
      fields: redactor.value(fields ? { ...base, ...fields } : base) as LogFields,
    };
    lines.push(formatRecord(record));
    if (lines.length > keep) lines.splice(0, lines.length - keep);
    try {
      opts.sink(record);
    } catch {
      // A log that cannot be written must not break what was being logged.
    }
  };

  const make = (base: LogFields): Logger => ({
    debug: (m, f) => write("debug", m, base, f),
    info: (m, f) => write("info", m, base, f),
    warn: (m, f) => write("warn", m, base, f),
    error: (m, f) => write("error", m, base, f),
    child: (fields) => make({ ...base, ...fields }),
    protect: (secret) => redactor.protect(secret),
    recent: () => [...lines],
    redact: (text) => redactor.text(text),
  });
  return make({});
}

/** A logger that writes nothing (tests, and code whose caller gave none). */
export const silentLogger: Logger = createLogger({ sink: () => undefined, level: "error", keep: 0 });

/**
 * Warnings and errors on stderr, for code built without a logger: what `process.emitWarning`
 * did before, through the same redaction.
 */
export function fallbackLogger(): Logger {
  return createLogger({
    sink: (r) => void process.stderr.write(stderrLine(r)),
    level: "warn",
    keep: 0,
  });
}
