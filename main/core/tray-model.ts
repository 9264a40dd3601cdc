// P1: the menu-bar glance as data. One icon state for every session on every Gateway, a
// short title for the focused card, and the menu rows. Pure: the Electron tray only
// draws what this returns, so the rules live here and are unit-tested.
//
// Icon priority: needs you > keychain unavailable > disconnected (nothing reachable) > attention > ready
// > working > idle. Saved secrets the keychain won't give back are the likely cause of every
// sign-in failing, and only the person can fix it, so that asks first. Above all, an agent
// waiting on the person (an approval or a question, on any Gateway) is shown with its count:
// it stops work until answered, and is denied when it expires.
// - attention: a paused, failed or unreadable card, a flagged one (a notification the OS
//   refused, N7, or a stall), or a Gateway that needs the person (pairing, auth, update);
// - ready: finished work the person has not seen yet;
// - a card stops asking once the person has seen that revision (a new revision asks again),
//   so a paused card the person chose to leave does not keep the icon red all day.
// Only what asks for action is counted in the badge. A passing disconnect shows only
// after it has lasted `disconnectDebounceMs`; pairing and auth failures show at once.
import type { CardRef } from "../../common/contract.ts";
import { KEYCHAIN_UNAVAILABLE } from "../../common/credential-storage.ts";
import { visibleCards } from "../../common/visible-cards.ts";
import { noteLine } from "../../common/note-line.ts";
import { cardSessionLink } from "../../common/session-link.ts";
import { truncate } from "../../common/truncate.ts";
import type { CardDerived, CardEntry, ConnectionState, DeskSnapshot, GatewaySnapshot, NeedRef } from "../../common/model.ts";
import { needKindLabel, needSummary, needYouText, pendingNeeds } from "../../common/needs-view.ts";
import { cardSlotKey, gatewaySessionKey } from "../../common/keys.ts";
import type { UpdateView } from "../../common/updates.ts";
import { updateMenu, type UpdateMenu } from "./updates/update-menu.ts";

export type TrayIconState = "idle" | "working" | "ready" | "attention" | "needs" | "disconnected";
export type TrayRowState = "active" | "paused" | "complete" | "note" | "failed" | "error";

export type TrayCardRow = {
  ref: CardRef;
  label: string;
  state: TrayRowState;
  asks: boolean;
  /** A Control UI route exists for this card's session (common/session-link.ts). */
  hasSession: boolean;
};
/** One entry waiting on the person: a click opens the popover at it. */
export type TrayNeedRow = { ref: NeedRef; label: string };
export type TrayConnectionRow = { gatewayId: string; state: ConnectionState["state"]; label: string; needsAction: boolean };

export type TrayModel = {
  icon: TrayIconState;
  /** How many things ask for action (cards and Gateways); 0 shows no badge. */
  badge: number;
  /** The focused card in a few words (`2/5 Repair session owner`), "" when off or nothing to say. */
  title: string;
  tooltip: string;
  cards: TrayCardRow[];
  /** Cards left out of the menu (shown in the popover). */
  moreCards: number;
  connections: TrayConnectionRow[];
  /** Approvals and questions waiting on the person, on every Gateway (oldest first, at most MENU_MAX_NEEDS). */
  needs: TrayNeedRow[];
  /** How many wait in all. */
  needCount: number;
  /** U5, U7: "Restart to Update" at the top, "Check for Updates…" and its result (null: the shell has no updates). */
  updates: UpdateMenu | null;
};

export const TITLE_BUDGET = 28;
export const MENU_LABEL_BUDGET = 64;
export const MENU_MAX_CARDS = 10;
export const MENU_MAX_NEEDS = 10;
export const DEFAULT_DISCONNECT_DEBOUNCE_MS = 20_000;

const NEEDS_PERSON = new Set<ConnectionState["state"]>(["pairing_required", "auth_failed", "update_required"]);

/**
 * The tray's memory between snapshots: when each Gateway went down, which card revisions
 * the person has seen, and flags raised outside the card (N7, stalls).
 */
export class TrayTracker {
  private readonly downSince = new Map<string, number>();
  private readonly seen = new Map<string, number>();
  private readonly flags = new Map<string, string>();
  private readonly debounceMs: number;

  constructor(opts: { disconnectDebounceMs?: number } = {}) {
    this.debounceMs = opts.disconnectDebounceMs ?? DEFAULT_DISCONNECT_DEBOUNCE_MS;
  }

  /** Call on every connection change (and once per Gateway at start). */
  noteConnection(gatewayId: string, state: ConnectionState, now: number): void {
    if (state.state === "connected") this.downSince.delete(gatewayId);
    else if (!this.downSince.has(gatewayId)) this.downSince.set(gatewayId, now);
  }

  forgetGateway(gatewayId: string): void {
    this.downSince.delete(gatewayId);
  }

