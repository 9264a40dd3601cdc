// One way to name a card slot and a pin, shared by every page and the pure modules.
import type { CardEntry } from "../../common/model.ts";
import type { CardRef } from "../../common/contract.ts";

type Keyed = Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">;

// The keys themselves are common/keys.ts's, so main (tray, notifications) and pages agree.
export { cardKeyOf as cardKey, pinKeyOf as pinKey, parseSessionOnGatewayKey as parsePinKey } from "../../common/keys.ts";

export function cardRef(e: Keyed): CardRef {
  return { gatewayId: e.gatewayId, sessionKey: e.sessionKey, agentId: e.agentId };
}

/** A needs-you entry's key on a page (its Gateway and id; safe in an attribute selector once CSS-escaped). */
export function needKey(e: { gatewayId: string; id: string }): string {
  return `${e.gatewayId}\u0001${e.id}`;
}
