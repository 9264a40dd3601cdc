// Same-run baselines for the Markdown benchmark, bundled into the bench page beside renderNote:
// what marked alone costs (no sanitizing at all), and what the browser needs just to parse the
// resulting HTML and visit every node — the floor under any DOM-based sanitizer.
import { Marked } from "marked";

// Runs in the page; the Node-side program that typechecks this has no DOM types.
declare const document: any;
declare const NodeFilter: any;

const marked = new Marked({ gfm: true, breaks: false, pedantic: false, async: false });

/** marked with its defaults, nothing else. */
export function markedOnly(markdown: string): string {
  return marked.parse(markdown, { async: false }) as string;
}

/** Parse HTML into an inert template and visit every node; returns the node count. */
export function parseAndWalk(html: string): number {
  const template = document.createElement("template");
  template.innerHTML = html;
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_ALL);
  let nodes = 0;
  while (walker.nextNode()) nodes++;
  return nodes;
}
