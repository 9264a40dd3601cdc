// Away: milestones are held until the person is back. An absence of at least the threshold
// gives one "While you were away" summary; a shorter one releases them through the normal
// throttle, or as the quiet-hours summary if quiet hours ended meanwhile. Back during quiet
// hours waits for their end.

/** Why held milestones go out together: the summary's prefix says which. */
export type HoldReason = "away" | "quiet";

export const DEFAULT_AWAY_THRESHOLD_MS = 5 * 60_000;

/** What coming back does with what was held. */
export type Release = "waitForQuietEnd" | "summary:away" | "summary:quiet" | "throttle";

export function releaseOnBack(awayForMs: number, thresholdMs: number, quietNow: boolean, heldInQuiet: boolean): Release {
  if (quietNow) return "waitForQuietEnd";
  if (awayForMs >= thresholdMs) return "summary:away";
  return heldInQuiet ? "summary:quiet" : "throttle";
}
