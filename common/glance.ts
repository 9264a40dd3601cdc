// What every glance surface (tray, notifications, `watch`) agrees on: which cards are
// shown, and in what order. A note's one-line form is note-line.ts's (the card's too).
import type { CardEntry, DeskSnapshot } from "./model.ts";

/** Visible cards, most recently updated first (the popover's order, P2). */
export function visibleCards(snapshot: DeskSnapshot): CardEntry[] {
  return snapshot.gateways
    .flatMap((g) => g.cards)
    .filter((e) => e.card !== null && !e.hidden)
    .sort((a, b) => (b.card?.updatedAt ?? 0) - (a.card?.updatedAt ?? 0) || a.sessionKey.localeCompare(b.sessionKey));
}
