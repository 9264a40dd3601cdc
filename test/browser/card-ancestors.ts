// Issue 21: what lays a card out. A grid lays its items out again to size its rows, so a grid
// around every card made each layout of the page (a minute's tick rewriting every time text, a
// load's batch) cost more at every level; one-column stacks around cards are flex columns.
import type { Page } from "playwright-core";

// The callback below runs inside the page; the Node-side program has no DOM types.
declare const document: any;
declare const getComputedStyle: any;

/** The elements (tag and non-Svelte classes) laid out as a grid between the page and any card on it. */
export function gridsAroundCards(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const seen = new Set<string>();
    for (const card of document.querySelectorAll("article.card")) {
      for (let el = card.parentElement; el; el = el.parentElement) {
        if (!getComputedStyle(el).display.includes("grid")) continue;
        seen.add([el.tagName.toLowerCase(), ...[...el.classList].filter((c: string) => !c.startsWith("svelte-"))].join("."));
      }
    }
    return [...seen];
  });
}
