// P6 (issue 21): what of the desk's change stream a page hears. A card slot that says nothing (no card,
// no error, not hidden, no update asked for) is dropped by a page, which shows only slots that say
// something; so a page hears such a slot only when it said something before (the page must drop it).
// At start-up most sessions hold no card and each says so once: 700 of about 1,000 messages for
// 1,000 sessions, each parsed and handled by every page for nothing.
import { cardSlotKey } from "../../common/keys.ts";
import type { CardEntry, DeskChange, DeskSnapshot } from "../../common/model.ts";

/** Whether a page shows anything for this slot (as renderer/lib/desk-state.svelte.ts decides). */
export const saysSomething = (e: CardEntry): boolean => e.card !== null || e.error !== null || e.updateRequired || e.hidden;

/**
 * A filter for the changes pages hear, starting from the desk's state now: true when `change`
 * must reach pages. Call it for every change, in order.
 */
export function pageChangeFilter(now: DeskSnapshot): (change: DeskChange) => boolean {
  const saying = new Set<string>();
  for (const g of now.gateways) for (const e of g.cards) if (saysSomething(e)) saying.add(cardSlotKey(e));
  return (change) => {
    if (change.type !== "card") return true;
    const key = cardSlotKey(change.entry);
    if (saysSomething(change.entry)) {
      saying.add(key);
      return true;
    }
    return saying.delete(key);
  };
}
