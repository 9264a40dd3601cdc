// One way to name a card slot and a pin, shared by every page and the pure modules.
import type { CardEntry } from "../../main/core/types.ts";
import type { CardRef } from "../../preload/contract.ts";

type Keyed = Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">;

// The keys themselves are the core's, so main (tray, notifications) and pages agree.
export { cardKeyOf as cardKey, pinKeyOf as pinKey } from "../../main/core/glance.ts";

export function parsePinKey(key: string): { gatewayId: string; sessionKey: string } | null {
  const i = key.indexOf("\u0000");
  if (i <= 0 || i === key.length - 1) return null;
  return { gatewayId: key.slice(0, i), sessionKey: key.slice(i + 1) };
}

export function cardRef(e: Keyed): CardRef {
  return { gatewayId: e.gatewayId, sessionKey: e.sessionKey, agentId: e.agentId };
}
