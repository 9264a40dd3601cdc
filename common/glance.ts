// What every glance surface (tray, notifications, `watch`) agrees on: which cards are
// shown, in what order, and the one-line form of a card's note (note-line.ts, the card's too).
import type { CardEntry, DeskSnapshot } from "./model.ts";

export { noteLine } from "./note-line.ts";

/** Visible cards, most recently updated first (the popover's order, P2). */
export function visibleCards(snapshot: DeskSnapshot): CardEntry[] {
  return snapshot.gateways
    .flatMap((g) => g.cards)
    .filter((e) => e.card !== null && !e.hidden)
    .sort((a, b) => (b.card?.updatedAt ?? 0) - (a.card?.updatedAt ?? 0) || a.sessionKey.localeCompare(b.sessionKey));
}
