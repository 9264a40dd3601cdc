// P3 at scale (issue 11): the dashboard's widget groups in sections by kind, each with a header
// that counts its widgets, and a text filter that decides which widgets show without
// rebuilding any: the page hides the rest, so typing never re-renders a card. Pure.
import type { SessionKind } from "../../common/model.ts";
import { KIND_LABELS, type Widget, type WidgetGroup } from "./dashboard-view.ts";

export const KIND_ORDER: readonly SessionKind[] = ["main", "dashboard", "cron", "subagent", "other"];

export type DashboardSection = {
  kind: SessionKind;
  /** Parent groups in pin order; a group's sub-agents sit in the section of their parent. */
  groups: WidgetGroup[];
  /** Widgets in the section, sub-agents included. */
  count: number;
};

/** Sections in KIND_ORDER; only kinds with at least one widget. */
export function dashboardSections(groups: readonly WidgetGroup[]): DashboardSection[] {
  const byKind = new Map<SessionKind, DashboardSection>();
  for (const g of groups) {
    const kind = g.widget.kind;
    let s = byKind.get(kind);
    if (!s) byKind.set(kind, (s = { kind, groups: [], count: 0 }));
    s.groups.push(g);
    s.count += 1 + g.children.length;
  }
  return KIND_ORDER.flatMap((k) => byKind.get(k) ?? []);
}

/** What the person typed, made comparable: trimmed, case folded, inner runs of space as one. */
export function normalizeQuery(query: string): string {
  return query.trim().replace(/\s+/g, " ").toLocaleLowerCase();
}

/** A widget matches on its title or session key; an empty query matches everything. */
export function widgetMatches(w: Pick<Widget, "title" | "sessionKey">, query: string): boolean {
  if (query === "") return true;
  return w.title.toLocaleLowerCase().includes(query) || w.sessionKey.toLocaleLowerCase().includes(query);
}

export type FilterResult = {
  /** Pins of the widgets to show. A parent shows when it or one of its sub-agents matches. */
  shown: Set<string>;
  /** Per section kind, the widgets shown. */
  perSection: Map<SessionKind, number>;
  /** Widgets shown in all. */
  total: number;
};

/**
 * Which widgets a query leaves. A matching parent brings its sub-agents along (they are
 * its context); a matching sub-agent brings its parent (its header).
 */
export function filterWidgets(sections: readonly DashboardSection[], rawQuery: string): FilterResult {
  const query = normalizeQuery(rawQuery);
  const shown = new Set<string>();
  const perSection = new Map<SessionKind, number>();
  let total = 0;
  for (const s of sections) {
    let n = 0;
    for (const g of s.groups) {
      const parent = widgetMatches(g.widget, query);
      const children = parent ? g.children : g.children.filter((c) => widgetMatches(c, query));
      if (!parent && children.length === 0) continue;
      shown.add(g.widget.pin);
      for (const c of children) shown.add(c.pin);
      n += 1 + children.length;
    }
    perSection.set(s.kind, n);
    total += n;
  }
  return { shown, perSection, total };
}

/** A section header: "Cron (40)", or "Cron (3 of 40)" while a filter hides some. */
export function sectionLabel(kind: SessionKind, shown: number, count: number): string {
  return shown === count ? `${KIND_LABELS[kind]} (${count})` : `${KIND_LABELS[kind]} (${shown} of ${count})`;
}

/** The header over a parent's sub-agents: "3 sub-agents". */
export function subAgentsLabel(shown: number, count: number): string {
  const noun = count === 1 ? "sub-agent" : "sub-agents";
  return shown === count ? `${count} ${noun}` : `${shown} of ${count} ${noun}`;
}

/** `next`, or `previous` when it holds the same pins (a new set for the same pins would update every widget of the page). */
export function sameSetAs<T>(previous: ReadonlySet<T> | null, next: ReadonlySet<T>): ReadonlySet<T> {
  if (!previous || previous.size !== next.size) return next;
  for (const x of next) if (!previous.has(x)) return next;
  return previous;
}

/** `next`, or `previous` when it shows the same widgets with the same counts (see sameSetAs). */
export function sameFilterAs(previous: FilterResult | null, next: FilterResult): FilterResult {
  if (!previous || previous.total !== next.total || previous.perSection.size !== next.perSection.size) return next;
  for (const [k, n] of next.perSection) if (previous.perSection.get(k) !== n) return next;
  return sameSetAs(previous.shown, next.shown) === previous.shown ? previous : next;
}
