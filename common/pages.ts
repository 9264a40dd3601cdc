// The app's pages and the file each is served from, in one table: the Electron shell (app://
// URLs, which page an IPC sender shows), the browser host (routing, bridge callers) and the
// contract's page names all read it, so a page is added or renamed here alone.

export const PAGES = ["popover", "dashboard", "settings"] as const;
export type Page = (typeof PAGES)[number];

const PATH_OF: Readonly<Record<Page, string>> = {
  popover: "/popover.html",
  dashboard: "/dashboard.html",
  settings: "/settings.html",
};

const PAGE_OF: ReadonlyMap<string, Page> = new Map(PAGES.map((p) => [PATH_OF[p], p]));

/** The page `app://desk/` serves at its root (and the browser host's main origin too). */
export const ROOT_PAGE: Page = "popover";

/** True for the name of one of the pages. */
export function isPage(value: unknown): value is Page {
  return typeof value === "string" && (PAGES as readonly string[]).includes(value);
}

/** The path a page is served at below its origin (or the host's secret): `/dashboard.html`. */
export function pagePath(page: Page): string {
  return PATH_OF[page];
}

/** The page a path names exactly, or null: no root, no query, no other spelling. */
export function pageOfPath(path: string): Page | null {
  return PAGE_OF.get(path) ?? null;
}
