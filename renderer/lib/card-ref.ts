// A card's reference for the contract (dismiss, refresh, open), made from what a page shows.
import type { CardEntry } from "../../common/model.ts";
import type { CardRef } from "../../common/contract.ts";

export function cardRef(e: Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">): CardRef {
  return { gatewayId: e.gatewayId, sessionKey: e.sessionKey, agentId: e.agentId };
}
