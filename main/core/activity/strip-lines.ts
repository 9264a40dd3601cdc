// What the activity strip leaves out and what it folds (issue 19, the strip tidied). Pure, so the
// popover, the dashboard, the tray and `watch` all show the same lines.
//
// - The card's own writes are left out: the agent's progress-card tool has the card itself as its
//   visible effect, so a line saying so only pushes a real tool line off the strip.
// - Consecutive lines with the same tool and the same label become one line with a count (the
//   newest call's status and time), so a loop of `Shell · npm test` takes one line, not eight.
import type { ActivityLine } from "../../../common/model.ts";

/** The agent's progress-card tool, as the Gateway names it in `item` events (docs/agent-events.md). */
export const PROGRESS_CARD_TOOL = "progress_card";

/** A call of this tool never becomes an activity line. */
export function leftOffStrip(tool: string): boolean {
  return tool === PROGRESS_CARD_TOOL;
}

/** Two lines read the same to the person: same tool, same label. */
export function sameLine(a: Pick<ActivityLine, "tool" | "label">, b: Pick<ActivityLine, "tool" | "label">): boolean {
  return a.tool === b.tool && a.label === b.label;
}

/**
 * Folds each run of consecutive same lines (oldest first) into its newest line, counting the calls
 * (a line's own `count`, when it already stands for several, is added). A different line in between
 * starts a new run. `count` is set only when above one.
 */
export function foldRepeats(lines: readonly ActivityLine[]): ActivityLine[] {
  const out: ActivityLine[] = [];
  for (const line of lines) {
    const prev = out.at(-1);
    const own = line.count ?? 1;
    if (prev && sameLine(prev, line)) out[out.length - 1] = { ...line, count: (prev.count ?? 1) + own };
    else out.push(withCount(line, own));
  }
  return out;
}

function withCount(line: ActivityLine, count: number): ActivityLine {
  const copy: ActivityLine = { ...line };
  delete copy.count;
  if (count > 1) copy.count = count;
  return copy;
}
