// The local card history (issue 12): for every confirmed revision, when this machine
// confirmed it and the step statuses — never the note text. One history per card per
// Gateway; a clear ends it, a new card after a clear starts another. Times when nothing
// was watched (the app closed, the Gateway offline) are recorded as gaps, so timing
// derived from it (card-timing.ts) never counts them as work. Bounded, and kept only on
// this machine (card-history-file.ts).
import type { CardEntry, StepStatus } from "./model.ts";
import { cardSlotKey, isOnGateway } from "./keys.ts";

export const MAX_RECORDS_PER_CARD = 200;
export const MAX_CARDS = 500;

export type HistoryRecord = {
  /** When the core confirmed this revision (this machine's clock, ms). */
  at: number;
  revision: number;
  /** One letter per step: p pending, i in progress, c completed. */
  statuses: string;
  /** The step texts, on the first record and whenever they changed. */
  steps?: string[];
  /**
   * Nothing was watched before this record: since when (null when unknown). Anything that
   * changed meanwhile happened at an unknown time.
   */
  gapFrom?: number | null;
};

export type CardHistoryData = {
  gatewayId: string;
  sessionKey: string;
  agentId: string | null;
  /** The card's creation was seen (its absence was confirmed first, or revision 1 was announced live). */
  fromStart: boolean;
  /** Set when the card was cleared (or replaced by a reset): the history is closed. */
  endedAt: number | null;
  /** Watching stopped at this time and has not resumed (offline, app closed); null while watched. */
  unwatchedSince: number | null;
  records: HistoryRecord[];
};

const LETTER: Record<StepStatus, string> = { pending: "p", in_progress: "i", completed: "c" };
const STATUS: Record<string, StepStatus> = { p: "pending", i: "in_progress", c: "completed" };

export function statusOf(letter: string): StepStatus | null {
  return STATUS[letter] ?? null;
}

export type CardHistoryOptions = {
  maxRecordsPerCard?: number;
  maxCards?: number;
  /** Called after every change worth saving. */
  onChange?: () => void;
};

export class CardHistory {
  private readonly opts: CardHistoryOptions;
  /** Every history, oldest activity first; at most one open (endedAt null) per card. */
  private histories: CardHistoryData[] = [];
  /** Cards whose absence (or whose creation) was confirmed while watching: their next card is seen from the start. */
  private readonly seenAbsent = new Set<string>();
  /**
   * The open history of each card, by card slot key. Every entry the core confirms asks for
   * its card's: a scan of every history was O(cards) each time, O(cards²) at start-up.
   */
  private readonly open = new Map<string, CardHistoryData>();

  constructor(histories: CardHistoryData[] = [], opts: CardHistoryOptions = {}) {
    this.opts = opts;
    // Whatever was open when the data was saved has not been watched since its last record.
    this.histories = histories.map((h) => ({
      ...h,
      unwatchedSince: h.endedAt === null ? (h.unwatchedSince ?? h.records.at(-1)?.at ?? null) : h.unwatchedSince,
    }));
    this.bound();
    this.reindex();
  }

  /** Everything, for saving. */
  data(): CardHistoryData[] {
    return this.histories;
  }

  /** The open history of a card, or null. */
  current(gatewayId: string, sessionKey: string, agentId: string | null): CardHistoryData | null {
    return this.open.get(cardSlotKey({ gatewayId, sessionKey, agentId })) ?? null;
  }

  /** Every history of a card, oldest first (closed ones included). */
  all(gatewayId: string, sessionKey: string, agentId: string | null): CardHistoryData[] {
    const key = cardSlotKey({ gatewayId, sessionKey, agentId });
    return this.histories.filter((h) => cardSlotKey(h) === key);
  }

