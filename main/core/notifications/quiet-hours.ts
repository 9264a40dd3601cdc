// Quiet hours: [start, end) in local time, wrapping midnight; start = end means none.
// Milestones during them are held and go out as one summary when they end.
export const DAY_MINUTES = 24 * 60;

export type QuietHours = { enabled: boolean; start: string; end: string };

/** "HH:MM" → minutes since midnight; null for anything else. */
export function parseClock(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  return h < 24 && min < 60 ? h * 60 + min : null;
}

/** True when `minutesOfDay` falls inside the (enabled, valid, non-empty) quiet hours. */
export function isQuiet(q: QuietHours, minutesOfDay: number): boolean {
  const start = parseClock(q.start);
  const end = parseClock(q.end);
  if (!q.enabled || start === null || end === null || start === end) return false;
  return start < end ? minutesOfDay >= start && minutesOfDay < end : minutesOfDay >= start || minutesOfDay < end;
}

/** How long until the quiet hours end, at least a second (the timer re-checks when it fires); null for a bad end. */
export function msUntilQuietEnd(q: QuietHours, minutesOfDay: number): number | null {
  const end = parseClock(q.end);
  if (end === null) return null;
  const minutes = (((end - minutesOfDay) % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
  return Math.max(1000, Math.ceil(minutes * 60_000));
}

/** Local time of day in (fractional) minutes since midnight. */
export function localMinutesOfDay(ms: number): number {
  const d = new Date(ms);
  return d.getHours() * 60 + d.getMinutes() + d.getSeconds() / 60 + d.getMilliseconds() / 60_000;
}
