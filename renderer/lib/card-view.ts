// What a card shows, as plain data: header (R1), checklist (R2, R6), outcome, note
// fallback (R5), freshness (G3, P4), refresh (A2) and dismiss (A1). Pure, so it is unit
// tested without a DOM; components only lay it out.
import { CONFIRM_CLEAR_QUESTION, type CardEntry, type RunOutcome, type Step } from "../../common/model.ts";

/** R5: a note without readable text. */
export const EMPTY_NOTE_TEXT = "Progress updated";

export type GlyphKind = "completed" | "in_progress" | "paused" | "pending";

export type StepView = {
  text: string;
  glyph: GlyphKind;
  /** The status word a screen reader hears after the step text. */
  status: "completed" | "in progress" | "paused" | "pending";
  ariaLabel: string;
  current: boolean;
};

export type Tone = "neutral" | "ok" | "warn" | "danger";
export type Badge = {
  kind: "paused" | "outcome" | "offline" | "stale" | "no_access" | "update_required" | "error";
  text: string;
  tone: Tone;
};

export type RefreshView =
  | { status: "idle"; text: null; busy: false; action: null }
  | { status: "pending"; text: string; busy: true; action: null }
  | { status: "timed_out" | "failed"; text: string; busy: false; action: { label: string; retry: boolean } };

export type DismissView = { confirm: boolean; question: string | null; label: string };

export type CardView = {
  title: string;
  /** `completed/total` when there are steps (R1). */
  count: string | null;
  /** The same, spoken: "2 of 5 completed". */
  countLabel: string | null;
  /** The in_progress step, else the next pending one (R1). */
  current: string | null;
  currentGlyph: GlyphKind | null;
  /** The second header line: the current step, or what stands in for it. */
  subline: string;
  /** Local time of the last update, `HH:MM` (with the date when not today). */
  time: string | null;
  timeIso: string | null;
  timeTitle: string | null;
  steps: StepView[];
  hasNote: boolean;
  complete: boolean;
  paused: boolean;
  outcome: { kind: RunOutcome; text: string; tone: Tone } | null;
  badges: Badge[];
  /** A line under the header while the card cannot be trusted as live. */
  freshness: { kind: "offline" | "stale"; text: string } | null;
  /** The card cannot be shown (C5) or needs a newer Gateway (G4). */
  problem: string | null;
  refresh: RefreshView;
  dismiss: DismissView | null;
  /** The accessible name of the title bar toggle; starts with the visible title. */
  toggleLabel: string;
};

export type CardViewOptions = {
  now?: number;
  /** R5: renderNote(markdown).empty — the note has no readable text. */
  noteEmpty?: boolean;
  /** The note's first line as plain text, shown in the header of a note-only card. */
  noteLine?: string | null;
};

const pad = (n: number): string => String(n).padStart(2, "0");
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `HH:MM` in local time; earlier days get `2 Dec 14:05` so an old card does not pass as today's. */
export function clockTime(ms: number, now: number = Date.now()): string {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const n = new Date(now);
  if (d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()) return hm;
  const year = d.getFullYear() === n.getFullYear() ? "" : ` ${d.getFullYear()}`;
  return `${d.getDate()} ${MONTHS[d.getMonth()]}${year} ${hm}`;
}

/** A full local date and time for a tooltip. */
export function fullTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export const OUTCOME_TEXT: Record<RunOutcome, string> = {
  done: "Run finished",
  failed: "Run failed",
  killed: "Run killed",
  timeout: "Run timed out",
};
const OUTCOME_TONE: Record<RunOutcome, Tone> = { done: "neutral", failed: "danger", killed: "warn", timeout: "warn" };

/** R2/R6: glyph and label of one step; an in_progress step of a paused card is paused. */
export function stepView(step: Step, paused: boolean, current: boolean): StepView {
  const glyph: GlyphKind =
    step.status === "completed" ? "completed" : step.status === "pending" ? "pending" : paused ? "paused" : "in_progress";
  const status = glyph === "in_progress" ? "in progress" : glyph;
  return { text: step.step, glyph, status, ariaLabel: `${step.step}, ${status}`, current };
}

/** A2. The state line under the header and what its button does. */
export function refreshView(entry: Pick<CardEntry, "refresh">): RefreshView {
  const r = entry.refresh;
  if (!r) return { status: "idle", text: null, busy: false, action: null };
  switch (r.status) {
    case "pending":
      return { status: "pending", text: "Refreshing…", busy: true, action: null };
    case "timed_out":
      return { status: "timed_out", text: "No update yet", busy: false, action: { label: "Retry", retry: true } };
    case "failed": {
      const why = r.error.trim() === "" ? "Couldn't refresh" : `Couldn't refresh: ${r.error.trim()}`;
      // A terminal error takes a fresh idempotency key: a new click, not a retry.
      return r.terminal
        ? { status: "failed", text: why, busy: false, action: { label: "Try again", retry: false } }
        : { status: "failed", text: why, busy: false, action: { label: "Retry", retry: true } };
    }
  }
}

/** A1. A completed card is dismissed at once (conditional clear); anything else asks first. */
export function dismissView(entry: Pick<CardEntry, "card" | "derived">): DismissView | null {
  if (!entry.card || !entry.derived) return null;
  if (entry.derived.state === "complete") return { confirm: false, question: null, label: "Dismiss completed progress" };
  return { confirm: true, question: CONFIRM_CLEAR_QUESTION, label: "Clear saved progress" };
}

