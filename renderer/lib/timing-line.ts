// The card's timing line as plain data: "Step 2 of 4 · running 12 min · about 10–20 min left ·
// updated 3 min ago". Parts that depend on the clock are kept as a moment (`since`) so the
// page can re-word them each minute without rebuilding the line. Pure, unit tested.
import { humanDuration, humanRange } from "../../common/duration.ts";
import type { CardEntry } from "../../common/model.ts";

const MINUTE = 60_000;

export type TimingPart =
  /** Fixed words: the step position, the estimate, how long the plan took. */
  | { kind: "text"; role: "position" | "estimate" | "took"; text: string }
  /** Words about a moment, re-worded as time passes: "running 12 min", "updated 3 min ago". */
  | { kind: "since"; role: "running" | "updated"; at: number };

/** Minutes only, rounded down: a minute clock never claims more time than has passed. */
export function elapsedText(ms: number): string {
  if (!Number.isFinite(ms) || ms < MINUTE) return "under a minute";
  return humanDuration(Math.floor(ms / MINUTE) * MINUTE);
}

/** "just now", "3 min ago", "1 h 4 min ago". */
export function agoText(ms: number): string {
  return !Number.isFinite(ms) || ms < MINUTE ? "just now" : `${elapsedText(ms)} ago`;
}

/** The words of a `since` part at `now`. */
export function sinceText(part: { role: "running" | "updated"; at: number }, now: number): string {
  const ms = Math.max(0, now - part.at);
  return part.role === "running" ? `running ${elapsedText(ms)}` : `updated ${agoText(ms)}`;
}

/** "Step 2 of 4" (the step in progress, else the next pending), "All 4 steps done" when complete. */
export function positionText(entry: Pick<CardEntry, "card" | "derived">): string | null {
  const steps = entry.card?.steps ?? [];
  if (steps.length === 0) return null;
  if (entry.derived?.state === "complete") return steps.length === 1 ? "Step done" : `All ${steps.length} steps done`;
  let i = steps.findIndex((s) => s.status === "in_progress");
  if (i < 0) i = steps.findIndex((s) => s.status === "pending");
  if (i < 0) return `${steps.filter((s) => s.status === "completed").length} of ${steps.length} done`;
  return `Step ${i + 1} of ${steps.length}`;
}

/** Only what is known: running time while the card is live and active, an estimate when the core made one. */
export function timingParts(entry: Pick<CardEntry, "card" | "derived" | "timing" | "freshness">): TimingPart[] {
  if (!entry.card) return [];
  const parts: TimingPart[] = [];
  const position = positionText(entry);
  if (position) parts.push({ kind: "text", role: "position", text: position });
  const t = entry.timing ?? null;
  const state = entry.derived?.state;
  if (t && state === "active" && entry.freshness === "live" && t.currentStepSince !== null) {
    parts.push({ kind: "since", role: "running", at: t.currentStepSince });
  }
  if (t?.estimate && state === "active") {
    parts.push({ kind: "text", role: "estimate", text: `${humanRange(t.estimate.minMs, t.estimate.maxMs)} left` });
  }
  if (t && state === "complete" && t.planMs !== null) parts.push({ kind: "text", role: "took", text: `took ${humanDuration(t.planMs)}` });
  parts.push({ kind: "since", role: "updated", at: entry.card.updatedAt });
  return parts;
}

/** The whole line at `now`, as a screen reader or a test reads it. */
export function timingLineText(parts: TimingPart[], now: number): string {
  return parts.map((p) => (p.kind === "text" ? p.text : sinceText(p, now))).join(" · ");
}
