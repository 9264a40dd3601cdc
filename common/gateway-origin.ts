// A Gateway secret is bound to the server it was saved for: its origin (scheme, host,
// port). Pure, so the Settings page can warn with the same rule the core applies.

/**
 * `ws://host:port` of a Gateway address, normalised: host case, default ports (80 for
 * ws, 443 for wss) and any path or trailing slash do not change it; ws and wss differ.
 * null when the text is not a ws:// or wss:// address.
 */
export function gatewayOrigin(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if ((u.protocol !== "ws:" && u.protocol !== "wss:") || u.host === "") return null;
  return `${u.protocol}//${u.host}`;
}

/** True when saved secrets of `savedUrl` must not go to `nextUrl` (another server, or an unreadable address). */
export function originChanged(savedUrl: string, nextUrl: string): boolean {
  const a = gatewayOrigin(savedUrl);
  const b = gatewayOrigin(nextUrl);
  return a === null || b === null || a !== b;
}
