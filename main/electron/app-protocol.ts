// The app's own scheme (`app://desk/…`) for its pages, instead of file:// (Electron
// security checklist 18): one origin to check senders and navigations against, and the
// strict CSP as a real response header. Pure except for reading the file it resolves.
import { readFile } from "node:fs/promises";
import type { CardRef, Page } from "../../common/contract.ts";
import type { NeedRef } from "../../common/model.ts";
import { pageContentSecurityPolicy, pageHeaders, resolvePageFile } from "../core/page-files.ts";
import { pagePath } from "../../common/pages.ts";

export const APP_SCHEME = "app";
export const APP_ORIGIN = `${APP_SCHEME}://desk`;
/** The pages talk to main over IPC only: no network at all. */
export const APP_CSP = pageContentSecurityPolicy("'none'");

/** A page's URL; with a card or a needs-you entry, the popover opens and focuses it (N4). */
export function pageUrl(page: Page, target?: CardRef | NeedRef): string {
  return `${APP_ORIGIN}${pagePath(page)}${target ? pageHash(target) : ""}`;
}

/** `#card=<CardRef JSON>` or `#need=<NeedRef JSON>`: what the popover focuses when it opens. */
export function pageHash(target: CardRef | NeedRef): string {
  const kind = "sessionKey" in target ? "card" : "need";
  return `#${kind}=${encodeURIComponent(JSON.stringify(target))}`;
}

/** True only for URLs of our own origin (sender and navigation checks). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === "desk";
  } catch {
    return false;
  }
}

export type AppResponse = { status: number; headers: Record<string, string>; body: Buffer | string };

/** What `app://desk/<path>` answers: a built page file with its headers, or a plain 404. */
export async function appResponse(url: string, pagesDir: string, method = "GET"): Promise<AppResponse> {
  const notFound: AppResponse = { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Not found" };
  if (!isAppUrl(url)) return notFound;
  if (method !== "GET" && method !== "HEAD") return { ...notFound, status: 405, body: "Method not allowed" };
  const file = resolvePageFile(pagesDir, new URL(url).pathname);
  if (file === null) return notFound;
  return { status: 200, headers: pageHeaders(file, APP_CSP), body: method === "HEAD" ? "" : await readFile(file) };
}
