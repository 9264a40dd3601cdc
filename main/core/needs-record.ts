// The local record of ended needs-you entries (Y5): the last 200, newest last, each with its
// outcome in words. It keeps what was asked (a command with secrets masked, a plugin's title,
// a question) and how it ended, never what a command printed. Pure: needs-record-file.ts
// keeps it on disk.
import { redactSecrets } from "./activity/redact-secrets.ts";
import type { NeedDecision, NeedEntry, NeedKind, NeedOutcome, NeedRecord } from "../../common/model.ts";

export const NEEDS_RECORD_LIMIT = 200;
/** A summary longer than this is cut: the record is a reminder, not an archive. */
const SUMMARY_LIMIT = 2000;

export const OUTCOME_WORDS: Record<NeedOutcome, string> = {
  "allowed-once": "allowed once",
  "allowed-always": "allowed always",
  denied: "denied",
  // The Gateway denies what nobody answered in time (its default `askFallback`).
  expired: "expired, denied",
  answered: "answered",
  cancelled: "cancelled",
  gone: "no longer pending",
};

export function outcomeOfDecision(decision: NeedDecision): NeedOutcome {
  return decision === "allow-once" ? "allowed-once" : decision === "allow-always" ? "allowed-always" : "denied";
}

/**
 * An unanswered question is not denied: the agent is told no answer came and carries on
 * with its own judgment (docs/gateway.md §10.7).
 */
const EXPIRED_QUESTION_WORDS = "expired, not answered";

/** "allowed once in the Control UI", "denied in Progress Desk", "expired, denied". */
export function outcomeText(outcome: NeedOutcome, resolvedBy: string | null, kind: NeedKind): string {
  const words = outcome === "expired" && kind === "question" ? EXPIRED_QUESTION_WORDS : OUTCOME_WORDS[outcome];
  if (!resolvedBy || outcome === "expired" || outcome === "gone") return words;
  return `${words} in ${/control.?ui/i.test(resolvedBy) ? "the Control UI" : resolvedBy}`;
}

function summaryOf(entry: NeedEntry): string | null {
  const text =
    entry.kind === "exec"
      ? entry.command && redactSecrets(entry.command)
      : entry.kind === "plugin"
        ? entry.title
        : entry.kind === "question"
          ? (entry.questions[0]?.question ?? null)
          : null;
  return text === null ? null : text.length > SUMMARY_LIMIT ? `${text.slice(0, SUMMARY_LIMIT - 1)}…` : text;
}

export function recordOf(entry: NeedEntry, outcome: NeedOutcome, resolvedBy: string | null, endedAt: number): NeedRecord {
  return {
    gatewayId: entry.gatewayId,
    id: entry.id,
    kind: entry.kind,
    sessionKey: entry.sessionKey,
    agentId: entry.agentId,
    summary: summaryOf(entry),
    arrivedAt: entry.arrivedAt,
    endedAt,
    outcome,
    resolvedBy,
    text: outcomeText(outcome, resolvedBy, entry.kind),
  };
}

/** The last `NEEDS_RECORD_LIMIT` records, oldest first; `onChange` after every addition. */
export class NeedsRecord {
  private readonly records: NeedRecord[];
  private readonly onChange: () => void;

  constructor(initial: NeedRecord[] = [], opts: { onChange?: () => void } = {}) {
    this.records = initial.slice(-NEEDS_RECORD_LIMIT);
    this.onChange = opts.onChange ?? (() => {});
  }

  add(record: NeedRecord): void {
    // One record per entry: a later word on the same entry (the decision after a lifecycle end) replaces it.
    const at = this.records.findIndex((r) => r.gatewayId === record.gatewayId && r.id === record.id);
    if (at >= 0) this.records.splice(at, 1);
    this.records.push(record);
    if (this.records.length > NEEDS_RECORD_LIMIT) this.records.splice(0, this.records.length - NEEDS_RECORD_LIMIT);
    this.onChange();
  }

  find(gatewayId: string, id: string): NeedRecord | null {
    return this.records.find((r) => r.gatewayId === gatewayId && r.id === id) ?? null;
  }

  list(): NeedRecord[] {
    return this.records.map((r) => ({ ...r }));
  }
}
