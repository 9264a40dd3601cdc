// renderNote is pure in its input: a card update that leaves the note alone (a step
// ticked, a freshness change) reuses the last result instead of parsing again.
import { renderNote, type RenderedNote } from "./markdown.ts";

export type NoteView = RenderedNote & {
  /** The note's first readable line as plain text, for a collapsed note-only card. */
  line: string | null;
};

const MAX = 32;
const cache = new Map<string, NoteView>();
const EMPTY: NoteView = { html: "", progress: null, empty: true, line: null };

/** First block with text, read from an inert <template> (nothing runs, nothing loads). */
function firstLine(html: string): string | null {
  if (html === "") return null;
  const t = document.createElement("template");
  t.innerHTML = html;
  const blocks = t.content.querySelectorAll("p, li, h1, h2, h3, h4, h5, h6, td, th, pre, blockquote");
  for (const el of [...blocks, t.content]) {
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text !== "") return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
  return null;
}

export function renderNoteCached(markdown: string | null): NoteView {
  if (markdown === null) return EMPTY;
  const hit = cache.get(markdown);
  if (hit) {
    cache.delete(markdown);
    cache.set(markdown, hit);
    return hit;
  }
  const rendered = renderNote(markdown);
  const out: NoteView = { ...rendered, line: firstLine(rendered.html) };
  cache.set(markdown, out);
  if (cache.size > MAX) cache.delete(cache.keys().next().value as string);
  return out;
}
