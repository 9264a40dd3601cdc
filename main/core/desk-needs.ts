// The desk's needs-you side, across its Gateways: one book of pending entries, one timer for
// the earliest expiry among them, the record of ended entries, and answers sent one at a
// time per entry.
import type { NeedAnswer, NeedEvent, NeedRecord, NeedRef, NeedsState } from "../../common/model.ts";
import { needEntryKey } from "../../common/keys.ts";
import { truncate } from "../../common/truncate.ts";
import { errorFacts } from "./connection-state.ts";
import type { GatewayConnection } from "./connection.ts";
import { NeedsBook } from "./needs.ts";
import { answerRequest, appliedOutcome, NeedAnswerRefused } from "./needs-answer.ts";
import { NeedsRecord } from "./needs-record.ts";
import type { NeedsSync } from "./needs-sync.ts";

export type DeskNeedsOptions = {
  /** The needs-you record (needs-record-file.ts keeps it on disk); in memory only when absent. */
  record: { record: NeedsRecord; flush(): void } | undefined;
  now: () => number;
  /** Whether the Gateway is still configured: changes of one removed meanwhile are dropped. */
  known: (gatewayId: string) => boolean;
  /** A Gateway's needs-you state changed. */
  onChange: (gatewayId: string, needs: NeedsState, event: NeedEvent | null) => void;
};

export class DeskNeeds {
  readonly book: NeedsBook;
  private readonly record: { record: NeedsRecord; flush(): void };
  private readonly now: () => number;
  private started = false;
  private expiry: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  /** Entries with an answer on its way to the Gateway (one answer at a time per entry). */
  private readonly answering = new Set<string>();

  constructor(opts: DeskNeedsOptions) {
    this.now = opts.now;
    this.record = opts.record ?? { record: new NeedsRecord(), flush: () => {} };
    this.book = new NeedsBook({
      now: () => this.now(),
      record: this.record.record,
      onChange: (gatewayId, event) => {
        if (!opts.known(gatewayId)) return;
        this.armExpiry();
        opts.onChange(gatewayId, this.book.state(gatewayId), event);
      },
    });
  }

  /** Entries expire from now on. */
  start(): void {
    this.started = true;
    this.armExpiry();
  }

  /** No expiry timer from now on; what the record holds is written. */
  stop(): void {
    this.started = false;
    if (this.expiry) clearTimeout(this.expiry.timer);
    this.expiry = null;
    this.record.flush();
  }

  /** The ended needs-you entries, oldest first (the last 200, Y5). */
  history() {
    return this.record.record.list();
  }

  /** One timer, for the earliest expiry among pending entries (Y4). */
  private armExpiry(): void {
    const at = this.book.nextExpiry();
    if (this.expiry?.at === at) return;
    if (this.expiry) clearTimeout(this.expiry.timer);
    this.expiry = null;
    if (at === null || !this.started) return;
    const timer = setTimeout(
      () => {
        this.expiry = null;
        this.book.expire();
        this.armExpiry();
      },
      Math.min(Math.max(0, at - this.now()), 2 ** 31 - 1),
    );
    timer.unref?.();
    this.expiry = { at, timer };
  }

  /**
   * Answers a pending entry on its Gateway's connection; see ProgressDesk.answerNeed. When the
   * Gateway does not take or apply it, the Gateway's lists are read again through `sync`.
   */
  async answer(ref: NeedRef, answer: NeedAnswer, connection: GatewayConnection, sync: NeedsSync): Promise<NeedRecord> {
    const request = answerRequest(this.book.entry(ref.gatewayId, ref.id), this.book.state(ref.gatewayId).answering, answer);
    const key = needEntryKey(ref);
    if (this.answering.has(key)) throw new NeedAnswerRefused("This request is being answered already.");
    this.answering.add(key);
    this.book.answerSent(ref.gatewayId, ref.id);
    try {
      let reply: unknown;
      try {
        reply = await connection.request<unknown>(request.method, request.params);
      } catch (err) {
        this.book.answerFailed(ref.gatewayId, ref.id);
        void sync.onGap();
        throw new NeedAnswerRefused(`The Gateway did not take the answer: ${truncate(errorFacts(err).message, 300)}`, { cause: err });
      }
      const outcome = appliedOutcome(request, reply);
      const record = outcome === null ? null : this.book.answeredHere(ref.gatewayId, ref.id, outcome);
      if (record === null) {
        this.book.answerFailed(ref.gatewayId, ref.id);
        void sync.onGap();
        throw new NeedAnswerRefused("The Gateway did not apply the answer: the request was answered elsewhere or has expired.");
      }
      return record;
    } finally {
      this.answering.delete(key);
    }
  }
}
