// The Control UI address of one session on the Gateway that serves it:
// http(s)://<host:port>/chat/<agentId>/<the key's trailing UUID as 32 hex characters>.
// Never carries a secret: credentials, query and fragment of the Gateway URL are dropped
// (the Control UI asks for auth itself when it needs it).

const TRAILING_UUID = /([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;
const AGENT_KEY = /^agent:([^:]+):/;
/** Agent ids the Control UI route accepts (one path segment, no escaping needed). */
const SAFE_AGENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `http(s)://host:port` of the Control UI on a Gateway (ws → http, wss → https), or null. */
function controlUiOrigin(gatewayUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(gatewayUrl);
  } catch {
    return null;
  }
  const scheme = url.protocol === "ws:" ? "http:" : url.protocol === "wss:" ? "https:" : null;
  return scheme && url.host ? `${scheme}//${url.host}` : null;
}

/** The session's Control UI chat page, or null where no route can be built. */
export function sessionLink(gatewayUrl: string, sessionKey: string): string | null {
  const origin = controlUiOrigin(gatewayUrl);
  if (!origin) return null;
  const uuid = TRAILING_UUID.exec(sessionKey);
  // The UUID must be the key's own last segment, not the tail of a longer token.
  if (!uuid || (uuid.index > 0 && sessionKey[uuid.index - 1] !== ":")) return null;
  const agentId = AGENT_KEY.exec(sessionKey)?.[1] ?? "main";
  if (!SAFE_AGENT.test(agentId)) return null;
  const hex = uuid.slice(1).join("").toLowerCase();
  return `${origin}/chat/${agentId}/${hex}`;
}

/** The link of a card's session on its own Gateway (by id among `gateways`), or null. */
export function cardSessionLink(
  gateways: readonly { id: string; url: string }[],
  card: { gatewayId: string; sessionKey: string },
): string | null {
  const gateway = gateways.find((g) => g.id === card.gatewayId);
  return gateway ? sessionLink(gateway.url, card.sessionKey) : null;
}

/**
 * A Control UI page on the Gateway that serves it, from a path the core made (`/approve/<id>`,
 * `/ask/<id>`): the Gateway's scheme and host only, never its credentials, query or fragment.
 */
export function controlUiLink(gatewayUrl: string, path: string): string | null {
  const origin = controlUiOrigin(gatewayUrl);
  if (!origin || !/^\/[A-Za-z0-9._~%/-]*$/.test(path)) return null;
  return `${origin}${path}`;
}

/**
 * The Control UI page of a pending needs-you entry on its own Gateway, from the entry the
 * snapshot holds (never from what a page says the path is); null for an unknown Gateway, an
 * entry gone, or one without a page.
 */
export function needPageLink(
  gateways: readonly { id: string; url: string; needs: { entries: readonly { id: string; linkPath: string | null }[] } }[],
  need: { gatewayId: string; id: string },
): string | null {
  const gateway = gateways.find((g) => g.id === need.gatewayId);
  const entry = gateway?.needs.entries.find((e) => e.id === need.id);
  return gateway && entry?.linkPath ? controlUiLink(gateway.url, entry.linkPath) : null;
}
