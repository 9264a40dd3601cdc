// Needs you (Y1–Y5): per Gateway, every approval and question an agent waits on, from the
// Gateway's lists and events (when this desk answers) or from `agent` lifecycle events
// (always). An entry leaves when it is resolved anywhere, expires, or its run ends, and
// leaves a record with its outcome (needs-record.ts). Pure: the caller feeds events and
// list results, and passes the clock.
import type { NeedEntry, NeedEvent, NeedKind, NeedOutcome, NeedRecord, NeedsAnswering, NeedsState } from "../../common/model.ts";
import { approvalEntry, blankEntry, lifecycleSignal, questionEntry, resolution } from "./needs-payload.ts";
import { NeedsRecord, outcomeOfDecision, outcomeText, recordOf } from "./needs-record.ts";
import { needEntryKey } from "../../common/keys.ts";

/** How the record names an answer given here (the Gateway knows this desk by the same display name). */
export const THIS_DESK = "Progress Desk";

/** Pending entries kept per Gateway, whatever a Gateway sends (the oldest go first). */
export const MAX_NEEDS_PER_GATEWAY = 500;

export const NEEDS_EVENTS = new Set([
  "exec.approval.requested",
  "exec.approval.resolved",
  "plugin.approval.requested",
  "plugin.approval.resolved",
  "question.requested",
  "question.resolved",
]);

type Gateway = { answering: NeedsAnswering; advice: string | null; entries: Map<string, NeedEntry>; seenAt: Map<string, number> };

/** The Gateway's word on an entry whose answer from here is on its way, kept until the reply says whose answer won. */
type HeldResolution = { outcome: NeedOutcome; resolvedBy: string | null; at: number } | null;

export type NeedsBookOptions = {
  now: () => number;
  record?: NeedsRecord;
  /** Called after every change of a Gateway's state, with the entry change when there is one. */
  onChange: (gatewayId: string, event: NeedEvent | null) => void;
};

export class NeedsBook {
  private readonly gateways = new Map<string, Gateway>();
  /** Entries answered from here, waiting for the Gateway's reply (by `gatewayId\u0000id`). */
  private readonly answering = new Map<string, HeldResolution>();
  readonly record: NeedsRecord;
  private readonly opts: NeedsBookOptions;

  constructor(opts: NeedsBookOptions) {
    this.opts = opts;
    this.record = opts.record ?? new NeedsRecord();
  }

  state(gatewayId: string): NeedsState {
    const g = this.gateways.get(gatewayId);
    if (!g) return { answering: "off", advice: null, entries: [] };
    const entries = [...g.entries.values()].sort((a, b) => a.arrivedAt - b.arrivedAt).map((e) => structuredClone(e));
    return { answering: g.answering, advice: g.advice, entries };
  }

  entry(gatewayId: string, id: string): NeedEntry | null {
    const e = this.gateways.get(gatewayId)?.entries.get(id);
    return e ? structuredClone(e) : null;
  }

  /** Whether this connection answers (Y6); `refused` and `off` read only lifecycle events. */
  setAnswering(gatewayId: string, answering: NeedsAnswering, advice: string | null): void {
    const g = this.gateway(gatewayId);
    if (g.answering === answering && g.advice === advice) return;
    g.answering = answering;
    g.advice = advice;
    this.opts.onChange(gatewayId, null);
  }

