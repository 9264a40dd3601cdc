// When the card reads of one Gateway go out (C4, G3). A change hint asks for a read; reads are
// coalesced (one in flight per session, and a change meanwhile causes exactly one more) and
// share a per-Gateway budget per second: hints from a flooding Gateway coalesce per session in
// the queue, never one read (and one UI change) each. The roster read at a connect waits for a
// free read only: it is bounded by the session cap, not by events, and a start-up must not wait
// on a rate. A Gateway in a storm of writes (GatewayLoad) gets a smaller budget and fewer reads
// in flight, because every read we add is throughput its agents lose.
// Every timer (budget wake-ups, retries) goes through the injected `schedule`.
import { TokenBucket } from "./token-bucket.ts";
import { GatewayLoad, type GatewayLoadOptions } from "./gateway-load.ts";

/** Reads in flight at once per Gateway: what a careful bare client uses, so we ask no more of the Gateway. */
export const DEFAULT_MAX_READS_IN_FLIGHT = 8;
/**
 * Far above what agents writing cards need, far below what a flooding Gateway could make
 * us send and redraw. Reads of the roster at connect do not draw on it.
 */
export const DEFAULT_MAX_READS_PER_SECOND = 200;
/**
 * A Gateway in a storm of writes: about one read in fifty puts at the
 * rates a loopback Gateway reaches (250–300 puts/s), each busy card still read every few
 * seconds, its latest revision always, and every read back at once when the storm ends.
 */
export const DEFAULT_BUSY_READS_PER_SECOND = 5;
export const DEFAULT_BUSY_READS_IN_FLIGHT = 1;

const DEFAULT_READ_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;
const RETRY_SOON_MS = 100;

/** Runs `fn` after `ms` and returns its cancel. */
export type Schedule = (fn: () => void, ms: number) => () => void;

/** The limits and clocks of the scheduler that a card store's owner may set. */
export type ReadLimits = {
  /** Reads in flight across sessions at once (the per-session limit is always one); default DEFAULT_MAX_READS_IN_FLIGHT. */
  maxConcurrentReads?: number;
  /**
   * Reads started per second across sessions (a burst of as many is allowed at once).
   * Beyond it sessions wait in the queue, where further hints for them coalesce.
   */
  maxReadsPerSecond?: number;
  /**
   * While the Gateway is busy (see GatewayLoad): change-driven reads started per second and
   * in flight at once. Defaults DEFAULT_BUSY_READS_PER_SECOND and DEFAULT_BUSY_READS_IN_FLIGHT.
   */
  busyReadsPerSecond?: number;
  busyReadsInFlight?: number;
  /** When a Gateway counts as busy (tests and benchmarks tune it). */
  gatewayLoad?: Partial<GatewayLoadOptions>;
  /** Monotonic ms for timing read round trips (default performance.now; tests inject one). */
  roundTripClock?: () => number;
  /** Monotonic ms for the read budget (tests inject one; the card clock may stand still). */
  monotonicNow?: () => number;
  /** First delay before retrying a failed read; doubles to 30 s. */
  readRetryMs?: number;
};

export type ReadSchedulerOptions<S> = ReadLimits & {
  /** Starts the read of `session` now (the scheduler has counted it in flight). */
  start: (session: S) => void;
  /** False while disconnected: nothing is started, the queues stay empty. */
  open: () => boolean;
  schedule: Schedule;
};

/** The scheduler's bookkeeping on each session it reads. */
export type ReadState = {
  /** queued: waiting for a free read; reading: a read is in flight. */
  phase: "idle" | "queued" | "reading";
  /** A change arrived during the read in flight: read exactly once more. */
  again: boolean;
  /**
   * Set while `again` is owed only to change hints naming revisions up to this one (in
   * order): a read that returns this revision or a newer one already saw them, so the
   * extra read is skipped. Null when anything else asked (a clear, a reset, a write).
   */
  againUpTo: number | null;
  /** Cancels the pending retry of a failed read. */
  retryTimer: (() => void) | null;
  /** Failed reads in a row, for the retry's backoff. */
  retryCount: number;
};

/** What a read request is: a read of the connect-time roster, or one asked for by a hint naming a revision (null: a clear). */
export type ReadRequest = { roster?: boolean; hint?: number | null };

/** Counts for tests, benchmarks and diagnostics. */
export type ReadStats = {
  /** Reads started. */
  reads: number;
  /** Highest number of reads ever in flight for one session (must stay 1). */
  maxInFlightPerSession: number;
  /** Highest number of sessions ever waiting for a free read (bounded by sessions, not events). */
  maxQueuedReads: number;
  /** Highest number of reads in flight at once across sessions (see resetReadPeak). */
  peakReadsInFlight: number;
  /** Reads a change hint asked for during a read, skipped because that read already returned its revision. */
  skippedRereads: number;
  /** Reads started while the Gateway counted as busy. */
  busyReads: number;
  /** Spells of paced reads so far (each began with a read the busy budget paced). */
  busySpells: number;
  /** Sessions waiting for a free read now. */
  queuedReads: number;
};

