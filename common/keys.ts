// Every composite key in one place, each named for what it identifies. A NUL joins the parts:
// it cannot occur in a Gateway id, a session key or an agent id, so no two different parts
// lists give the same key. `gatewaySessionKey` is persisted (Settings.pinned): its format must
// not change (test/unit/keys.test.ts pins it).

const SEP = "\u0000";

type CardIdentity = { gatewayId: string; sessionKey: string; agentId: string | null };

/**
 * One card across Gateways: its Gateway, its session and, for a bare session key, its agent
 * (G4, G5; an `agent:<id>:…` key names its agent itself). Kept in memory only: the tray's seen
 * and flagged cards, notifications, the card history's index, the pages' card maps and expansion.
 */
export function cardSlotKey(ref: CardIdentity): string {
  const agent = ref.sessionKey.startsWith("agent:") ? "" : (ref.agentId ?? "");
  return `${ref.gatewayId}${SEP}${ref.sessionKey}${SEP}${agent}`;
}

/**
 * One session on one Gateway, whatever agent reads its card. Stored in Settings.pinned (pins);
 * also keys activity and run state in memory.
 */
export function gatewaySessionKey(ref: { gatewayId: string; sessionKey: string }): string {
  return `${ref.gatewayId}${SEP}${ref.sessionKey}`;
}

/** The parts of a `gatewaySessionKey`, or null when it is not one. */
export function parseGatewaySessionKey(key: string): { gatewayId: string; sessionKey: string } | null {
  const i = key.indexOf(SEP);
  if (i <= 0 || i === key.length - 1) return null;
  return { gatewayId: key.slice(0, i), sessionKey: key.slice(i + 1) };
}

/** True when a `gatewaySessionKey` or a `cardSlotKey` belongs to this Gateway. */
export function isOnGateway(key: string, gatewayId: string): boolean {
  return key.startsWith(`${gatewayId}${SEP}`);
}

/**
 * One card slot within one Gateway (G4), in the card store's map: an `agent:<id>:…` key names
 * its agent itself; a bare key is read per agent, so the agent is part of the slot.
 */
export function slotKeyWithinGateway(sessionKey: string, agentId: string | null): string {
  return sessionKey.startsWith("agent:") || !agentId ? sessionKey : `${sessionKey}${SEP}${agentId}`;
}

/**
 * One needs-you entry (an approval or a question) across Gateways: its Gateway and its id. Kept
 * on the pages only (drafts, focus, `data-need-key`); U+0001 joins the parts, so the key is safe
 * in an attribute selector once CSS-escaped.
 */
export function needEntryKey(entry: { gatewayId: string; id: string }): string {
  return `${entry.gatewayId}\u0001${entry.id}`;
}