  /**
   * A card entry from the core. Only a confirmed state counts: a live read without error
   * (offline or stale entries show the last card, they do not confirm it again). `at` is
   * when the core confirmed it (the desk passes its own clock, so tests can inject one).
   */
  observe(entry: CardEntry, at: number | null = entry.confirmedAt): void {
    if (entry.freshness !== "live" || entry.error !== null || entry.hidden || entry.confirmedAt === null || at === null) return;
    const key = cardSlotKey(entry);
    const open = this.current(entry.gatewayId, entry.sessionKey, entry.agentId);
    const card = entry.card;
    if (card === null) {
      this.seenAbsent.add(key);
      if (open) this.close(open, at);
      return;
    }
    const statuses = card.steps.map((s) => LETTER[s.status]).join("");
    const texts = card.steps.map((s) => s.step);
    let h = open;
    const last = h?.records.at(-1);
    // Revisions restart at 1 after an unconditional clear or a session reset: another card.
    if (h && last && card.revision < last.revision) {
      this.close(h, at);
      h = null;
    }
    if (!h) {
      const { gatewayId, sessionKey, agentId } = entry;
      h = { gatewayId, sessionKey, agentId, fromStart: this.seenAbsent.has(key), endedAt: null, unwatchedSince: null, records: [] };
      this.histories.push(h);
      this.open.set(key, h);
      this.seenAbsent.delete(key);
      h.records.push({ at, revision: card.revision, statuses, steps: texts });
      this.bound(h);
      this.opts.onChange?.();
      return;
    }
    const prev = h.records.at(-1);
    if (prev === undefined) throw new Error(`card history of ${key} has no records`);
    const resumed = h.unwatchedSince !== null;
    // The same revision confirmed again while watched is nothing new (titles, run state, freshness).
    if (prev.revision === card.revision && !resumed) return;
    const record: HistoryRecord = { at, revision: card.revision, statuses };
    if (!sameTexts(textsAt(h, h.records.length - 1), texts)) record.steps = texts;
    if (resumed) record.gapFrom = h.unwatchedSince;
    h.unwatchedSince = null;
    h.records.push(record);
    // Most recent activity last, so the bound drops the card idle longest.
    this.histories.splice(this.histories.indexOf(h), 1);
    this.histories.push(h);
    this.bound(h);
    this.opts.onChange?.();
  }

  /** A Gateway revision-1 announcement seen live: that card's creation is being watched. */
  noteCreated(gatewayId: string, sessionKey: string, agentId: string | null): void {
    if (!this.current(gatewayId, sessionKey, agentId)) this.seenAbsent.add(cardSlotKey({ gatewayId, sessionKey, agentId }));
  }

  /** The Gateway's connection dropped (or the app stops): nothing of it is watched from `at`. */
  unwatched(gatewayId: string | null, at: number): void {
    let changed = false;
    for (const h of this.histories) {
      if (h.endedAt !== null || h.unwatchedSince !== null || (gatewayId !== null && h.gatewayId !== gatewayId)) continue;
      h.unwatchedSince = at;
      changed = true;
    }
    for (const key of [...this.seenAbsent]) if (gatewayId === null || isOnGateway(key, gatewayId)) this.seenAbsent.delete(key);
    if (changed) this.opts.onChange?.();
  }

  private close(h: CardHistoryData, at: number): void {
    const key = cardSlotKey(h);
    if (this.open.get(key) === h) this.open.delete(key);
    h.endedAt = at;
    h.unwatchedSince = null;
    this.opts.onChange?.();
  }

  /**
   * Oldest dropped first: records of a long card, then whole cards idle the longest. Only
   * `changed` can have grown past its records' bound; without it (at load) every card is checked.
   */
  private bound(changed?: CardHistoryData): void {
    const maxRecords = this.opts.maxRecordsPerCard ?? MAX_RECORDS_PER_CARD;
    for (const h of changed ? [changed] : this.histories) {
      if (h.records.length <= maxRecords) continue;
      const texts = textsAt(h, h.records.length - maxRecords);
      const kept = h.records.slice(-maxRecords);
      const oldest = kept[0];
      if (oldest) kept[0] = { ...oldest, steps: texts };
      h.records = kept;
      // What came before the oldest kept record is no longer known.
      h.fromStart = false;
    }
    const maxCards = this.opts.maxCards ?? MAX_CARDS;
    if (this.histories.length > maxCards) {
      const dropped = this.histories.slice(0, this.histories.length - maxCards);
      this.histories = this.histories.slice(-maxCards);
      // Usually one card: only its key is made again (rebuilding the index here made a key for
      // every card, each time a card was added at the cap).
      for (const h of dropped) {
        if (h.endedAt !== null) continue;
        const key = cardSlotKey(h);
        if (this.open.get(key) === h) this.open.delete(key);
      }
    }
  }

  /** The open histories found from the list (at load). */
  private reindex(): void {
    this.open.clear();
    // At most one is open per card; were a saved file to hold more, the latest wins, as it always did.
    for (const h of this.histories) if (h.endedAt === null) this.open.set(cardSlotKey(h), h);
  }
}

/** The step texts in force at record `index` (they are stored only when they change). */
export function textsAt(h: Pick<CardHistoryData, "records">, index: number): string[] {
  for (let i = index; i >= 0; i -= 1) {
    const steps = h.records[i]?.steps;
    if (steps) return steps;
  }
  return [];
}

function sameTexts(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
