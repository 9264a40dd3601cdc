// E1–E4: whether a card is open or closed on the desktop, and whether a change of that
// state may animate. Pure: no DOM, no Svelte; the popover feeds it the change stream.
//
// The choice is remembered per card (gatewayId + sessionKey + agentId) for the current
// connection to a Gateway. A reconnect of the same Gateway (a new `since`, same URL) is
// the same connection for this purpose — E3 says reconnects never reopen a collapsed
// card — so the choices carry over. Another connection starts fresh: the Gateway's URL
// changed, the Gateway was removed, or it came back after its credentials were refused
// (auth_failed: the next connection may be another account). The page's lifetime is the
// app's, so a restart forgets everything.
import type { CardEntry, ConnectionState } from "../../common/model.ts";
import { cardSlotKey } from "../../common/keys.ts";

type Keyed = Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">;

type CardMemory = {
  open: boolean;
  /** The person toggled it; nothing automatic changes it afterwards (E3). */
  manual: boolean;
  /** A read confirmed the card was cleared: the next card on this key is new (E2). */
  cleared: boolean;
  /** confirmedAt of the last entry seen with a card, to tell a read's null from our own. */
  seenConfirmedAt: number | null;
  /** E4: only a change the person made may animate; an initial state never does. */
  animate: boolean;
};

type Scope = {
  url: string | null;
  since: number | null;
  cards: Map<string, CardMemory>;
};

export type ExpansionOptions = { collapseByDefault?: boolean };

export class ExpansionMemory {
  private readonly scopes = new Map<string, Scope>();
  /** Gateways whose last non-connected state was auth_failed. */
  private readonly refused = new Set<string>();
  private collapseByDefault: boolean;
  private readonly listeners = new Set<() => void>();

  constructor(opts: ExpansionOptions = {}) {
    this.collapseByDefault = opts.collapseByDefault ?? false;
  }

  /** S2. Applies to cards that are new from now on; a shown card keeps its state. */
  setCollapseByDefault(value: boolean): void {
    this.collapseByDefault = value;
  }

  /** The open state a new card starts in (E1). */
  defaultOpen(): boolean {
    return !this.collapseByDefault;
  }

  /** Feed every connection state of a Gateway (and its URL, when known). */
  connection(gatewayId: string, state: ConnectionState, url: string | null = null): void {
    if (state.state === "auth_failed") {
      this.refused.add(gatewayId);
      return;
    }
    if (state.state !== "connected") return;
    const refused = this.refused.delete(gatewayId);
    const scope = this.scopes.get(gatewayId);
    if (!scope) {
      this.scopes.set(gatewayId, { url, since: state.since, cards: new Map() });
      return;
    }
    const otherUrl = url !== null && scope.url !== null && scope.url !== url;
    // Refused after a connection this page saw: the credentials changed, maybe the account.
    const otherCredentials = refused && scope.since !== null;
    if (otherUrl || otherCredentials) {
      this.scopes.set(gatewayId, { url, since: state.since, cards: new Map() });
      this.emit();
      return;
    }
    // A reconnect, or the first connection after the page saw the Gateway's cards offline.
    scope.since = state.since;
    if (url !== null) scope.url = url;
  }

  /** The Gateway was removed from Settings: anything it comes back with is fresh. */
  forgetGateway(gatewayId: string): void {
    if (this.scopes.delete(gatewayId)) this.emit();
    this.refused.delete(gatewayId);
  }

  /**
   * Feed every card entry the page receives (snapshot and changes), in order. Returns true
   * when the entry changed what isOpen() answers for it.
   */
  observe(entry: CardEntry): boolean {
    const scope = this.scope(entry.gatewayId);
    const key = cardSlotKey(entry);
    const mem = scope.cards.get(key);
    if (entry.card === null) {
      if (mem && confirmsClear(entry, mem)) mem.cleared = true;
      return false;
    }
    if (!mem || mem.cleared) {
      // E1/E2: a card we never saw on this connection, or the first after a confirmed clear.
      const open = this.defaultOpen();
      scope.cards.set(key, { open, manual: false, cleared: false, seenConfirmedAt: entry.confirmedAt, animate: false });
      const changed = mem !== undefined && mem.open !== open;
      if (changed) this.emit();
      return changed;
    }
    // An update (new revision, new note, run finished, re-read after reconnect, a lower
    // revision without a confirmed clear): the choice stays (E2, E3).
    mem.seenConfirmedAt = entry.confirmedAt;
    return false;
  }

  /** Whether a card shows open; a card never observed gets the default. */
  isOpen(card: Keyed): boolean {
    return this.scopes.get(card.gatewayId)?.cards.get(cardSlotKey(card))?.open ?? this.defaultOpen();
  }

  /** E4: the person clicked the title bar (or pressed Enter/Space on it). */
  toggle(card: Keyed): boolean {
    return this.setOpen(card, !this.isOpen(card));
  }

  /** The person opened or closed the card (e.g. from a notification that opens it). */
  setOpen(card: Keyed, open: boolean): boolean {
    const scope = this.scope(card.gatewayId);
    const key = cardSlotKey(card);
    const mem = scope.cards.get(key);
    if (mem) {
      mem.open = open;
      mem.manual = true;
      mem.animate = true;
    } else {
      scope.cards.set(key, { open, manual: true, cleared: false, seenConfirmedAt: null, animate: true });
    }
    this.emit();
    return open;
  }

  /** Whether the person has made a choice for this card on this connection. */
  isManual(card: Keyed): boolean {
    return this.scopes.get(card.gatewayId)?.cards.get(cardSlotKey(card))?.manual ?? false;
  }

  /** E4: a card shows its initial state without animation; only the person's toggles animate. */
  mayAnimate(card: Keyed): boolean {
    return this.scopes.get(card.gatewayId)?.cards.get(cardSlotKey(card))?.animate ?? false;
  }

  /** Called whenever a state could have changed, for a reactive wrapper. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private scope(gatewayId: string): Scope {
    let scope = this.scopes.get(gatewayId);
    if (!scope) {
      scope = { url: null, since: null, cards: new Map() };
      this.scopes.set(gatewayId, scope);
    }
    return scope;
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

/**
 * E2: the Gateway confirmed the clear only when a read on a live connection returned no
 * card. Our own dismiss empties the slot before that read (same confirmedAt as the card
 * we saw), and an unknown agent drops it without a read: neither confirms.
 */
function confirmsClear(entry: CardEntry, mem: CardMemory): boolean {
  return (
    entry.card === null &&
    entry.error === null &&
    !entry.hidden &&
    !entry.updateRequired &&
    entry.freshness === "live" &&
    entry.confirmedAt !== null &&
    entry.confirmedAt !== mem.seenConfirmedAt
  );
}
