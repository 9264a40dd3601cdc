// P3: which widgets the dashboard shows, in which state, grouped and filtered. Pure.
import { kindOfKey } from "../../common/sessions.ts";
import type { BoardsState, CardEntry, ConnectionState, SessionInfo, SessionKind } from "../../common/model.ts";
import { gatewaySessionKey, parseGatewaySessionKey } from "../../common/keys.ts";
import { visibleCardsOf } from "../../common/visible-cards.ts";
import { firstLoadGoesOn } from "./connection-view.ts";

export type WidgetState = "card" | "loading" | "empty" | "no_access" | "retry" | "offline" | "update_required" | "error";

export type Widget = {
  pin: string;
  gatewayId: string;
  sessionKey: string;
  title: string;
  kind: SessionKind;
  entry: CardEntry | null;
  session: SessionInfo | null;
  state: WidgetState;
  /** What the widget says instead of (or above) the card. */
  notice: string | null;
  finished: boolean;
  /** The parent session's key when this is a sub-agent whose parent is known. */
  parentKey: string | null;
  /** Pinned by the person (Settings.pinned): they can unpin it here. */
  byPerson: boolean;
  /** Pinned by an agent on a Gateway board (P3). */
  byAgent: boolean;
};

export type WidgetGroup = { widget: Widget; children: Widget[] };

export type DashboardInput = {
  /** Settings.pinned, `gatewayId\u0000sessionKey`. */
  pinned: string[];
  /** Per Gateway: the widgets agents pinned on its boards. */
  boards?: Record<string, BoardsState>;
  entries: CardEntry[];
  sessions: Record<string, SessionInfo[]>;
  connections: Record<string, ConnectionState>;
  /** Per Gateway: every card of its roster was read once; a Gateway absent here counts as read. */
  cardsKnown?: Record<string, boolean>;
  kind: SessionKind | "all";
  showFinished: boolean;
};

export const KIND_LABELS: Record<SessionKind, string> = {
  main: "Main",
  dashboard: "Dashboard",
  cron: "Cron",
  subagent: "Sub-agent",
  other: "Other",
};

/**
 * The parent a session row names. SessionInfo has no parent field yet; a row that carries
 * `spawnedBy` or `parentKey` (the Gateway's sessions.list has spawnedBy) is grouped.
 */
export function parentOf(session: SessionInfo | null): string | null {
  const s = session as (SessionInfo & { spawnedBy?: unknown; parentKey?: unknown; parentSessionKey?: unknown }) | null;
  for (const v of [s?.parentKey, s?.parentSessionKey, s?.spawnedBy]) if (typeof v === "string" && v !== "") return v;
  return null;
}

const TERMINAL = new Set(["done", "failed", "killed", "timeout"]);

/** Finished: the session's run ended (and none runs now), or its card is complete with no run. */
export function isFinished(entry: CardEntry | null, session: SessionInfo | null): boolean {
  const running = session?.hasActiveRun === true || session?.status === "running" || session?.status === "queued";
  if (running) return false;
  if (session?.status && TERMINAL.has(session.status)) return true;
  return entry?.derived?.state === "complete";
}

/** The card and session row behind each pin, indexed once per view (300 pins × 1,000 sessions stay cheap). */
export type WidgetLookup = {
  entry(gatewayId: string, sessionKey: string): CardEntry | null;
  session(gatewayId: string, sessionKey: string): SessionInfo | null;
};

export function widgetLookup(entries: CardEntry[], sessions: Record<string, SessionInfo[]>): WidgetLookup {
  const byPin = new Map<string, CardEntry>();
  for (const e of entries) {
    const key = gatewaySessionKey(e);
    const best = byPin.get(key);
    // Several agents on a bare key: the most recently updated card speaks for the pin.
    if (!best || (e.card?.updatedAt ?? 0) > (best.card?.updatedAt ?? 0)) byPin.set(key, e);
  }
  const rows = new Map<string, SessionInfo>();
  for (const [gatewayId, list] of Object.entries(sessions)) {
    for (const s of list) {
      const key = gatewaySessionKey({ gatewayId, sessionKey: s.key });
      if (!rows.has(key)) rows.set(key, s); // the first row wins, as a find() would
    }
  }
  return {
    entry: (gatewayId, sessionKey) => byPin.get(gatewaySessionKey({ gatewayId, sessionKey })) ?? null,
    session: (gatewayId, sessionKey) => rows.get(gatewaySessionKey({ gatewayId, sessionKey })) ?? null,
  };
}

export function widgetFor(
  pin: string,
  entries: CardEntry[],
  sessions: Record<string, SessionInfo[]>,
  connections: Record<string, ConnectionState>,
  source: { byPerson: boolean; byAgent: boolean; title?: string | null } = { byPerson: true, byAgent: false },
  lookup: WidgetLookup = widgetLookup(entries, sessions),
  cardsKnown: Record<string, boolean> = {},
): Widget | null {
  const ref = parseGatewaySessionKey(pin);
  if (!ref) return null;
  const entry = lookup.entry(ref.gatewayId, ref.sessionKey);
  const session = lookup.session(ref.gatewayId, ref.sessionKey);
  const conn = connections[ref.gatewayId];
  let state: WidgetState;
  let notice: string | null = null;
  if (conn?.state === "update_required" || entry?.updateRequired) {
    state = "update_required";
    notice = "Gateway update required: update OpenClaw on the Gateway host to show this card.";
  } else if (entry?.hidden) {
    state = "no_access";
    notice = "No access: the Gateway doesn't share this session with this device right now.";
  } else if (entry?.error?.code === "MALFORMED_CARD" && !entry.card) {
    state = "error";
    notice = `This card couldn't be shown: ${entry.error.message}.`;
  } else if (entry?.card && entry.freshness === "stale") {
    state = "retry";
    notice = "Couldn't refresh — retrying; showing the last card.";
  } else if (entry?.card && entry.freshness === "offline") {
    state = "offline";
    notice = null; // the card says "Offline — last confirmed HH:MM" itself
  } else if (entry?.card) {
    state = "card";
  } else if (conn && conn.state !== "connected" && conn.state !== "connecting") {
    state = "offline";
    notice = "Not connected to this Gateway.";
  } else if (cardsKnown[ref.gatewayId] === false && (!conn || firstLoadGoesOn(conn))) {
    // The Gateway's cards are still being read: this session may hold one.
    state = "loading";
    notice = "Loading…";
  } else {
    state = "empty";
    notice = "No progress yet";
  }
  return {
    pin,
    gatewayId: ref.gatewayId,
    sessionKey: ref.sessionKey,
    title: entry?.title ?? session?.title ?? source.title ?? ref.sessionKey,
    kind: session?.kind ?? kindOfKey(ref.sessionKey),
    entry,
    session,
    state,
    notice,
    finished: isFinished(entry, session),
    parentKey: parentOf(session),
    byPerson: source.byPerson,
    byAgent: source.byAgent,
  };
}

