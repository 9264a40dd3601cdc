// Every word of a notice (N5), in one place: the title is the session title, with
// "Label · " first when there are several Gateways; the body is milestone · count · current
// or next step · first readable note line, or a summary's tally. Never error messages or
// anything else from the wire. A no-progress body is "No progress · " + the flag's text (a
// label, never tool output).
import { stepDuration } from "../../../common/card-timing.ts";
import type { Milestone } from "../../../common/contract.ts";
import { humanDuration } from "../../../common/duration.ts";
import { noteLine } from "../../../common/note-line.ts";
import { lineWithoutControls } from "../../../common/control-chars.ts";
import { stripInvisible } from "../../../common/strip.ts";
import { truncate } from "../../../common/truncate.ts";
import type { CardDerived, CardEntry, ProgressCard } from "../../../common/model.ts";
import type { HoldReason } from "./away-summary.ts";
import type { Pending } from "./coalesce.ts";
import { isStopped, STRENGTH } from "./milestones.ts";

export const TITLE_BUDGET = 48;
export const BODY_BUDGET = 120;
/** The title of a summary of several cards. */
export const SUMMARY_TITLE = "Progress Desk";

const PREFIX: Record<HoldReason, string> = { away: "While you were away", quiet: "During quiet hours" };

/** One queued card as it will be told: its strongest milestone still true, and its stall text if any. */
export type Told = { pending: Pending; kind: Milestone; stallText: string | undefined };

/** `gatewayLabel` is given only when there are several Gateways. */
export function noticeTitle(entry: CardEntry, gatewayLabel: string | null): string {
  const title = oneLine(entry.title) || entry.sessionKey;
  const label = gatewayLabel === null ? "" : oneLine(gatewayLabel);
  return truncate(label ? `${label} · ${title}` : title, TITLE_BUDGET);
}

/** One card's line; several cards' tally. `reason` prefixes a held release. */
export function noticeBody(told: Told[], reason: HoldReason | null): string {
  const [only] = told;
  if (told.length === 1 && only) {
    const line = describe(only);
    return truncate(reason ? `${PREFIX[reason]}: ${line}` : line, BODY_BUDGET);
  }
  return truncate(tally(told, reason), BODY_BUDGET);
}

function describe({ pending: p, kind, stallText }: Told): string {
  if (kind === "noProgress") return stallText ? `${phrase(kind, p)} · ${stallText}` : phrase(kind, p);
  const { card, derived: d } = p.entry;
  const parts = [
    phrase(kind, p),
    d && d.total > 0 ? `${d.completed}/${d.total}` : null,
    card && d ? stepLine(card, d) : null,
    noteLine(card?.markdown ?? null),
  ];
  return parts.filter((s): s is string => !!s).join(" · ");
}

/** "4 updates in 3 sessions: 2 completed, 1 paused" / "While you were away: 2 cards completed, 1 paused". */
function tally(told: Told[], reason: HoldReason | null): string {
  const counts = new Map<string, number>();
  const ranked = [...told].sort((a, b) => STRENGTH.indexOf(a.kind) - STRENGTH.indexOf(b.kind));
  for (const { pending, kind } of ranked) {
    const label = summaryLabel(kind, pending.entry.derived);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const groups = [...counts].map(([label, n], i) => (i === 0 && reason ? `${n} ${plural(n, "card")} ${label}` : `${n} ${label}`));
  if (reason) return `${PREFIX[reason]}: ${groups.join(", ")}`;
  const updates = told.reduce((sum, t) => sum + t.pending.updates, 0);
  const sessions = new Set(told.map((t) => t.pending.key)).size;
  return `${updates} ${plural(updates, "update")} in ${sessions} ${plural(sessions, "session")}: ${groups.join(", ")}`;
}

function phrase(kind: Milestone, p: Pending): string {
  const d = p.entry.derived;
  switch (kind) {
    case "newCard":
      return "Started";
    case "stepCompleted": {
      const n = (d?.completed ?? 0) - p.fromCompleted;
      if (n > 1) return `${n} steps completed`;
      const took = justFinishedStepMs(p.entry);
      return took !== null && took >= MIN_TOLD_DURATION_MS ? `Step done in ${humanDuration(took)}` : "Step completed";
    }
    case "allCompleted": {
      const plan = p.entry.timing?.planMs ?? null;
      return plan !== null && plan >= MIN_TOLD_DURATION_MS ? `Plan complete in ${humanDuration(plan)}` : "Completed";
    }
    case "pausedOrBlocked":
      if (d?.outcome === "failed") return "Run failed";
      if (d?.outcome === "killed") return "Run stopped";
      if (d?.outcome === "timeout") return "Run timed out";
      return d?.state === "note" ? "Blocked" : "Paused";
    case "refreshFailed":
      return p.entry.refresh?.status === "timed_out" ? "Refresh timed out" : "Refresh failed";
    case "noProgress":
      return "No progress";
  }
}

/** Durations shorter than this are not worth the words ("Step done in 4 s" is noise). */
const MIN_TOLD_DURATION_MS = 60_000;

/** How long the step finished by the card's last change took, when both ends were seen. */
function justFinishedStepMs(entry: CardEntry): number | null {
  const t = entry.timing;
  if (!t || t.lastChangeAt === null) return null;
  const done = t.steps.filter((s) => s.status === "completed" && s.finishedAt === t.lastChangeAt);
  const [only] = done;
  return done.length === 1 && only ? stepDuration(only) : null;
}

function summaryLabel(kind: Milestone, d: CardDerived | null): string {
  switch (kind) {
    case "allCompleted":
      return "completed";
    case "pausedOrBlocked":
      return isStopped(d?.outcome ?? null) ? "stopped" : "paused";
    case "refreshFailed":
      return "failed to refresh";
    case "stepCompleted":
      return "progressed";
    case "newCard":
      return "started";
    case "noProgress":
      return "stalled";
  }
}

function stepLine(card: ProgressCard, d: CardDerived): string | null {
  const doing = card.steps.find((s) => s.status === "in_progress");
  if (doing) return `${d.state === "active" ? "Now" : "At"}: ${oneLine(doing.step)}`;
  const next = card.steps.find((s) => s.status === "pending");
  return next ? `Next: ${oneLine(next.step)}` : null;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** Invisible and control characters removed, white space folded: one line. */
export function oneLine(text: string): string {
  return lineWithoutControls(stripInvisible(text)).replace(/\s+/g, " ").trim();
}
