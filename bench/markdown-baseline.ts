// The same-run baseline for the Markdown benchmark, bundled into the bench page beside renderNote:
// marked and DOMPurify, each with its defaults (the global `marked` and the default DOMPurify instance;
// renderNote uses private instances of both, so neither configuration leaks into the other).
import DOMPurify from "dompurify";
import { marked } from "marked";

/** `marked.parse` then `DOMPurify.sanitize`, both with their defaults. */
export function markedAndPurify(markdown: string): string {
  return DOMPurify.sanitize(marked.parse(markdown, { async: false }) as string);
}
