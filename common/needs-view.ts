// How a needs-you entry reads on every surface that shows it (tray, notices, popover,
// dashboard): its one-line summary, its expiry in words, and the text a Gateway sent made
// visible. Pure. A command is data: shown exactly, never interpreted, but with every
// character that could hide or reorder what is shown (terminal controls, bidi overrides,
// zero-width marks) turned into a visible sign, so what the person reads is what would run.
import type { DeskSnapshot, NeedEntry } from "./model.ts";
import { truncate } from "./truncate.ts";

const MINUTE = 60_000;

/**
 * Characters that must not act on the page: control characters (U+0000–U+001F except tab and newline,
 * which lay out the text, and U+007F–U+009F), bidi embeddings, overrides and isolates, zero-width marks
 * and the line/paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** A hidden character as a sign: the Unicode control picture for the first 32 controls and DEL (␛, ␍ …), `⟨U+202E⟩` otherwise. */
function sign(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** `text` with every hidden or reordering character shown as a sign; tabs and newlines kept. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, sign);
}

/** True when `text` holds a character visibleText signs (the page then says so). */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  const found = HIDDEN.test(text);
  HIDDEN.lastIndex = 0;
  return found;
}

/** What the entry is, in a word or two. */
export function needKindLabel(e: Pick<NeedEntry, "kind">): string {
  switch (e.kind) {
    case "exec":
      return "Command approval";
    case "plugin":
      return "Plugin approval";
    case "question":
      return "Question";
    case "waiting":
      return "Waiting for approval";
  }
}

/** One line for menus and notices: the command, the plugin's title or the first question (visible, single-line). */
export function needSummary(e: NeedEntry, budget: number): string {
  const raw =
    e.kind === "exec"
      ? e.command
      : e.kind === "plugin"
        ? (e.title ?? e.description)
        : e.kind === "question"
          ? (e.questions[0]?.question ?? e.questions[0]?.header ?? null)
          : null;
  const line = visibleText((raw ?? "").replace(/\s+/g, " ").trim());
  return line ? truncate(line, budget) : needKindLabel(e);
}

/** "expires in 24 min", "expires in under a minute", "expired"; null when the Gateway gave no expiry. */
export function expiresText(expiresAt: number | null, now: number): string | null {
  if (expiresAt === null) return null;
  const left = expiresAt - now;
  if (left <= 0) return "expired";
  if (left < MINUTE) return "expires in under a minute";
  const minutes = Math.floor(left / MINUTE);
  if (minutes < 60) return `expires in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `expires in ${hours} h${rest > 0 ? ` ${rest} min` : ""}`;
}

/** Every pending entry on every Gateway, oldest first (the Gateway order breaks ties). */
export function pendingNeeds(snapshot: Pick<DeskSnapshot, "gateways">): NeedEntry[] {
  const all = snapshot.gateways.flatMap((g) => g.needs.entries);
  return all.sort((a, b) => a.arrivedAt - b.arrivedAt);
}

/** "1 needs you", "2 need you". */
export function needYouText(count: number): string {
  return `${count} need${count === 1 ? "s" : ""} you`;
}
