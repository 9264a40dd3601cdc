// Throttle and coalesce: what waits, merged how, and when a slot is free.
//
// - Per session, one notice per interval; a card cleared and started again inside the window
//   is another card (another generation) and queues behind, at most two per session
//   (intermediate ones dropped, their updates counted).
// - Globally, at most `max` notices per window; beyond it everything waits for a free slot
//   and goes out as one summary.
import type { Milestone } from "../../../common/contract.ts";
import type { Claim } from "./milestones.ts";

/** Generations of one card kept waiting per session (now and latest) and while held or capped. */
export const SESSION_CAP = 2;
export const HELD_CAP = 50;

/** Milestones waiting to be told about one generation of one card. */
export type Pending = Claim & {
  key: string;
  gen: number;
  kinds: Set<Milestone>;
  updates: number;
};

/** Coalesces `p` into `list` (same card and generation), keeping at most `cap` generations per card. */
export function merge(list: Pending[], p: Pending, cap: number): void {
  const same = list.find((q) => q.key === p.key && q.gen === p.gen);
  if (same) {
    for (const k of p.kinds) same.kinds.add(k);
    same.updates += p.updates;
    // A stall alone says nothing new about the card: the card's latest state stays.
    if (!(p.kinds.size === 1 && p.kinds.has("noProgress"))) {
      same.entry = p.entry;
      same.cleared = p.cleared;
    }
    return;
  }
  list.push(p);
  const mine = list.filter((q) => q.key === p.key);
  const dropped = mine.length > cap ? mine[mine.length - 2] : undefined;
  if (dropped) {
    list.splice(list.indexOf(dropped), 1);
    p.updates += dropped.updates;
  }
}

/** A session may send now: nothing of it is waiting and its last notice is an interval old. */
export function sessionSlotFree(waiting: number, lastSentAt: number | null, now: number, intervalMs: number): boolean {
  return waiting === 0 && (lastSentAt === null || now - lastSentAt >= intervalMs);
}

/** The send times still inside the global window. */
export function inWindow(sent: readonly number[], now: number, windowMs: number): number[] {
  const since = now - windowMs;
  return sent.filter((t) => t > since);
}

/** When the oldest of the last `max` sends leaves the window (now + window when fewer were sent). */
export function slotFreesAt(sent: readonly number[], now: number, windowMs: number, max: number): number {
  return (sent[sent.length - max] ?? now) + windowMs;
}
