// Serving the built pages, one rule for both ways they are served: the Electron app
// protocol (no network at all) and the browser host (its own socket only). Which file a
// path names, with what type, under which Content-Security-Policy.
import { existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { pagePath, ROOT_PAGE } from "../../common/pages.ts";

export function pageContentSecurityPolicy(connectSrc: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connectSrc}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

/**
 * True when a decoded path has a "." or ".." segment (with "/" or "\\" as the separator). Such a
 * path names a file by where it climbs to, not by its name: `assets/../settings.html` would be
 * Settings served on the main origin, past the host's routing by name.
 */
export function hasDotSegment(decodedPath: string): boolean {
  return decodedPath.split(/[/\\]/).some((segment) => segment === "." || segment === "..");
}

/**
 * The file under `pagesDir` that a URL path names ("/" is the root page), or null for
 * anything outside it, undecodable, climbing through a dot segment, or missing.
 */
export function resolvePageFile(pagesDir: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath === "/" || urlPath === "" ? pagePath(ROOT_PAGE) : urlPath);
  } catch {
    return null;
  }
  if (rel.includes("\0") || hasDotSegment(rel)) return null;
  const root = normalize(pagesDir);
  const file = normalize(join(root, rel));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || !statSync(file).isFile()) return null;
  return file;
}

/** Headers on every reply, refusals and redirects included: no sniffing, no caching, no referrer. */
export function replyHeaders(): Record<string, string> {
  return {
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
  };
}

/** Response headers for a page file: its type, the CSP, and no sniffing, referrers or framing. */
export function pageHeaders(file: string, csp: string): Record<string, string> {
  return {
    ...replyHeaders(),
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "content-security-policy": csp,
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
}
