// One way to name a card slot and a pin, shared by every page and the pure modules.
import type { CardEntry } from "../../main/core/types.ts";
import type { CardRef } from "../../preload/contract.ts";

type Keyed = Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">;

/** A card slot: one session (and agent, for bare keys) on one Gateway (G4, G5). */
export function cardKey(e: Keyed): string {
  return `${e.gatewayId}\u0000${e.sessionKey}\u0000${e.agentId ?? ""}`;
}

/** Settings.pinned uses `gatewayId\u0000sessionKey` (preload/contract.ts). */
export function pinKey(e: Pick<CardEntry, "gatewayId" | "sessionKey">): string {
  return `${e.gatewayId}\u0000${e.sessionKey}`;
}

export function parsePinKey(key: string): { gatewayId: string; sessionKey: string } | null {
  const i = key.indexOf("\u0000");
  if (i <= 0 || i === key.length - 1) return null;
  return { gatewayId: key.slice(0, i), sessionKey: key.slice(i + 1) };
}

export function cardRef(e: Keyed): CardRef {
  return { gatewayId: e.gatewayId, sessionKey: e.sessionKey, agentId: e.agentId };
}
