// Filling the needs-you book from one Gateway (Y2, Y6): decides from the hello whether this
// connection answers, and when it does, reads the pending approvals and questions at
// connect and after every reconnect or sequence gap (events missed meanwhile are never
// replayed, docs/gateway.md §3).
import { errorFacts } from "./connection-state.ts";
import { ANSWER_SCOPES, type Hello } from "./handshake.ts";
import { approvalEntry, questionEntry } from "./needs-payload.ts";
import type { NeedsBook } from "./needs.ts";
import type { NeedEntry, NeedKind } from "../../common/model.ts";
import type { Logger } from "./logger.ts";

export type NeedsTransport = { request<T>(method: string, params: unknown): Promise<T> };

export const REFUSED_ADVICE =
  "The Gateway did not grant the approvals and questions scopes, so Progress Desk only sees which runs wait for approval. Approve the scope upgrade on the Gateway host (`openclaw devices list`), or answer in the Control UI.";

export class NeedsSync {
  /** Counts reads, so a slower older read never overwrites a newer one. */
  private generation = 0;

  private readonly gatewayId: string;
  private readonly book: NeedsBook;
  private readonly transport: NeedsTransport;
  private readonly answer: boolean;
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(opts: { gatewayId: string; book: NeedsBook; transport: NeedsTransport; answer: boolean; now: () => number; log: Logger }) {
    ({ gatewayId: this.gatewayId, book: this.book, transport: this.transport, answer: this.answer, now: this.now, log: this.log } = opts);
    this.book.setAnswering(this.gatewayId, "off", null);
  }

  /** A connect or reconnect: what was granted decides how the book is filled. */
  async onReady(hello: Hello): Promise<void> {
    if (!this.answer) return this.book.setAnswering(this.gatewayId, "off", null);
    const granted = hello.auth?.scopes ?? [];
    if (!ANSWER_SCOPES.every((s) => granted.includes(s) || granted.includes("operator.admin"))) {
      return this.book.setAnswering(this.gatewayId, "refused", REFUSED_ADVICE);
    }
    this.book.setAnswering(this.gatewayId, "on", null);
    await this.readLists();
  }

  /** Events were dropped: read the lists again (a no-op unless answering). */
  async onGap(): Promise<void> {
    if (this.book.state(this.gatewayId).answering === "on") await this.readLists();
  }

  private async readLists(): Promise<void> {
    const generation = ++this.generation;
    const listedAt = this.now();
    const read = async (kind: NeedKind): Promise<NeedEntry[] | null> => {
      try {
        if (kind === "question") {
          const r = await this.transport.request<{ questions?: unknown }>("question.list", {});
          return (Array.isArray(r?.questions) ? r.questions : []).flatMap((q) => questionEntry(this.gatewayId, q, listedAt) ?? []);
        }
        const r = await this.transport.request<unknown>(kind === "exec" ? "exec.approval.list" : "plugin.approval.list", {});
        return (Array.isArray(r) ? r : []).flatMap((a) => approvalEntry(this.gatewayId, kind as "exec" | "plugin", a, listedAt) ?? []);
      } catch (err) {
        const facts = errorFacts(err);
        if (facts.detailCode === "MISSING_SCOPE") this.book.setAnswering(this.gatewayId, "refused", REFUSED_ADVICE);
        else this.log.warn(`reading pending ${kind} requests failed`, { code: facts.code, message: facts.message });
        return null;
      }
    };
    const kinds: NeedKind[] = ["exec", "plugin", "question"];
    const lists = await Promise.all(kinds.map(read));
    if (generation !== this.generation) return;
    const readKinds = kinds.filter((_, i) => lists[i] !== null);
    this.book.reconcile(
      this.gatewayId,
      readKinds,
      lists.flatMap((l) => l ?? []),
      listedAt,
    );
  }
}
