// Which cards a surface lists and in what order: the one rule the tray (P1), the popover (P2),
// the dashboard's "Pin a card" picker (P3) and `watch` share (P4: every place shows the same
// state). Surfaces may fold or group the list; they never filter or sort it another way.
//
//   Membership: an entry that is not hidden and holds a card (the last good one counts, even
//   beside a read error).
//   Order: most recently updated first; equal times by session key, then Gateway, then agent,
//   compared by code unit so the order is total and the same on every machine.
//
// The popover alone also lists slots that have no card to show but a reason to say so (a
// malformed card, C5; an update required, G4): `shownSlotsOf`. Those are placed by the same
// order, dated by their last confirmation, and leave the cards' own order untouched.
import type { CardEntry, DeskSnapshot } from "./model.ts";

/** Not hidden and holding a card: what every surface lists. */
export function hasVisibleCard(e: CardEntry): boolean {
  return !e.hidden && e.card !== null;
}

/** What the popover shows in its list: a visible card, or a reason a slot cannot show one. */
export function isShownSlot(e: CardEntry): boolean {
  if (e.hidden) return false;
  return e.card !== null || e.error?.code === "MALFORMED_CARD" || e.updateRequired;
}

function updatedAt(e: CardEntry): number {
  return e.card?.updatedAt ?? e.confirmedAt ?? 0;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Most recently updated first; a total tie-break, so equal times never swap places. */
export function byRecency(a: CardEntry, b: CardEntry): number {
  return (
    updatedAt(b) - updatedAt(a) ||
    byCodeUnit(a.sessionKey, b.sessionKey) ||
    byCodeUnit(a.gatewayId, b.gatewayId) ||
    byCodeUnit(a.agentId ?? "", b.agentId ?? "")
  );
}

/** The visible cards among `entries`, newest first. */
export function visibleCardsOf(entries: Iterable<CardEntry>): CardEntry[] {
  return [...entries].filter(hasVisibleCard).sort(byRecency);
}

/** The visible cards of every Gateway in a snapshot, newest first. */
export function visibleCards(snapshot: DeskSnapshot): CardEntry[] {
  return visibleCardsOf(snapshot.gateways.flatMap((g) => g.cards));
}

/** The popover's list: visible cards and the slots that say why they show none, newest first. */
export function shownSlotsOf(entries: Iterable<CardEntry>): CardEntry[] {
  return [...entries].filter(isShownSlot).sort(byRecency);
}
