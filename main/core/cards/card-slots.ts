// The cards one Gateway's store follows: one slot per session, and per agent for bare keys
// (G4), up to a cap, so a Gateway naming ever-new sessions cannot make us hold (and read)
// without bound. Which slots a change hint means is decided here too.
import { slotKeyWithinGateway } from "../../../common/keys.ts";
import { errorFacts } from "../connection-state.ts";
import type { CardEntry } from "../../../common/model.ts";
import type { ReadState } from "./read-scheduler.ts";
import type { Logger } from "../logger.ts";

/** One followed card: what the desk shows, the scheduler's bookkeeping, and the store's own. */
export type Slot = CardEntry &
  ReadState & {
    /** Bumped when a write reply is applied, so a read that started earlier cannot undo it. */
    writeEpoch: number;
    /** Cancels the pending refresh timeout. */
    refreshTimer: (() => void) | null;
  };

/**
 * Events may name sessions we have never seen, and each one costs a slot and a read: past
 * this many followed sessions, hints for new keys are dropped (the roster, boards and the
 * person can still add sessions). No glanceable desk shows this many cards.
 */
export const DEFAULT_MAX_SESSIONS = 5_000;
/** Real keys are short (`agent:<id>:<channel>:<uuid>`); a longer one in an event is not a key. */
export const MAX_SESSION_KEY_LENGTH = 1_024;
/** The Gateway reads bare keys per agent (G4). */
export const AGENT_SCOPE_CAPABILITY = "progress-card-agent-scope-v1";

export type ReadTarget = { sessionKey: string; agentId?: string };

export type CardSlotsOptions = {
  gatewayId: string;
  maxSessions: number;
  /** The title of a session before its card is read (its roster row, else its key). */
  titleOf: (sessionKey: string) => string;
  /** Slots made while disconnected start offline. */
  connected: () => boolean;
  log: Logger;
};

export class CardSlots {
  private readonly opts: CardSlotsOptions;
  private readonly slots = new Map<string, Slot>();
  /** Hints for new sessions dropped at the session cap. */
  droppedHints = 0;

  constructor(opts: CardSlotsOptions) {
    this.opts = opts;
  }

  get(sessionKey: string, agentId: string | null): Slot | undefined {
    return this.slots.get(slotKeyWithinGateway(sessionKey, agentId));
  }

  values(): IterableIterator<Slot> {
    return this.slots.values();
  }

  /** The slot of a session (made, idle and empty, if not followed yet). */
  slotFor(sessionKey: string, agentId: string | null): Slot {
    const k = slotKeyWithinGateway(sessionKey, agentId);
    let slot = this.slots.get(k);
    if (!slot) {
      slot = {
        gatewayId: this.opts.gatewayId,
        sessionKey,
        agentId: sessionKey.startsWith("agent:") ? null : agentId,
        title: this.opts.titleOf(sessionKey),
        card: null,
        derived: null,
        freshness: this.opts.connected() ? "live" : "offline",
        confirmedAt: null,
        error: null,
        hidden: false,
        updateRequired: false,
        refresh: null,
        phase: "idle",
        again: false,
        againUpTo: null,
        writeEpoch: 0,
        retryTimer: null,
        retryCount: 0,
        refreshTimer: null,
      };
      this.slots.set(k, slot);
    }
    return slot;
  }

  /** Stops following a slot (its agent is gone) and drops its card; true when it had one to hide. */
  drop(slot: Slot): boolean {
    this.slots.delete(slotKeyWithinGateway(slot.sessionKey, slot.agentId));
    if (!slot.card) return false;
    slot.card = null;
    slot.derived = null;
    return true;
  }

  /**
   * Every slot a hint may mean. Events name bare keys agent-qualified (`global` read as
   * agent X arrives as `agent:X:global`), which is also the key of a distinct session: a
   * slot held under either name is read again, never only the first one found (G4).
   */
  forEvent(sessionKey: string): Slot[] {
    const found: Slot[] = [];
    const direct = this.slots.get(sessionKey);
    if (direct) found.push(direct);
    const [, agentId, rest] = /^agent:([^:]+):(.+)$/.exec(sessionKey) ?? [];
    if (agentId !== undefined && rest !== undefined) {
      for (const key of [slotKeyWithinGateway(rest, agentId), slotKeyWithinGateway(rest, null)]) {
        const bare = this.slots.get(key);
        if (bare && !found.includes(bare)) found.push(bare);
      }
    }
    if (found.length > 0) return found;
    return this.roomForNewSession() ? [this.slotFor(sessionKey, null)] : [];
  }

  /** False (and counted, warned once) when events may not add another session. */
  roomForNewSession(): boolean {
    const max = this.opts.maxSessions;
    if (this.slots.size < max) return true;
    if (this.droppedHints === 0) {
      this.opts.log.warn(`${this.opts.gatewayId} named more than ${max} sessions; change hints for further sessions are ignored.`);
    }
    this.droppedHints += 1;
    return false;
  }

  /** Marks every shown card offline; returns those that changed. */
  markOffline(): Slot[] {
    const changed = [...this.slots.values()].filter((s) => s.card !== null && s.freshness !== "offline");
    for (const slot of changed) slot.freshness = "offline";
    return changed;
  }

  /** What the desk shows: sessions with nothing to show stay out. */
  entries(): CardEntry[] {
    // A card that cannot be read says why, and a denied session stays in as hidden, so a page
    // opened later shows "no access" as a live one does (P3).
    return [...this.slots.values()].filter((s) => s.card !== null || s.error !== null || s.updateRequired || s.hidden).map(publicEntry);
  }
}

/** G4: agentId only for bare keys and only where the Gateway has the capability. */
export function readTargetOf(
  entry: Pick<CardEntry, "sessionKey" | "agentId">,
  gateway: { hasCapability(name: string): boolean },
): ReadTarget | null {
  if (entry.sessionKey.startsWith("agent:") || entry.agentId === null) return { sessionKey: entry.sessionKey };
  if (!gateway.hasCapability(AGENT_SCOPE_CAPABILITY)) return null;
  return { sessionKey: entry.sessionKey, agentId: entry.agentId };
}

/**
 * What a failed read means for its card: the session is not ours to see (or hidden), its
 * agent is gone, the connection is (the reconnect reads again), or an error to show and retry.
 */
export function readFailure(err: unknown): "denied" | "agent-gone" | "not-connected" | { code: string; message: string } {
  const facts = errorFacts(err);
  const code = facts.detailCode ?? facts.code ?? "ERROR";
  if (code === "SESSION_PARTICIPATION_REQUIRED" || /was not found/i.test(facts.message)) return "denied";
  if (code === "UNKNOWN_AGENT_ID") return "agent-gone";
  if (code === "NOT_CONNECTED") return "not-connected";
  return { code, message: facts.message };
}

export function clearRefreshTimer(slot: Slot): void {
  slot.refreshTimer?.();
  slot.refreshTimer = null;
}

/** A slot as the desk sees it (without the bookkeeping). */
export function publicEntry(slot: Slot): CardEntry {
  return {
    gatewayId: slot.gatewayId,
    sessionKey: slot.sessionKey,
    agentId: slot.agentId,
    title: slot.title,
    card: slot.card,
    derived: slot.derived,
    freshness: slot.freshness,
    confirmedAt: slot.confirmedAt,
    error: slot.error,
    hidden: slot.hidden,
    updateRequired: slot.updateRequired,
    refresh: slot.refresh,
  };
}
