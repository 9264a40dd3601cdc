// What the person has seen and what is in front of them. A finished or paused card asks
// for a look (the tray's "ready" and attention states) until the person has seen it: in the
// popover when it shows cards, or by opening that card. A card in the focused popover, or
// pinned on the focused dashboard, is in front of them, so no notice is needed for it. A
// milestone the OS would not show is flagged so the tray asks for a look instead.
import type { CardRef, Settings } from "../../../common/contract.ts";
import { visibleCards } from "../../../common/visible-cards.ts";
import { TrayTracker } from "../../core/tray-model.ts";
import type { CardEntry, DeskChange, DeskSnapshot, Unsubscribe } from "../../../common/model.ts";
import { cardSlotKey, gatewaySessionKey } from "../../../common/keys.ts";

/** Which of the shell's windows has the focus now. */
export type InFront = { popoverFocused(): boolean; dashboardFocused(): boolean };

export type AttentionContext = {
  desk: { snapshot(): DeskSnapshot; subscribe(listener: (change: DeskChange) => void): Unsubscribe };
  settings: { view(): Pick<Settings, "showCards" | "pinned"> };
  inFront: InFront;
  now: () => number;
};

export type Attention = {
  /** Seen state, flags and disconnect times, from which the tray model is drawn. */
  tracker: TrayTracker;
  /** The person opened these cards. */
  seeCards(refs: CardRef[]): void;
  /** The popover came up: with cards shown, the person sees every card. */
  seePopover(): void;
  /** N3: true while this card is shown in a focused window. */
  isVisibleInFocusedWindow(ref: CardRef): boolean;
  /** N7: a milestone the OS did not show stays visible as the tray's attention state. */
  flagRefused(card: CardRef | null, reason: string): void;
  /** Called whenever what asks for a look changed. */
  onChanged(listener: () => void): Unsubscribe;
  dispose(): void;
};

export function setupAttention(ctx: AttentionContext): Attention {
  const tracker = new TrayTracker();
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const l of [...listeners]) l();
  };
  const allCards = (): CardEntry[] => visibleCards(ctx.desk.snapshot());
  const markSeen = (entries: CardEntry[]): void => {
    if (tracker.markSeen(entries)) changed();
  };
  const popoverShowsCards = (): boolean => ctx.inFront.popoverFocused() && ctx.settings.view().showCards;

  const unsubscribe = ctx.desk.subscribe((change) => {
    if (change.type === "connection") tracker.noteConnection(change.gatewayId, change.connection, ctx.now());
    if (change.type === "gateways") {
      for (const g of ctx.desk.snapshot().gateways) tracker.noteConnection(g.id, g.connection, ctx.now());
    }
    // A card that changes in front of the person is seen as it changes.
    if (change.type === "card" && popoverShowsCards()) markSeen([change.entry]);
  });

  return {
    tracker,
    seeCards(refs) {
      const keys = new Set(refs.map(cardSlotKey));
      markSeen(allCards().filter((e) => keys.has(cardSlotKey(e))));
    },
    seePopover() {
      if (ctx.settings.view().showCards) markSeen(allCards());
    },
    isVisibleInFocusedWindow(ref) {
      if (popoverShowsCards()) return true;
      if (ctx.inFront.dashboardFocused()) return ctx.settings.view().pinned.includes(gatewaySessionKey(ref));
      return false;
    },
    flagRefused(card, reason) {
      if (card) tracker.flag(card, `notification refused: ${reason}`);
      changed();
    },
    onChanged(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose: unsubscribe,
  };
}
