// One truncation rule for every short surface (tray title, menu rows, notifications,
// `watch`), after the progress-draft rule: a character budget, prose cut at a word
// boundary, long details such as paths and URLs shortened in the middle so the end
// stays visible. Control characters go first (common/control-chars.ts): every short surface
// draws through here, so none of them can print an agent's escape sequence.

import { lineWithoutControls } from "./control-chars.ts";

const ELLIPSIS = "…";

/** Counts user-perceived characters, so an emoji or accent never splits. */
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** A token that reads from its end: a path, a URL, a dotted or slashed identifier. */
export function isDetailToken(token: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(token) || /[\\/]/.test(token) || /^[\w-]+(\.[\w-]+){2,}$/.test(token);
}

/** Shortens one token to `budget` characters keeping its head and (longer) tail. */
export function middleEllipsis(text: string, budget: number): string {
  const g = graphemes(text);
  if (g.length <= budget) return text;
  if (budget <= 1) return ELLIPSIS.slice(0, budget);
  const keep = budget - 1;
  const head = Math.floor(keep / 3);
  const tail = keep - head;
  return g.slice(0, head).join("") + ELLIPSIS + g.slice(g.length - tail).join("");
}

/**
 * Cuts `text` to at most `budget` characters (graphemes). Control characters are removed
 * and white space is folded first.
 * Prose is cut at the last word boundary that fits, followed by "…"; a detail token
 * that does not fit is shortened in its middle instead.
 */
export function truncate(text: string, budget: number): string {
  const folded = lineWithoutControls(text).replace(/\s+/g, " ").trim();
  if (budget <= 0) return "";
  const g = graphemes(folded);
  if (g.length <= budget) return folded;

  const words = folded.split(" ");
  let out = "";
  for (const word of words) {
    const sep = out === "" ? "" : " ";
    const candidate = out + sep + word;
    if (graphemes(candidate).length <= budget) {
      out = candidate;
      continue;
    }
    const room = budget - graphemes(out + sep).length;
    // A path or URL that does not fit is kept with its end visible, if enough room remains.
    if (isDetailToken(word) && room >= Math.min(12, budget)) {
      return out + sep + middleEllipsis(word, room);
    }
    if (out === "" || room > budget / 2) {
      // No boundary, or one that would waste over half the budget: cut inside the word.
      return (
        out +
        sep +
        graphemes(word)
          .slice(0, Math.max(0, room - 1))
          .join("") +
        ELLIPSIS
      );
    }
    return appendEllipsis(out, budget);
  }
  return out;
}

function appendEllipsis(text: string, budget: number): string {
  const trailing = /[\s,;:.–—-]+$/u;
  let t = text.replace(trailing, "");
  // Drop whole words until the ellipsis fits; only a single word is ever cut inside.
  while (graphemes(t).length + 1 > budget) {
    const cut = t.lastIndexOf(" ");
    t =
      cut > 0
        ? t.slice(0, cut).replace(trailing, "")
        : graphemes(t)
            .slice(0, budget - 1)
            .join("");
  }
  return t + ELLIPSIS;
}
