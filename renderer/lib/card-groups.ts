// The popover at scale (issue 11): which cards stay in the list on top and which are folded
// into a group that opens on demand, with the group's honest label. Pure: no DOM, no Svelte.
//
// A card stays on top while its session runs, while it is active or recent, and while it has
// something to show other than a card (an error, an update required). Otherwise:
//   finished — every step completed (R7), last updated more than RECENT_FINISHED_MS ago;
//   idle     — paused (R6) or note-only with no live run, last updated more than IDLE_MS ago.
// Times are the card's own `updatedAt` (the Gateway's), never a local guess.
import { isRunActive } from "../../common/card.ts";
import type { CardEntry, SessionInfo } from "../../common/model.ts";
import { gatewaySessionKey } from "../../common/keys.ts";

export type GroupId = "finished" | "idle";

/** A just-finished card is news: it stays on top for an hour before it is folded away. */
export const RECENT_FINISHED_MS = 60 * 60_000;
/** "Paused for more than a day". */
export const IDLE_MS = 24 * 60 * 60_000;
/** An open group renders this many cards at a time. */
export const GROUP_PAGE = 25;
/**
 * Cards at the top of a list drawn whole at once (more than a popover or dashboard screen holds);
 * the rest start as shells (lib/card-drawing.ts).
 */
export const WHOLE_AT_ONCE = 12;

export type CardGroup = {
  id: GroupId;
  /** The group's cards, in the order they came (most recently updated first). */
  entries: CardEntry[];
  /** What the group header says, count included: "12 finished earlier today". */
  label: string;
};

export type CardSections = {
  /** Cards shown on top, in the order they came. */
  top: CardEntry[];
  /** Only groups with at least one card, finished before idle. */
  groups: CardGroup[];
};

/** The `gatewaySessionKey` of every session with a live run, as the page knows it. */
export type RunningSessions = ReadonlySet<string>;

/** The group a card folds into at `now`, or null when it stays on top. */
export function groupOf(entry: CardEntry, now: number, running: RunningSessions = new Set()): GroupId | null {
  const card = entry.card;
  const state = entry.derived?.state;
  if (!card || !state || entry.error || entry.updateRequired) return null;
  if (running.has(gatewaySessionKey(entry))) return null;
  const age = now - card.updatedAt;
  if (state === "complete") return age > RECENT_FINISHED_MS ? "finished" : null;
  if (state === "paused" || state === "note") return age > IDLE_MS ? "idle" : null;
  return null; // active
}

/** Midnight of `now`'s local day. */
export function startOfDay(now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** The header of a group, saying what is in it and how many. */
export function groupLabel(id: GroupId, entries: readonly CardEntry[], now: number): string {
  const n = entries.length;
  if (id === "finished") {
    const midnight = startOfDay(now);
    const today = entries.filter((e) => (e.card?.updatedAt ?? 0) >= midnight).length;
    if (today === n) return `${n} finished earlier today`;
    if (today === 0) return `${n} finished before today`;
    return `${n} finished earlier: ${today} today, ${n - today} before today`;
  }
  const paused = entries.filter((e) => e.derived?.state === "paused");
  // A finished run's outcome (failed, killed, timed out) is a stop, not a pause.
  const stopped = paused.filter((e) => e.derived?.outcome != null && e.derived.outcome !== "done").length;
  const notes = n - paused.length;
  if (notes === 0 && stopped === 0) return `${n} paused for more than a day`;
  if (notes === 0) return `${n} paused or stopped for more than a day`;
  return `${n} not updated for more than a day`;
}

/**
 * Splits the popover's cards (already filtered and ordered) into the list on top and the
 * folded groups. Every card lands in exactly one place, order kept.
 */
export function cardSections(entries: readonly CardEntry[], now: number, running: RunningSessions = new Set()): CardSections {
  const top: CardEntry[] = [];
  const folded: Record<GroupId, CardEntry[]> = { finished: [], idle: [] };
  for (const e of entries) {
    const g = groupOf(e, now, running);
    if (g) folded[g].push(e);
    else top.push(e);
  }
  const groups: CardGroup[] = [];
  for (const id of ["finished", "idle"] as const) {
    if (folded[id].length > 0) groups.push({ id, entries: folded[id], label: groupLabel(id, folded[id], now) });
  }
  return { top, groups };
}

/** The sessions with a live run, read from the page's session rows the way the core reads them. */
export function runningSessions(sessions: Readonly<Record<string, readonly SessionInfo[]>>): Set<string> {
  const out = new Set<string>();
  for (const [gatewayId, rows] of Object.entries(sessions)) {
    for (const s of rows) if (isRunActive(s)) out.add(gatewaySessionKey({ gatewayId, sessionKey: s.key }));
  }
  return out;
}

/**
 * The `data-card-key` a rendered card's wrapper carries: the card's key with spaces for the
 * NUL separators, which a CSS selector cannot name. For counting and finding cards in the DOM.
 */
export function domCardKey(ref: Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">): string {
  return `${ref.gatewayId} ${ref.sessionKey} ${ref.agentId ?? ""}`;
}