  /** The person saw these cards (the popover was shown with them, or one was opened). */
  markSeen(entries: Iterable<Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId" | "card">>): boolean {
    let changed = false;
    for (const e of entries) {
      if (!e.card) continue;
      const key = cardSlotKey(e);
      if (this.seen.get(key) !== e.card.revision) {
        this.seen.set(key, e.card.revision);
        changed = true;
      }
      if (this.flags.delete(key)) changed = true;
    }
    return changed;
  }

  /** Raise attention for one card (a refused notification, a stall); seeing it clears it. */
  flag(ref: CardRef, reason: string): void {
    this.flags.set(cardSlotKey(ref), reason);
  }

  unflag(ref: CardRef): void {
    this.flags.delete(cardSlotKey(ref));
  }

  /** When a pending disconnect becomes visible, so the shell can redraw then (null: none pending). */
  nextChangeAt(now: number): number | null {
    let next: number | null = null;
    for (const since of this.downSince.values()) {
      const at = since + this.debounceMs;
      if (at > now && (next === null || at < next)) next = at;
    }
    return next;
  }

  model(snapshot: DeskSnapshot, now: number, opts: { showTitle: boolean; updates?: UpdateView }): TrayModel {
    return trayModel(snapshot, now, {
      showTitle: opts.showTitle,
      ...(opts.updates ? { updates: opts.updates } : {}),
      isDown: (g) =>
        NEEDS_PERSON.has(g.connection.state) ||
        (g.connection.state !== "connected" && now - (this.downSince.get(g.id) ?? now) >= this.debounceMs),
      seenRevision: (e) => this.seen.get(cardSlotKey(e)) ?? null,
      flag: (e) => this.flags.get(cardSlotKey(e)) ?? null,
    });
  }
}

type ModelInputs = {
  showTitle: boolean;
  updates?: UpdateView;
  isDown: (g: GatewaySnapshot) => boolean;
  seenRevision: (e: CardEntry) => number | null;
  flag: (e: CardEntry) => string | null;
};

/** A visible card's derived state: the core derives it with every card it keeps. */
function derivedOf(e: CardEntry): CardDerived {
  if (!e.derived) throw new Error(`the card of ${e.sessionKey} has no derived state`);
  return e.derived;
}

function rowState(e: CardEntry): TrayRowState {
  if (e.error && e.error.code === "MALFORMED_CARD") return "error";
  const d = derivedOf(e);
  if (d.outcome === "failed" || d.outcome === "killed" || d.outcome === "timeout") return "failed";
  return d.state;
}

const ASKING: ReadonlySet<TrayRowState> = new Set(["paused", "failed", "error"]);

