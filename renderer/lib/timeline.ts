// A card's timeline as plain data: one segment per step whose start we saw (its length is its
// duration, the running one measured to `now`), and a segment for each gap in between (time
// nobody watched: drawn hatched at a fixed width, never as work). Each segment carries the
// words a screen reader hears. Also the dashboard's list of cards finished in the last day.
import { humanDuration } from "../../common/duration.ts";
import type { CardEntry, CardTiming } from "../../common/model.ts";
import { elapsedText } from "./timing-line.ts";

export type TimelineSegment =
  | { kind: "step"; step: string; running: boolean; growing: boolean; ms: number; startedAt: number; label: string }
  | { kind: "gap"; from: number | null; to: number; label: string };

export type Timeline = {
  segments: TimelineSegment[];
  /** The summed duration of the step segments (what their widths share). */
  totalMs: number;
};

/**
 * Steps in the order they started; a gap goes where it fell. `now` measures the running step
 * while `growing` (the card is live and active); a step in progress on a paused or offline card
 * is not measured (when it stopped is unknown) and shows as a sliver.
 */
export function timeline(t: CardTiming | null | undefined, now: number, growing = true): Timeline {
  if (!t) return { segments: [], totalMs: 0 };
  const dated: { at: number; seg: TimelineSegment }[] = [];
  for (const s of t.steps) {
    if (s.startedAt === null || s.status === "pending") continue;
    const running = s.status === "in_progress";
    const finishedAt = s.finishedAt;
    if (!running && finishedAt === null) continue;
    const ms = running ? (growing ? Math.max(0, now - s.startedAt) : 0) : Math.max(0, (finishedAt ?? s.startedAt) - s.startedAt);
    const label = !running
      ? `${s.step}: ${humanDuration(ms)}`
      : growing
        ? `${s.step}: running ${elapsedText(ms)}`
        : `${s.step}: not running now`;
    dated.push({
      at: s.startedAt,
      seg: { kind: "step", step: s.step, running, growing: running && growing, ms, startedAt: s.startedAt, label },
    });
  }
  if (dated.length === 0) return { segments: [], totalMs: 0 };
  const first = Math.min(...dated.map((d) => d.at));
  // Only gaps inside the pictured span: one before the first seen start says nothing about the steps.
  for (const g of t.gaps) {
    if (g.to <= first) continue;
    dated.push({ at: g.to - 0.5, seg: { kind: "gap", from: g.from, to: g.to, label: "gap" } });
  }
  dated.sort((a, b) => a.at - b.at);
  const segments = dated.map((d) => d.seg);
  const totalMs = segments.reduce((sum, s) => sum + (s.kind === "step" ? s.ms : 0), 0);
  return { segments, totalMs };
}

/** A segment's share of the bar's step width, at least a sliver so a 1 s step is still seen. */
export function segmentWeight(seg: TimelineSegment, totalMs: number): number {
  if (seg.kind === "gap") return 0;
  return totalMs > 0 ? Math.max(seg.ms / totalMs, 0.02) : 1;
}

export type FinishedCard = { entry: CardEntry; title: string; finishedAt: number; tookMs: number; took: string };

const DAY = 24 * 60 * 60_000;

/** Complete cards whose whole plan we timed, finished in the last 24 h, newest first. */
export function finishedToday(entries: CardEntry[], now: number): FinishedCard[] {
  const out: FinishedCard[] = [];
  for (const e of entries) {
    const t = e.timing;
    if (!e.card || e.hidden || e.derived?.state !== "complete" || !t || t.planMs === null) continue;
    const finishedAt = Math.max(...t.steps.map((s) => s.finishedAt ?? 0), t.lastChangeAt ?? 0) || e.card.updatedAt;
    if (finishedAt < now - DAY) continue;
    const title = e.title.trim() === "" ? e.sessionKey : e.title;
    out.push({ entry: e, title, finishedAt, tookMs: t.planMs, took: humanDuration(t.planMs) });
  }
  return out.sort((a, b) => b.finishedAt - a.finishedAt);
}
