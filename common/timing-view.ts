// How a card's timing is shown outside the pages: the `timing` object of `watch --json`
// card lines (a stable format) and the short marks of the terminal block ("running 12 min").
import type { CardTiming } from "./model.ts";
import { humanDuration, humanRange } from "./duration.ts";
import type { CardEntry } from "./model.ts";

export type TimingJson = {
  currentStepSince: number | null;
  lastChangeAt: number | null;
  steps: { step: string; startedAt: number | null; finishedAt: number | null }[];
  estimate: { minMs: number; maxMs: number } | null;
};

/** Exactly the four documented fields; a card without timing gets nulls and no steps. */
export function timingJson(t: CardTiming | null): TimingJson {
  return {
    currentStepSince: t?.currentStepSince ?? null,
    lastChangeAt: t?.lastChangeAt ?? null,
    steps: (t?.steps ?? []).map((s) => ({ step: s.step, startedAt: s.startedAt, finishedAt: s.finishedAt })),
    estimate: t?.estimate ? { minMs: t.estimate.minMs, maxMs: t.estimate.maxMs } : null,
  };
}

/** "running 12 min", "about 10–20 min left", "took 1 h 4 min": only what is known. */
export function timingMarks(e: Pick<CardEntry, "timing" | "derived" | "freshness">, now: number): string[] {
  const t = e.timing;
  if (!t || !e.derived) return [];
  const marks: string[] = [];
  if (e.derived.state === "active" && e.freshness === "live" && t.currentStepSince !== null) {
    marks.push(`running ${humanDuration(Math.max(0, now - t.currentStepSince))}`);
  }
  if (t.estimate) marks.push(`${humanRange(t.estimate.minMs, t.estimate.maxMs)} left`);
  if (e.derived.state === "complete" && t.planMs !== null) marks.push(`took ${humanDuration(t.planMs)}`);
  return marks;
}
