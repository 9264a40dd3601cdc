// Timing of one card, derived purely from its local history (card-history.ts): when each
// step started and finished as we saw it, how long the current step has been running,
// when the card last changed, and an estimate of the time left only when it is honest.
//
// Rules:
// - A transition seen in a record that follows a gap happened at an unknown time: its
//   time is null. A step that was in progress across a gap has no known start either
//   (its time would include the gap), so a duration (finishedAt − startedAt) never counts a gap.
// - A step seen completed without being seen in progress has no start, so no duration.
// - The estimate needs ≥ 2 steps of this card completed with known durations, no gap from
//   the first of them until now, the card active (not paused, complete, cleared or a
//   note), and a known start for the step in progress. It is a range built from those
//   durations (see estimateRange), never a clock time.
import { statusOf, textsAt, type CardHistoryData } from "./card-history.ts";
import type { CardState, CardTiming, Estimate, StepStatus, StepTiming } from "./model.ts";

type Tracked = { status: StepStatus; startedAt: number | null; finishedAt: number | null };

/** Timing of the card whose history this is; `state` is the core's derived state of the current card. */
export function deriveTiming(h: CardHistoryData, state: CardState, now: number): CardTiming {
  const gaps: { from: number | null; to: number }[] = [];
  let prevByStep = new Map<string, Tracked>();
  let lastChangeAt: number | null = null;
  let latestGapAt: number | null = null;
  let completedAt: number | null = null;
  for (const [k, r] of h.records.entries()) {
    // The first record of a card not seen from its creation follows an unknown past.
    const gap = r.gapFrom !== undefined || (k === 0 && !h.fromStart);
    if (gap) {
      gaps.push({ from: r.gapFrom ?? null, to: r.at });
      latestGapAt = r.at;
    }
    const prevRevision = h.records[k - 1]?.revision ?? null;
    if (prevRevision !== r.revision) lastChangeAt = gap ? null : r.at;
    const next = new Map<string, Tracked>();
    const texts = textsAt(h, k);
    const seen = new Map<string, number>();
    for (const [i, text] of texts.entries()) {
      const id = stepId(text, seen);
      const status = statusOf(r.statuses[i] ?? "p") ?? "pending";
      const before = prevByStep.get(id);
      const was = before?.status ?? "pending";
      const t: Tracked = { status, startedAt: before?.startedAt ?? null, finishedAt: before?.finishedAt ?? null };
      const when = gap ? null : r.at;
      if (status === "pending") {
        t.startedAt = null;
        t.finishedAt = null;
      } else if (status === "in_progress") {
        if (was !== "in_progress") t.startedAt = when;
        else if (gap) t.startedAt = null;
        t.finishedAt = null;
      } else if (was !== "completed") {
        // Seen completed without being seen in progress (its start stays null from pending),
        // or finished in a gap: no duration.
        if (gap) t.startedAt = null;
        t.finishedAt = when;
      }
      next.set(id, t);
    }
    const all = texts.length > 0 && [...next.values()].every((t) => t.status === "completed");
    if (all && completedAt === null) completedAt = gap ? -1 : r.at;
    if (!all) completedAt = null;
    prevByStep = next;
  }
  const texts = textsAt(h, h.records.length - 1);
  const seen = new Map<string, number>();
  const steps: StepTiming[] = texts.map((step) => {
    const t = prevByStep.get(stepId(step, seen)) ?? { status: "pending" as StepStatus, startedAt: null, finishedAt: null };
    return { step, status: t.status, startedAt: t.startedAt, finishedAt: t.finishedAt };
  });
  const current = steps.find((s) => s.status === "in_progress") ?? null;
  const currentStepSince = current?.startedAt ?? null;
  const first = h.records[0];
  const planMs =
    state === "complete" && gaps.length === 0 && completedAt !== null && completedAt >= 0 && first ? completedAt - first.at : null;
  return {
    currentStepSince,
    lastChangeAt,
    steps,
    // Not watched now (offline, app closed): nothing honest to say about what is left.
    estimate: h.endedAt === null && h.unwatchedSince === null ? estimateFor(steps, state, currentStepSince, latestGapAt, now) : null,
    planMs,
    gaps,
  };
}

/** Duration of a step when both ends were seen without a gap between them. */
export function stepDuration(s: Pick<StepTiming, "startedAt" | "finishedAt">): number | null {
  return s.startedAt !== null && s.finishedAt !== null ? s.finishedAt - s.startedAt : null;
}

function estimateFor(
  steps: StepTiming[],
  state: CardState,
  since: number | null,
  latestGapAt: number | null,
  now: number,
): Estimate | null {
  if (state !== "active") return null;
  const measured = steps.flatMap((s) => {
    const ms = stepDuration(s);
    return s.status === "completed" && ms !== null && s.startedAt !== null ? [{ startedAt: s.startedAt, ms }] : [];
  });
  if (measured.length < 2) return null;
  // "No gap between": the measured steps and everything since were watched without a break.
  const firstStart = Math.min(...measured.map((m) => m.startedAt));
  if (latestGapAt !== null && latestGapAt >= firstStart) return null;
  const left = steps.filter((s) => s.status !== "completed").length;
  const inProgress = steps.some((s) => s.status === "in_progress");
  if (left === 0 || (inProgress && since === null)) return null;
  return estimateRange(
    measured.map((m) => m.ms),
    left,
    inProgress && since !== null ? Math.max(0, now - since) : 0,
  );
}

/**
 * The range of time left for `left` unfinished steps (the first of them running for
 * `elapsedMs`), from the durations of the steps already done: each remaining step takes
 * between the shortest and the longest of them, less what the running one has already
 * spent; a running step past the longest may still take up to another longest one.
 */
export function estimateRange(durations: number[], left: number, elapsedMs: number): Estimate {
  const lo = Math.min(...durations);
  const hi = Math.max(...durations);
  const currentMin = Math.max(0, lo - elapsedMs);
  const currentMax = elapsedMs < hi ? hi - elapsedMs : hi;
  return { minMs: currentMin + (left - 1) * lo, maxMs: currentMax + (left - 1) * hi };
}

/** Steps are matched by text across revisions; repeated texts by their occurrence. */
function stepId(text: string, seen: Map<string, number>): string {
  const n = seen.get(text) ?? 0;
  seen.set(text, n + 1);
  return `${n}\u0000${text}`;
}
