// What every glance surface (tray, notifications, `watch`) agrees on: which cards are
// shown, in what order, and the one-line form of a card's note.
import { stripInvisible } from "./strip.ts";
import type { CardEntry, DeskSnapshot } from "./model.ts";

/** Visible cards, most recently updated first (the popover's order, P2). */
export function visibleCards(snapshot: DeskSnapshot): CardEntry[] {
  return snapshot.gateways
    .flatMap((g) => g.cards)
    .filter((e) => e.card !== null && !e.hidden)
    .sort((a, b) => b.card!.updatedAt - a.card!.updatedAt || a.sessionKey.localeCompare(b.sessionKey));
}

/**
 * The note's first readable line as plain text (N5): Markdown syntax stripped, links
 * reduced to their text, HTML and `<progress>` removed, code blocks skipped (they hold
 * command output). Null when nothing readable is left.
 */
export function noteLine(markdown: string | null): string | null {
  if (!markdown) return null;
  let fenced = false;
  for (const line of stripInvisible(markdown).split(/\r?\n/)) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || /^( {4}|\t)/.test(line)) continue;
    const text = plainLine(line);
    if (text) return text;
  }
  return null;
}

const codePoint = (n: number): string => String.fromCodePoint(n > 0 && n <= 0x10ffff ? n : 0xfffd);
/** Backslash-escaped ASCII is parked in the Private Use Area while the syntax is stripped. */
const ESCAPED = 0xe000;
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", amp: "&" };

function plainLine(line: string): string {
  if (/^\s{0,3}\[[^\]]+\]:\s*\S/.test(line)) return ""; // link reference definition
  if (/^\s{0,3}([-*_=])(\s*\1){2,}\s*$/.test(line)) return ""; // rule or heading underline
  if (/^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?\|?\s*$/.test(line)) return ""; // table delimiter row
  let s = line
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, (_, c: string) => String.fromCharCode(ESCAPED + c.charCodeAt(0)))
    .replace(/<progress\b[^>]*>[\s\S]*?<\/progress>|<progress\b[^>]*\/?>/gi, " ")
    .replace(/<((?:https?:\/\/|mailto:)[^>\s]+)>/gi, "$1")
    .replace(/<!--[\s\S]*?-->|<\/?[a-z][^>]*>/gi, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/^\s*(>\s?)+/, "")
    .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/, "")
    .replace(/^\[[ xX]\]\s+/, "")
    .replace(/^#{1,6}(\s+|$)/, "")
    .replace(/\s+#+\s*$/, "")
    .replace(/(\*\*|__|~~)(?=\S)(.*?\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](?=\S)([^*_]*?\S)[*_](?![\w*])/g, "$1$2")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/\*{2,}|_{2,}|~{2,}/g, "")
    .replace(/[\uE000-\uE07F]/g, (c) => String.fromCharCode(c.charCodeAt(0) - ESCAPED));
  if (/^\s*\|/.test(s)) s = s.trim().replace(/^\||\|$/g, "").replace(/\s*\|\s*/g, " · ");
  s = s.replace(/&(#\d+|[a-z]+);/gi, (m, name: string) =>
    name.startsWith("#") ? codePoint(Number(name.slice(1))) : (ENTITIES[name.toLowerCase()] ?? m),
  );
  return s.replace(/\s+/g, " ").trim();
}