  /** One Gateway event (any; the ones about needs are used). */
  handleEvent(gatewayId: string, event: string, payload: unknown): void {
    const now = this.opts.now();
    if (event === "agent") return this.onLifecycle(gatewayId, payload, now);
    if (!NEEDS_EVENTS.has(event)) return;
    if (event.endsWith(".requested")) {
      const entry =
        event === "question.requested"
          ? questionEntry(gatewayId, payload, now)
          : approvalEntry(gatewayId, event.startsWith("exec.") ? "exec" : "plugin", payload, now);
      if (entry) this.put(entry, now);
      return;
    }
    const r = resolution(payload);
    if (!r) return;
    const outcome: NeedOutcome =
      r.decision !== null
        ? r.status === "expired" || r.status === "timeout"
          ? "expired"
          : outcomeOfDecision(r.decision)
        : r.status === "answered"
          ? "answered"
          : r.status === "cancelled"
            ? "cancelled"
            : r.status === "expired"
              ? "expired"
              : "gone";
    const resolvedBy = outcome === "expired" ? null : r.resolvedBy;
    const key = needEntryKey({ gatewayId, id: r.id });
    // The Gateway may announce our own answer before it replies to it: its reply says whose answer this was.
    if (this.answering.has(key) && this.gateways.get(gatewayId)?.entries.has(r.id)) {
      this.answering.set(key, { outcome, resolvedBy, at: now });
      return;
    }
    if (this.gateways.get(gatewayId)?.entries.has(r.id)) return this.resolve(gatewayId, r.id, outcome, resolvedBy, now);
    // Ended already (its run's end came first): the decision is the better word for the record.
    const known = this.record.find(gatewayId, r.id);
    if (known && known.outcome === "gone") this.record.add({ ...known, ...recordOfOutcome(known, outcome, resolvedBy) });
  }

  /**
   * The Gateway's lists, read at connect and after a reconnect or a gap (`kinds` were read,
   * `listedAt` is when the reads were sent). New entries arrive, changed ones update, and
   * entries of those kinds that were known before the reads and are no longer listed ended
   * while we could not see it.
   */
  reconcile(gatewayId: string, kinds: readonly NeedKind[], listed: readonly NeedEntry[], listedAt: number): void {
    const now = this.opts.now();
    const g = this.gateway(gatewayId);
    const ids = new Set(listed.map((e) => e.id));
    for (const e of [...g.entries.values()]) {
      if (kinds.includes(e.kind) && !ids.has(e.id) && (g.seenAt.get(e.id) ?? 0) < listedAt) {
        this.resolve(gatewayId, e.id, e.expiresAt !== null && e.expiresAt <= now ? "expired" : "gone", null, now);
      }
    }
    for (const e of listed) {
      // Resolved while the reads were on their way: the list is older than that.
      if (!g.entries.has(e.id) && (this.record.find(gatewayId, e.id)?.endedAt ?? -1) >= listedAt) continue;
      this.put(e, now);
    }
  }

  /**
   * An answer from here is on its way to the Gateway: until answeredHere or answerFailed, the
   * Gateway's own resolution of this entry is held (it may come before the reply to ours).
   */
  answerSent(gatewayId: string, id: string): void {
    this.answering.set(needEntryKey({ gatewayId, id }), null);
  }

  /**
   * The person answered this entry here and the Gateway applied it: it leaves now, recorded
   * as answered in Progress Desk (the Gateway's own resolution, held or still to come, changes nothing).
   */
  answeredHere(gatewayId: string, id: string, outcome: NeedOutcome): NeedRecord | null {
    this.answering.delete(needEntryKey({ gatewayId, id }));
    this.resolve(gatewayId, id, outcome, THIS_DESK, this.opts.now(), true);
    return this.record.find(gatewayId, id);
  }

  /** The Gateway did not apply the answer from here: its own resolution, if one came meanwhile, stands. */
  answerFailed(gatewayId: string, id: string): void {
    const key = needEntryKey({ gatewayId, id });
    const held = this.answering.get(key);
    this.answering.delete(key);
    if (held) this.resolve(gatewayId, id, held.outcome, held.resolvedBy, held.at);
  }

  /** Entries past their expiry leave as expired (the Gateway denies them). */
  expire(): void {
    const now = this.opts.now();
    for (const [gatewayId, g] of this.gateways) {
      for (const e of [...g.entries.values()])
        if (e.expiresAt !== null && e.expiresAt <= now) this.resolve(gatewayId, e.id, "expired", null, now);
    }
  }