export class ReadScheduler<S extends ReadState> {
  private readonly opts: ReadSchedulerOptions<S>;
  private readsInFlight = 0;
  /** Reads asked for by hints, retries and the person: wait for a free read and the budget. */
  private readonly waiting: S[] = [];
  /** Reads of the roster at connect: wait for a free read only, in listing order (newest first). */
  private readonly rosterWaiting: S[] = [];
  private readonly readBudget: TokenBucket;
  /** The smaller budget while the Gateway is busy. */
  private readonly busyBudget: TokenBucket;
  private readonly load: GatewayLoad;
  /** Times read round trips for the load gauge. */
  private readonly roundTripClock: () => number;
  /** Cancels the wake-up of the queue when its next read is due. */
  private budgetWake: (() => void) | null = null;
  private pacing = false;
  private readonly counts: Omit<ReadStats, "queuedReads"> = {
    reads: 0,
    maxInFlightPerSession: 0,
    maxQueuedReads: 0,
    peakReadsInFlight: 0,
    skippedRereads: 0,
    busyReads: 0,
    busySpells: 0,
  };

  constructor(opts: ReadSchedulerOptions<S>) {
    this.opts = opts;
    const rate = Math.max(1, opts.maxReadsPerSecond ?? DEFAULT_MAX_READS_PER_SECOND);
    this.readBudget = new TokenBucket(rate, rate, this.monotonicNow());
    const busyRate = Math.max(1, opts.busyReadsPerSecond ?? DEFAULT_BUSY_READS_PER_SECOND);
    this.busyBudget = new TokenBucket(busyRate, busyRate, this.monotonicNow());
    this.roundTripClock = opts.roundTripClock ?? (() => performance.now());
    this.load = new GatewayLoad(opts.gatewayLoad, this.roundTripClock);
  }

  /** A snapshot of the counts (read-only: only the scheduler moves them). */
  get stats(): Readonly<ReadStats> {
    return Object.freeze({ ...this.counts, queuedReads: this.queuedReads() });
  }

  /** Whether change-driven reads are paced now because the Gateway is busy. */
  get gatewayBusy(): boolean {
    return this.load.busy;
  }

  /** Starts a new observation of `stats.peakReadsInFlight` (e.g. just before a reconnect). */
  resetReadPeak(): void {
    this.counts.peakReadsInFlight = this.readsInFlight;
  }

  /** A fresh connection: what the old one measured says nothing about it, and retries back off from the start. */
  connected(sessions: Iterable<S>): void {
    this.load.reset();
    for (const s of sessions) s.retryCount = 0;
  }

  /** The connection is gone: drop the queues and every pending wake-up; the reconnect reads again. */
  disconnected(sessions: Iterable<S>): void {
    for (const s of sessions) {
      cancelRetry(s);
      s.again = false;
      s.againUpTo = null;
      if (s.phase === "queued") s.phase = "idle";
    }
    this.waiting.length = 0;
    this.rosterWaiting.length = 0;
    this.cancelBudgetWake();
  }

  /** A change hint arrived for `sessionKey` (the load gauge counts them). */
  noteHint(sessionKey: string): void {
    this.load.noteHint(sessionKey);
  }

  /** Asks for a read of `s`: now, after the read in flight, or when a read and the budget are free. */
  request(s: S, how: ReadRequest = {}): void {
    if (!this.opts.open()) return;
    if (s.phase === "queued") return; // the queued read has not started: it will see this change
    if (s.phase === "reading") {
      this.readAgain(s, how.hint);
      return;
    }
    cancelRetry(s);
    const full = this.readsInFlight >= (how.roster ? this.maxReadsInFlight() : this.maxHintReadsInFlight());
    // Behind others already waiting, or over a limit: wait in line (further hints coalesce there).
    if (how.roster ? full || this.rosterWaiting.length > 0 : this.waiting.length > 0 || full || !this.takeReadToken()) {
      s.phase = "queued";
      (how.roster ? this.rosterWaiting : this.waiting).push(s);
      this.counts.maxQueuedReads = Math.max(this.counts.maxQueuedReads, this.queuedReads());
      return;
    }
    this.opts.start(s);
  }

  /**
   * Reads `s` again after a failed read, backing off from `readRetryMs` (`soon`: after a
   * moment, for an error the next read will not see), unless a read of it starts before.
   */
  retryLater(s: S, how: { soon?: boolean } = {}): void {
    const ms = how.soon ? RETRY_SOON_MS : Math.min(MAX_RETRY_MS, (this.opts.readRetryMs ?? DEFAULT_READ_RETRY_MS) * 2 ** s.retryCount);
    s.retryCount += 1;
    cancelRetry(s);
    s.retryTimer = this.opts.schedule(() => {
      s.retryTimer = null;
      this.request(s);
    }, ms);
  }