export function freshnessView(entry: Pick<CardEntry, "freshness" | "confirmedAt" | "card">, now: number = Date.now()) {
  if (!entry.card) return null;
  if (entry.freshness === "offline") {
    const when = entry.confirmedAt !== null ? ` — last confirmed ${clockTime(entry.confirmedAt, now)}` : "";
    return { kind: "offline" as const, text: `Offline${when}` };
  }
  if (entry.freshness === "stale") return { kind: "stale" as const, text: "Couldn't refresh — showing the last card" };
  return null;
}

export function cardView(entry: CardEntry, opts: CardViewOptions = {}): CardView {
  const now = opts.now ?? Date.now();
  const card = entry.card;
  const d = entry.derived;
  const title = entry.title.trim() === "" ? entry.sessionKey : entry.title;
  const paused = d?.state === "paused";
  const complete = d?.state === "complete"; // R7: every step completed
  const total = card?.steps.length ?? 0;
  const completed = card ? card.steps.filter((s) => s.status === "completed").length : 0;
  const currentText = d?.current ?? null;
  let currentIndex = -1;
  if (card && currentText !== null) {
    currentIndex = card.steps.findIndex((s) => s.status === "in_progress");
    if (currentIndex < 0) currentIndex = card.steps.findIndex((s) => s.status === "pending");
  }
  const steps = card ? card.steps.map((s, i) => stepView(s, paused, i === currentIndex)) : [];
  const currentGlyph = steps[currentIndex]?.glyph ?? null;

  const outcome = d?.outcome ? { kind: d.outcome, text: OUTCOME_TEXT[d.outcome], tone: OUTCOME_TONE[d.outcome] } : null;
  const hasNote = card?.markdown != null && card.markdown.trim() !== "";

  let subline: string;
  if (!card) subline = entry.updateRequired ? "Gateway update required" : entry.error ? "This card can't be shown" : "No progress yet";
  else if (currentText !== null) subline = currentText;
  else if (complete) subline = total === 1 ? "Step completed" : `All ${total} steps completed`;
  else if (opts.noteEmpty || !hasNote) subline = EMPTY_NOTE_TEXT;
  else subline = opts.noteLine?.trim() || "Note";

  const badges: Badge[] = [];
  if (paused && !outcome) badges.push({ kind: "paused", text: "Paused", tone: "warn" });
  // A finished run on a completed card says nothing new; every other outcome does.
  if (outcome && !(complete && outcome.kind === "done")) badges.push({ kind: "outcome", text: outcome.text, tone: outcome.tone });
  if (entry.hidden) badges.push({ kind: "no_access", text: "No access", tone: "warn" });
  if (entry.updateRequired) badges.push({ kind: "update_required", text: "Update required", tone: "warn" });
  if (card && entry.freshness === "offline") badges.push({ kind: "offline", text: "Offline", tone: "neutral" });
  else if (card && entry.freshness === "stale") badges.push({ kind: "stale", text: "Not refreshed", tone: "warn" });
  if (entry.error?.code === "MALFORMED_CARD") badges.push({ kind: "error", text: "Can't show", tone: "danger" });

  let problem: string | null = null;
  if (entry.updateRequired) problem = "This card needs a newer Gateway: update OpenClaw on the Gateway host.";
  else if (entry.error?.code === "MALFORMED_CARD") {
    problem = card
      ? `The newest saved card couldn't be shown (${entry.error.message}); showing the last good one.`
      : `This card couldn't be shown: ${entry.error.message}.`;
  }

  const count = total > 0 ? `${completed}/${total}` : null;
  const countLabel = total > 0 ? `${completed} of ${total} completed` : null;
  const time = card ? clockTime(card.updatedAt, now) : null;

  const spoken = [title];
  if (countLabel) spoken.push(countLabel);
  if (currentText !== null) spoken.push(`${paused ? "paused at" : "current step"}: ${currentText}`);
  else if (card) spoken.push(subline);
  if (outcome) spoken.push(outcome.text);
  else if (paused) spoken.push("paused");
  if (time) spoken.push(`updated ${time}`);

  return {
    title,
    count,
    countLabel,
    current: currentText,
    currentGlyph,
    subline,
    time,
    timeIso: card ? new Date(card.updatedAt).toISOString() : null,
    timeTitle: card ? `Updated ${fullTime(card.updatedAt)}` : null,
    steps,
    hasNote,
    complete,
    paused,
    outcome,
    badges,
    freshness: freshnessView(entry, now),
    problem,
    refresh: refreshView(entry),
    dismiss: dismissView(entry),
    toggleLabel: spoken.join(", "),
  };
}

/** R4: the pinned bar's visible text; the count is added only when the label lacks it. */
export function progressText(p: { value: number; max: number; label: string | null }): {
  label: string;
  count: string | null;
  ariaLabel: string;
} {
  const max = p.max > 0 && Number.isFinite(p.max) ? p.max : 1;
  const value = Math.min(Math.max(Number.isFinite(p.value) ? p.value : 0, 0), max);
  const count = `${fmt(value)}/${fmt(max)}`;
  const label = p.label?.trim() ?? "";
  if (label === "") return { label: "Progress", count, ariaLabel: `Progress ${count}` };
  const hasCount = /\d\s*(\/|of)\s*\d/.test(label) || /\d\s*%/.test(label);
  return hasCount ? { label, count: null, ariaLabel: label } : { label, count, ariaLabel: `${label} ${count}` };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