  /** The earliest expiry of any pending entry, for the caller's timer. */
  nextExpiry(): number | null {
    let next: number | null = null;
    for (const g of this.gateways.values())
      for (const e of g.entries.values()) if (e.expiresAt !== null && (next === null || e.expiresAt < next)) next = e.expiresAt;
    return next;
  }

  /** A Gateway removed from Settings: its entries go without a record (nothing was decided). */
  forget(gatewayId: string): void {
    this.gateways.delete(gatewayId);
  }

  private onLifecycle(gatewayId: string, payload: unknown, now: number): void {
    const signal = lifecycleSignal(payload);
    if (!signal) return;
    const g = this.gateways.get(gatewayId);
    if (signal.phase === "run-ended") {
      // A run waits on nothing once it ended; approvals the Gateway listed leave with its own word.
      for (const e of [...(g?.entries.values() ?? [])]) {
        if (e.kind === "waiting" && e.runId === signal.runId) this.resolve(gatewayId, e.id, "gone", null, now);
      }
      return;
    }
    const existing = g?.entries.get(signal.approvalId);
    if (signal.phase === "approval-resolved") {
      // A listed approval waits for its `*.resolved` (it names the decision and who made it).
      if (existing?.kind === "waiting") this.resolve(gatewayId, existing.id, "gone", null, now);
      return;
    }
    if (existing) return; // the listed approval says more than the lifecycle event
    this.put(
      {
        ...blankEntry(gatewayId, signal.approvalId, "waiting", now),
        sessionKey: signal.sessionKey,
        agentId: signal.agentId,
        runId: signal.runId,
        toolCallId: signal.toolCallId,
      },
      now,
    );
  }

  private put(entry: NeedEntry, now: number): void {
    const g = this.gateway(entry.gatewayId);
    const before = g.entries.get(entry.id);
    if (before) {
      // A waiting run learns its approval; an approval never falls back to a bare waiting run.
      const next = { ...entry, arrivedAt: Math.min(before.arrivedAt, entry.arrivedAt) };
      if (JSON.stringify(next) === JSON.stringify(before)) return;
      g.entries.set(entry.id, next);
      this.opts.onChange(entry.gatewayId, { kind: "updated", entry: structuredClone(next) });
      return;
    }
    if (g.entries.size >= MAX_NEEDS_PER_GATEWAY) {
      const oldest = [...g.entries.values()].sort((a, b) => a.arrivedAt - b.arrivedAt)[0];
      if (oldest) this.resolve(entry.gatewayId, oldest.id, "gone", null, now);
    }
    g.entries.set(entry.id, entry);
    g.seenAt.set(entry.id, now);
    this.opts.onChange(entry.gatewayId, { kind: "arrived", entry: structuredClone(entry) });
  }

  private resolve(gatewayId: string, id: string, outcome: NeedOutcome, resolvedBy: string | null, now: number, answeredHere = false): void {
    const g = this.gateways.get(gatewayId);
    const entry = g?.entries.get(id);
    if (!g || !entry) return;
    g.entries.delete(id);
    g.seenAt.delete(id);
    const record = recordOf(entry, outcome, resolvedBy, now);
    this.record.add(record);
    this.opts.onChange(gatewayId, { kind: "resolved", entry: structuredClone(entry), record, answeredHere });
  }

  private gateway(gatewayId: string): Gateway {
    let g = this.gateways.get(gatewayId);
    if (!g) {
      g = { answering: "off", advice: null, entries: new Map(), seenAt: new Map() };
      this.gateways.set(gatewayId, g);
    }
    return g;
  }
}

function recordOfOutcome(known: { resolvedBy: string | null; kind: NeedKind }, outcome: NeedOutcome, resolvedBy: string | null) {
  const by = resolvedBy ?? known.resolvedBy;
  return { outcome, resolvedBy: by, text: outcomeText(outcome, by, known.kind) };
}