  /** A read of `s` begins (called by `start`, before anything is sent). */
  began(s: S): void {
    if (s.phase === "reading") {
      this.counts.maxInFlightPerSession = Math.max(this.counts.maxInFlightPerSession, 2); // never expected: recorded, not hidden
    }
    s.phase = "reading";
    s.again = false;
    s.againUpTo = null;
    this.readsInFlight += 1;
    this.counts.reads += 1;
    this.counts.peakReadsInFlight = Math.max(this.counts.peakReadsInFlight, this.readsInFlight);
    this.counts.maxInFlightPerSession = Math.max(this.counts.maxInFlightPerSession, 1);
  }

  /**
   * Sends a read and times its round trip for the load gauge. The roster's reads go eight at
   * a time, queueing behind each other: they would make any Gateway look busy, so they only
   * say how quick it can be (`quickestOnly`). Reads asked for by changes say how busy it is.
   */
  async timed<T>(send: () => Promise<T>, quickestOnly: boolean): Promise<T> {
    const sentAt = this.roundTripClock();
    const reply = await send();
    const roundTrip = this.roundTripClock() - sentAt;
    if (quickestOnly) this.load.noteQuickest(roundTrip);
    else this.load.sample(roundTrip);
    return reply;
  }

  /**
   * The read of `s` returned `revision` (null: no card, or none applied). Hints that came
   * during it named revisions it already returned: no read is owed for them. (A reset or
   * clear restarting revisions always sends a null hint first, which is never skipped.)
   */
  returned(s: S, revision: number | null): void {
    s.retryCount = 0;
    if (s.again && s.againUpTo !== null && revision !== null && revision >= s.againUpTo) {
      s.again = false;
      s.againUpTo = null;
      this.counts.skippedRereads += 1;
    }
  }

  /** The read of `s` is over, whatever its outcome: read once more if owed, then start waiting ones. */
  ended(s: S): void {
    this.readsInFlight -= 1;
    s.phase = "idle";
    if (s.again && this.opts.open()) this.request(s);
    this.drainWaiting();
  }

  /** Owes `s` one more read after the one in flight, whatever hints came (e.g. a write landed meanwhile). */
  readAgainAfter(s: S): void {
    s.again = true;
    s.againUpTo = null;
  }

  /** The store is disposed: no timer of its reads may fire. */
  cancelAll(sessions: Iterable<S>): void {
    this.cancelBudgetWake();
    for (const s of sessions) cancelRetry(s);
  }

  /** Something changed during the read in flight: read once more, unless only hints the read already covers asked. */
  private readAgain(s: S, hint?: number | null): void {
    const byHint = typeof hint === "number";
    if (!s.again) s.againUpTo = byHint ? hint : null;
    else if (s.againUpTo !== null) s.againUpTo = byHint && hint >= s.againUpTo ? hint : null;
    s.again = true;
  }

  private queuedReads(): number {
    return this.waiting.length + this.rosterWaiting.length;
  }

  private drainWaiting(): void {
    while (this.opts.open() && this.readsInFlight < this.maxReadsInFlight()) {
      dropUnqueued(this.waiting);
      dropUnqueued(this.rosterWaiting);
      // Hints first (a live change is what the person is looking at), then the roster.
      const hintRoom = this.readsInFlight < this.maxHintReadsInFlight();
      const next =
        (this.waiting.length > 0 && hintRoom && this.takeReadToken() ? this.waiting.shift() : undefined) ?? this.rosterWaiting.shift();
      if (next === undefined) return;
      this.opts.start(next);
    }
  }

  private maxReadsInFlight(): number {
    return Math.max(1, this.opts.maxConcurrentReads ?? DEFAULT_MAX_READS_IN_FLIGHT);
  }

  /** How many change-driven reads may be in flight now (the roster's own reads use maxReadsInFlight). */
  private maxHintReadsInFlight(): number {
    if (!this.load.busy) return this.maxReadsInFlight();
    return Math.min(this.maxReadsInFlight(), Math.max(1, this.opts.busyReadsInFlight ?? DEFAULT_BUSY_READS_IN_FLIGHT));
  }

  private monotonicNow(): number {
    return (this.opts.monotonicNow ?? performance.now.bind(performance))();
  }

  /** Takes one read from the budget, or arms a wake-up for when the next one is due. */
  private takeReadToken(): boolean {
    const now = this.monotonicNow();
    const busy = this.load.busy;
    if (busy !== this.pacing) {
      this.pacing = busy;
      if (busy) this.counts.busySpells += 1;
    }
    const budget = busy ? this.busyBudget : this.readBudget;
    if (budget.take(now)) {
      if (busy) this.counts.busyReads += 1;
      return true;
    }
    if (!this.budgetWake) {
      this.budgetWake = this.opts.schedule(() => {
        this.budgetWake = null;
        this.drainWaiting();
      }, budget.msUntilNext());
    }
    return false;
  }

  private cancelBudgetWake(): void {
    this.budgetWake?.();
    this.budgetWake = null;
  }
}

/** Drops queue heads that are no longer waiting (e.g. dropped by a disconnect). */
function dropUnqueued(queue: ReadState[]): void {
  while (queue.length > 0 && queue[0]?.phase !== "queued") queue.shift();
}

function cancelRetry(s: ReadState): void {
  s.retryTimer?.();
  s.retryTimer = null;
}
