// Every composite key in one place. A NUL joins the parts: it cannot occur in a Gateway id,
// a session key or an agent id, so no two different parts lists give the same key.
// `sessionOnGatewayKey` is persisted (Settings.pinned): its format must not change.

const SEP = "\u0000";

type CardIdentity = { gatewayId: string; sessionKey: string; agentId: string | null };

/** A card slot across surfaces: one session (and agent, for bare keys) on one Gateway (G4, G5). */
export function cardKeyOf(ref: CardIdentity): string {
  return `${ref.gatewayId}${SEP}${ref.sessionKey}${SEP}${ref.agentId ?? ""}`;
}

/** One session on one Gateway: pins (Settings.pinned), activity and run state are kept by it. */
export function sessionOnGatewayKey(gatewayId: string, sessionKey: string): string {
  return `${gatewayId}${SEP}${sessionKey}`;
}

/** Settings.pinned names a pinned card by its session on its Gateway. */
export function pinKeyOf(ref: { gatewayId: string; sessionKey: string }): string {
  return sessionOnGatewayKey(ref.gatewayId, ref.sessionKey);
}

/** The parts of a `sessionOnGatewayKey`, or null when it is not one. */
export function parseSessionOnGatewayKey(key: string): { gatewayId: string; sessionKey: string } | null {
  const i = key.indexOf(SEP);
  if (i <= 0 || i === key.length - 1) return null;
  return { gatewayId: key.slice(0, i), sessionKey: key.slice(i + 1) };
}

/** True when a `sessionOnGatewayKey` belongs to this Gateway. */
export function isOnGateway(key: string, gatewayId: string): boolean {
  return key.startsWith(`${gatewayId}${SEP}`);
}

/**
 * A card slot within one Gateway (G4): an `agent:<id>:…` key names its agent itself; a bare
 * key is read per agent, so the agent is part of the slot.
 */
export function slotKey(sessionKey: string, agentId: string | null): string {
  return sessionKey.startsWith("agent:") || !agentId ? sessionKey : `${sessionKey}${SEP}${agentId}`;
}