/**
 * Widgets for the pinned cards: filtered by kind, finished ones left out unless asked
 * for, sub-agents under their parent when the parent is shown too. Order: pin order.
 */
export function dashboardGroups(input: DashboardInput): { groups: WidgetGroup[]; hiddenFinished: number; total: number } {
  // The person's pins in their order, then the agents' board pins; one widget per session.
  const sources = new Map<string, { byPerson: boolean; byAgent: boolean; title: string | null }>();
  for (const pin of input.pinned)
    if (parseGatewaySessionKey(pin) && !sources.has(pin)) sources.set(pin, { byPerson: true, byAgent: false, title: null });
  for (const [gatewayId, state] of Object.entries(input.boards ?? {})) {
    for (const p of state.pins) {
      const key = gatewaySessionKey({ gatewayId, sessionKey: p.sessionKey });
      const known = sources.get(key);
      if (known) known.byAgent = true;
      else sources.set(key, { byPerson: false, byAgent: true, title: p.title });
    }
  }
  const all: Widget[] = [];
  const lookup = widgetLookup(input.entries, input.sessions);
  for (const [pin, source] of sources) {
    const w = widgetFor(pin, input.entries, input.sessions, input.connections, source, lookup, input.cardsKnown);
    if (w) all.push(w);
  }
  let hiddenFinished = 0;
  const shown = all.filter((w) => {
    if (input.kind !== "all" && w.kind !== input.kind) return false;
    if (w.finished && !input.showFinished) {
      hiddenFinished += 1;
      return false;
    }
    return true;
  });
  const byKey = new Map<string, WidgetGroup>();
  for (const w of shown) if (!w.parentKey) byKey.set(gatewaySessionKey(w), { widget: w, children: [] });
  const groups: WidgetGroup[] = [];
  for (const w of shown) {
    const parent = w.parentKey ? byKey.get(gatewaySessionKey({ gatewayId: w.gatewayId, sessionKey: w.parentKey })) : undefined;
    if (parent) parent.children.push(w);
    else groups.push(byKey.get(gatewaySessionKey(w)) ?? { widget: w, children: [] });
  }
  return { groups, hiddenFinished, total: all.length };
}

/**
 * The "Pin a card" picker: the visible cards not pinned yet, in the one order every surface
 * lists cards by. The widgets themselves keep the person's pin order (P3).
 */
export function pinnableCards(entries: Iterable<CardEntry>, isPinned: (e: CardEntry) => boolean): CardEntry[] {
  return visibleCardsOf(entries).filter((e) => !isPinned(e));
}

export type DashboardView = ReturnType<typeof dashboardGroups>;

const WIDGET_FIELDS = [
  "pin",
  "gatewayId",
  "sessionKey",
  "title",
  "kind",
  "entry",
  "session",
  "state",
  "notice",
  "finished",
  "parentKey",
  "byPerson",
  "byAgent",
] as const satisfies readonly (keyof Widget)[];

function sameWidget(a: Widget, b: Widget): boolean {
  return WIDGET_FIELDS.every((f) => a[f] === b[f]);
}

/**
 * `next` with every widget and group that says what it said in `previous` replaced by the object
 * `previous` had (issue 21). The view is rebuilt whole on every change, and a new object for an
 * unchanged widget makes the page update its card all the same: while a start-up brings hundreds of
 * cards, that was every widget on the page a tenth of a second, most of the dashboard's CPU.
 */
export function keepUnchanged(previous: DashboardView | null, next: DashboardView): DashboardView {
  if (!previous) return next;
  const widgets = new Map<string, Widget>();
  const groups = new Map<string, WidgetGroup>();
  for (const g of previous.groups) {
    groups.set(g.widget.pin, g);
    widgets.set(g.widget.pin, g.widget);
    for (const c of g.children) widgets.set(c.pin, c);
  }
  const kept = (w: Widget): Widget => {
    const old = widgets.get(w.pin);
    return old && sameWidget(old, w) ? old : w;
  };
  return {
    ...next,
    groups: next.groups.map((g) => {
      const widget = kept(g.widget);
      const children = g.children.map(kept);
      const old = groups.get(widget.pin);
      const same =
        old !== undefined &&
        old.widget === widget &&
        old.children.length === children.length &&
        old.children.every((c, i) => c === children[i]);
      return same ? old : { widget, children };
    }),
  };
}

/** `keep` with its last result remembered: each call passes the previous result and the new value. */
export function remembering<T>(keep: (previous: T | null, next: T) => T): (next: T) => T {
  let last: T | null = null;
  return (next) => (last = keep(last, next));
}