export function trayModel(snapshot: DeskSnapshot, now: number, inputs: ModelInputs): TrayModel {
  const gateways = snapshot.gateways;
  const many = gateways.length > 1;
  const labelOf = new Map(gateways.map((g) => [g.id, g.label]));
  const running = new Set(
    gateways.flatMap((g) => g.sessions.filter((s) => s.hasActiveRun).map((s) => gatewaySessionKey({ gatewayId: g.id, sessionKey: s.key }))),
  );

  const cards = visibleCards(snapshot).map((e) => {
    const state = rowState(e);
    const unseen = inputs.seenRevision(e) !== e.card?.revision;
    const flagged = inputs.flag(e) !== null;
    const working = state === "active" || (state === "note" && running.has(gatewaySessionKey(e)));
    return { e, state, working, asks: flagged || (unseen && ASKING.has(state)), ready: unseen && state === "complete" };
  });

  const down = gateways.filter(inputs.isDown);
  const needPerson = gateways.filter((g) => NEEDS_PERSON.has(g.connection.state));
  // Live runs (agent events): a stalled one asks for a look; one without a card still works.
  const live = gateways.flatMap((g) => (g.activity ?? []).filter((a) => a.live));
  const withCard = new Set(cards.map((c) => gatewaySessionKey(c.e)));
  const stalled = live.filter((a) => a.stall !== null);
  const cardless = live.filter((a) => !withCard.has(gatewaySessionKey(a)));
  const asking = cards.filter((c) => c.asks);
  const ready = cards.filter((c) => c.ready);
  const working = cards.filter((c) => c.working);

  const allDown = gateways.length > 0 && down.length === gateways.length;
  const keychainDown = snapshot.credentials === "unavailable";
  const needs = pendingNeeds(snapshot);
  const icon: TrayIconState =
    needs.length > 0
      ? "needs"
      : keychainDown
        ? "attention"
        : allDown
          ? "disconnected"
          : asking.length > 0 || needPerson.length > 0 || stalled.length > 0
            ? "attention"
            : ready.length > 0
              ? "ready"
              : working.length > 0 || live.length > 0
                ? "working"
                : "idle";
  const badge = needs.length + (keychainDown ? 1 : 0) + needPerson.length + (allDown ? 0 : asking.length + stalled.length);

  // The title follows work in progress first (a card, else a live run's current tool, so
  // the menu bar is never blank during real work), then what asks, then what finished.
  const focus = allDown ? null : (working[0] ?? null);
  const liveLabel = !allDown && !focus && cardless[0] ? truncate(cardless[0].current?.label ?? "Working", TITLE_BUDGET) : null;
  const fallback = allDown || focus || liveLabel ? null : (asking[0] ?? ready[0] ?? null);
  const title = !inputs.showTitle
    ? ""
    : needs.length > 0
      ? needYouText(needs.length)
      : focus
        ? titleFor(focus.e)
        : (liveLabel ?? (fallback ? titleFor(fallback.e) : ""));

  const rows: TrayCardRow[] = cards.slice(0, MENU_MAX_CARDS).map((c) => ({
    ref: { gatewayId: c.e.gatewayId, sessionKey: c.e.sessionKey, agentId: c.e.agentId },
    label: truncate(
      `${many ? `${labelOf.get(c.e.gatewayId) ?? c.e.gatewayId} · ` : ""}${c.e.title} — ${rowDetail(c.e, c.state)}`,
      MENU_LABEL_BUDGET,
    ),
    state: c.state,
    asks: c.asks || c.ready,
    hasSession: cardSessionLink(gateways, c.e) !== null,
  }));

  return {
    icon,
    badge,
    title,
    tooltip:
      needs.length > 0
        ? `Progress Desk — ${needYouText(needs.length)}${keychainDown ? ` (${KEYCHAIN_UNAVAILABLE})` : ""}`
        : keychainDown
          ? `Progress Desk — ${KEYCHAIN_UNAVAILABLE}`
          : tooltipFor(icon, {
              working: working.length + cardless.length,
              ready: ready.length,
              asking: asking.length + needPerson.length + stalled.length,
              down: down.map((g) => g.label),
            }),
    cards: rows,
    moreCards: Math.max(0, cards.length - MENU_MAX_CARDS),
    connections: gateways.map((g) => ({
      gatewayId: g.id,
      state: g.connection.state,
      label: truncate(`${g.label}: ${connectionPhrase(g.connection, now)}`, MENU_LABEL_BUDGET),
      needsAction: NEEDS_PERSON.has(g.connection.state),
    })),
    needs: needs.slice(0, MENU_MAX_NEEDS).map((e) => ({
      ref: { gatewayId: e.gatewayId, id: e.id },
      label: truncate(
        `${many ? `${labelOf.get(e.gatewayId) ?? e.gatewayId} · ` : ""}${needKindLabel(e)}: ${needSummary(e, MENU_LABEL_BUDGET)}`,
        MENU_LABEL_BUDGET,
      ),
    })),
    needCount: needs.length,
    updates: inputs.updates ? updateMenu(inputs.updates) : null,
  };
}

/** `2/5 Repair session owner`, or the title alone for a note-only card. */
export function titleFor(e: CardEntry): string {
  const d = derivedOf(e);
  return truncate(d.total > 0 ? `${d.completed}/${d.total} ${e.title}` : e.title, TITLE_BUDGET);
}

function rowDetail(e: CardEntry, state: TrayRowState): string {
  const d = derivedOf(e);
  const count = d.total > 0 ? ` (${d.completed}/${d.total})` : "";
  switch (state) {
    case "error":
      return "cannot be shown";
    case "complete":
      return `done${count}`;
    case "failed":
      return `run ${d.outcome === "timeout" ? "timed out" : d.outcome}${d.current ? ` at ${d.current}` : ""}${count}`;
    case "paused":
      return `paused${d.current ? ` at ${d.current}` : ""}${count}`;
    case "note":
      return noteLine(e.card?.markdown ?? null) ?? "Progress updated";
    case "active":
      return `${d.current ?? "working"}${count}`;
  }
}

export function connectionPhrase(c: ConnectionState, now: number): string {
  switch (c.state) {
    case "connected":
      return c.limited ? "Connected — limited access" : "Connected";
    case "connecting":
      return "Connecting…";
    case "offline": {
      const s = Math.ceil((c.nextRetryAt - now) / 1000);
      return `${c.restarting ? "Restarting" : "Offline"} — ${s > 0 ? `retrying in ${s} s` : "retrying now"}`;
    }
    case "pairing_required":
      return "Pairing required — approve on the Gateway host";
    case "auth_failed":
      return `Sign-in failed — check the ${c.setting}`;
    case "update_required":
      return "Gateway update required";
  }
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

function tooltipFor(icon: TrayIconState, n: { working: number; ready: number; asking: number; down: string[] }): string {
  if (icon === "disconnected") return `Progress Desk — not connected (${n.down.join(", ")})`;
  const parts = [
    n.asking > 0 ? `${plural(n.asking, "item")} need${n.asking === 1 ? "s" : ""} a look` : null,
    n.ready > 0 ? `${n.ready} finished` : null,
    n.working > 0 ? `${n.working} working` : null,
  ].filter((p): p is string => p !== null);
  return `Progress Desk — ${parts.length > 0 ? parts.join(", ") : "nothing in progress"}`;
}
