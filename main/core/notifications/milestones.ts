// Milestone detection (N1): what changed between the card the policy last knew and a newer
// entry, and whether a milestone is still true of a card's latest state when its notice goes out.
//
// - Freshness, errors and hidden entries never make a milestone; an entry older (updatedAt)
//   than the card already known is ignored (C4: never go back).
// - Baseline: a card seen for the first time is `newCard` only if it was written (updatedAt)
//   at or after the policy started; a card reappearing after a clear is new only if it is not
//   the cleared one again. A lower revision with a later updatedAt is a reset (C4), so a new
//   card too. A new card that is already complete or already stopped says so.
// - Duplicates: the same kind for the same revision and update time (or the same failed
//   refresh attempt) is never told twice (dedupeKey).
import type { CardRef, Milestone } from "../../../common/contract.ts";
import type { CardDerived, CardEntry, ProgressCard, RefreshState, RunOutcome } from "../../../common/model.ts";
import { shortKeyTitle } from "../../../common/sessions.ts";

/** Strongest first: of the milestones coalesced into one notice, the first still true names it. */
export const STRENGTH: readonly Milestone[] = [
  "allCompleted",
  "pausedOrBlocked",
  "noProgress",
  "refreshFailed",
  "stepCompleted",
  "newCard",
];

/** What the policy last knew of one card (it survives reconnects). */
export type Known = {
  /** Last confirmed card; null before the first or after a confirmed clear. */
  card: ProgressCard | null;
  derived: CardDerived | null;
  /** The last card ever seen, to tell a reappearing card from a new one. */
  last: ProgressCard | null;
  refreshFail: string | null;
  /** The latest entry accepted for this card (title and ref of a no-progress notice). */
  entry: CardEntry | null;
  /** Bumped for every new card: a new card after a clear is another notice. */
  gen: number;
  /** Dedupe keys of the milestones already accepted (bounded by the caller). */
  seen: string[];
};

export function unknownCard(): Known {
  return { card: null, derived: null, last: null, refreshFail: null, entry: null, gen: 0, seen: [] };
}

/** What a queued milestone is checked against when its notice goes out. */
export type Claim = {
  /** The card's latest state. */
  entry: CardEntry;
  /** Completed steps before the first of the queued milestones. */
  fromCompleted: number;
  /** The card was cleared since: only final outcomes are still worth telling. */
  cleared: boolean;
};

/** The milestones from what was known to `entry`; null for an entry older than the card known. */
export function detect(known: Known, entry: CardEntry, since: number): Milestone[] | null {
  const { card, derived } = entry;
  const kinds: Milestone[] = [];
  if (card && derived) {
    const prev = known.card;
    const pd = known.derived;
    if (prev && pd) {
      if (card.updatedAt < prev.updatedAt) return null;
      kinds.push(...(card.revision < prev.revision ? appeared(derived) : progressed(pd, derived)));
    } else {
      const last = known.last;
      const fresh = last
        ? card.updatedAt >= last.updatedAt && !(card.revision === last.revision && card.updatedAt === last.updatedAt)
        : card.updatedAt >= since;
      if (fresh) kinds.push(...appeared(derived));
    }
  }
  const r = entry.refresh;
  if (r && r.status !== "pending" && refreshFailure(r) !== known.refreshFail && r.at >= since) kinds.push("refreshFailed");
  return kinds;
}

function appeared(d: CardDerived): Milestone[] {
  const kinds: Milestone[] = ["newCard"];
  if (d.state === "complete") kinds.push("allCompleted");
  if (isStopped(d.outcome)) kinds.push("pausedOrBlocked");
  return kinds;
}

function progressed(before: CardDerived, d: CardDerived): Milestone[] {
  const kinds: Milestone[] = [];
  if (d.state === "complete" && before.state !== "complete") kinds.push("allCompleted");
  else if (d.completed > before.completed) kinds.push("stepCompleted");
  const paused = before.state === "active" && d.state === "paused";
  const stopped = isStopped(d.outcome) && d.outcome !== before.outcome;
  const replacedByNote = before.completed < before.total && d.total === 0;
  if (paused || stopped || replacedByNote) kinds.push("pausedOrBlocked");
  return kinds;
}

/** A pause followed by a resume is no longer true, nor a "Started" whose card was cleared. */
export function stillTrue(kind: Milestone, p: Claim, stalled: boolean): boolean {
  const d = p.entry.derived;
  switch (kind) {
    case "allCompleted":
      return d?.state === "complete";
    case "pausedOrBlocked":
      return d !== null && (d.state === "paused" || d.state === "note" || isStopped(d.outcome));
    case "refreshFailed":
      return !p.cleared && refreshFailure(p.entry.refresh) !== null;
    case "stepCompleted":
      return !p.cleared && d !== null && d.completed > p.fromCompleted;
    case "newCard":
      return !p.cleared;
    case "noProgress":
      return stalled;
  }
}

export function isStopped(outcome: RunOutcome | null): boolean {
  return outcome === "failed" || outcome === "killed" || outcome === "timeout";
}

/** Identity of a failed refresh attempt, so a retry that fails again is told again. */
export function refreshFailure(refresh: RefreshState | null): string | null {
  return refresh && refresh.status !== "pending" ? `${refresh.status}:${refresh.key}:${refresh.at}` : null;
}

export function dedupeKey(kind: Milestone, entry: CardEntry): string {
  if (kind === "refreshFailed") return `refresh:${refreshFailure(entry.refresh)}`;
  return `${kind}:${entry.card?.revision}:${entry.card?.updatedAt}`;
}

/** Stands in for the card of a stalled session the policy never saw a card for. */
export function stallEntry(ref: CardRef): CardEntry {
  return {
    ...ref,
    title: shortKeyTitle(ref.sessionKey),
    card: null,
    derived: null,
    freshness: "live",
    confirmedAt: null,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
  };
}
