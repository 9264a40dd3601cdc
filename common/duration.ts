// Durations for people: "45 s", "12 min", "1 h 4 min", and ranges ("10–20 min").
// One formatter for the CLI, notifications and (later) the pages, so they never disagree.

const MINUTE = 60_000;

/** A duration in words, to the minute past one minute (seconds would be false precision). */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < MINUTE) return `${Math.max(1, Math.round(ms / 1000))} s`;
  const minutes = Math.round(ms / MINUTE);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/**
 * A range in words: "about 10–20 min" when both ends fall in the same unit, else both
 * ends spelled out ("about 40 min–1 h 10 min"). Rounded outwards, never narrower than measured.
 */
export function humanRange(minMs: number, maxMs: number): string {
  if (!Number.isFinite(minMs) || !Number.isFinite(maxMs) || minMs < 0 || maxMs < minMs) return "—";
  if (maxMs < MINUTE) return "under a minute";
  const lo = Math.floor(minMs / MINUTE);
  const hi = Math.max(lo + 1, Math.ceil(maxMs / MINUTE));
  if (hi < 60) return lo === 0 ? `up to ${hi} min` : `about ${lo}–${hi} min`;
  return `about ${lo === 0 ? "0" : humanDuration(lo * MINUTE)}–${humanDuration(hi * MINUTE)}`;
}
