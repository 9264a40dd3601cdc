// The activity tracker's options: what a caller may set, the defaults, and how a set of
// options (at start, or changed later by Settings) becomes the one in force. Unset fields
// keep their value; the line bound is clamped to what a session stores.
import type { ActivityMode, CommandText } from "../../../common/model.ts";
import { DEFAULT_STALL_OPTIONS, type StallOptions } from "../stall-detector.ts";

export type ActivityOptions = {
  now: () => number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  schedule: (fn: () => void, ms: number) => () => void;
  /** Default `all`. */
  mode?: ActivityMode;
  /** Default `raw`. */
  commandText?: CommandText;
  /** Lines kept per session (default 8, at most 50). */
  maxLines?: number;
  /** Characters per label (default 120, the progress-draft budget). */
  lineBudget?: number;
  /**
   * Within a burst, at most one emit per session per this interval after the previous one (default 250 ms);
   * the last state is always delivered.
   */
  minIntervalMs?: number;
  /** A change after this long without changes starts a burst and is emitted at once (default 125 ms). */
  burstGapMs?: number;
  /** How long the last run's lines stay after it ended (default 5 min, checked by `tick()`). */
  retainAfterEndMs?: number;
  /** Sessions tracked at once (default 500); the longest-idle finished session is dropped first. */
  maxSessions?: number;
  stall?: Partial<StallOptions>;
};

/** The options Settings may change while the tracker runs. */
export type ActivityDisplayOptions = Partial<Omit<ActivityOptions, "now" | "schedule">>;

/** The options in force: every field set, the stall detector's over its defaults. */
export type ActivitySettings = Required<Omit<ActivityOptions, "stall">> & { stall: StallOptions };

export const ACTIVITY_DEFAULTS = {
  mode: "all" as ActivityMode,
  commandText: "raw" as CommandText,
  maxLines: 8,
  lineBudget: 120,
  minIntervalMs: 250,
  burstGapMs: 125,
  retainAfterEndMs: 5 * 60_000,
  maxSessions: 500,
};

const MAX_LINES_LIMIT = 50;

export function resolveOptions(options: ActivityOptions): ActivitySettings {
  const opts = {
    ...ACTIVITY_DEFAULTS,
    ...definedOnly(options),
    stall: { ...DEFAULT_STALL_OPTIONS, ...definedOnly(options.stall ?? {}) },
  } as ActivitySettings;
  opts.maxLines = clampLines(opts.maxLines);
  return opts;
}

/** Lays a change over the options in force, in place: the tracker keeps one options object. */
export function applyOptionChange(opts: ActivitySettings, change: ActivityDisplayOptions): void {
  const { stall, ...rest } = change;
  Object.assign(opts, definedOnly(rest));
  if (stall) opts.stall = { ...opts.stall, ...definedOnly(stall) };
  opts.maxLines = clampLines(opts.maxLines);
}

function clampLines(n: number): number {
  return Math.min(MAX_LINES_LIMIT, Math.max(1, Math.floor(Number.isFinite(n) ? n : ACTIVITY_DEFAULTS.maxLines)));
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
