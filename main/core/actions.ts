// A1 dismiss and A2 refresh: the only writes the app makes, each tied to what the person saw.
import { randomUUID } from "node:crypto";
import { parseCard } from "../../common/card.ts";
import type { CardStore } from "./cards/card-store.ts";
import { errorFacts } from "./connection-state.ts";
import { CONFIRM_CLEAR_QUESTION, type CardEntry, type DismissResult, type RefreshState } from "../../common/model.ts";
import { DeskError, ERROR_CODES, failure, ok, type Result } from "../../common/errors.ts";

export const DEFAULT_REFRESH_TIMEOUT_MS = 120_000;
const REFRESH_TERMINAL = "PROGRESS_CARD_REFRESH_TERMINAL";

export type ActionTransport = {
  request<T>(method: string, params: unknown, opts?: { timeoutMs?: number | null }): Promise<T>;
  hasMethod(name: string): boolean;
};

/** Where a card's writes go, or UPDATE_REQUIRED when this Gateway cannot address it. */
function target(store: CardStore, entry: CardEntry): Result<{ sessionKey: string; agentId?: string }> {
  const t = store.readTarget(entry);
  if (!t)
    return failure(
      new DeskError(
        ERROR_CODES.updateRequired,
        "This Gateway cannot address this card (progress-card-agent-scope-v1 missing): update OpenClaw.",
      ),
    );
  return ok(t);
}

/**
 * A1. `revision` is the revision the person saw. A completed card is cleared with the
 * Gateway's conditional clear; anything else needs `confirmed`, is re-read, and is
 * cleared only if the revision is still the one shown.
 */
export async function dismissCard(
  store: CardStore,
  transport: ActionTransport,
  entry: CardEntry,
  opts: { revision: number; confirmed?: boolean },
): Promise<DismissResult> {
  const shown = entry.card;
  if (!shown) return { outcome: "gone" };
  if (shown.revision > opts.revision) return { outcome: "newer", card: shown };
  const addressed = target(store, entry);
  if (!addressed.ok) return { outcome: "error", code: addressed.error.code, message: addressed.error.message };
  const t = addressed.value;
  try {
    if (entry.derived?.state === "complete") {
      const reply = await transport.request<{ card?: unknown }>("progressCard.put", { ...t, expectedRevision: opts.revision });
      if (reply?.card == null) {
        store.applyCleared(entry.sessionKey, entry.agentId, opts.revision);
        return { outcome: "cleared" };
      }
      const kept = store.applyWriteReply(entry.sessionKey, entry.agentId, reply.card) ?? parseCard(reply.card);
      if (!kept) throw new Error("the Gateway replied to the write with a card that is not valid");
      return kept.revision > opts.revision ? { outcome: "newer", card: kept } : { outcome: "kept", card: kept };
    }
    if (!opts.confirmed) return { outcome: "confirm", question: CONFIRM_CLEAR_QUESTION };
    // 2026.9.6 refuses a conditional clear here: re-read, and clear only the revision shown.
    const current = await transport.request<{ card?: unknown }>("progressCard.get", t);
    const card = parseCard(current?.card ?? null);
    if (!card) {
      store.applyCleared(entry.sessionKey, entry.agentId, opts.revision);
      return { outcome: "gone" };
    }
    if (card.revision !== opts.revision) {
      store.applyWriteReply(entry.sessionKey, entry.agentId, current.card);
      return { outcome: "newer", card };
    }
    const reply = await transport.request<{ card?: unknown }>("progressCard.put", t);
    if (reply?.card != null) {
      const kept = store.applyWriteReply(entry.sessionKey, entry.agentId, reply.card) ?? card;
      return { outcome: kept.revision > opts.revision ? "newer" : "kept", card: kept };
    }
    store.applyCleared(entry.sessionKey, entry.agentId, opts.revision);
    return { outcome: "cleared" };
  } catch (err) {
    const f = errorFacts(err);
    return { outcome: "error", code: f.detailCode ?? f.code ?? "ERROR", message: f.message };
  }
}

/**
 * A2. A new click takes a fresh idempotency key; `retry` reuses the last key unless the
 * last failure was terminal. Confirmation is a newer saved card (the store clears the
 * pending state when one arrives); the timeout never cancels the agent's work.
 */
export async function refreshCard(
  store: CardStore,
  transport: ActionTransport,
  entry: CardEntry,
  opts: { retry?: boolean; timeoutMs?: number; now?: () => number } = {},
): Promise<RefreshState | null> {
  const now = opts.now ?? Date.now;
  const last = entry.refresh;
  const reusable = last && !(last.status === "failed" && last.terminal) ? last.key : null;
  const key = opts.retry && reusable ? reusable : last?.status === "pending" ? last.key : randomUUID();
  const fail = (code: string | null, error: string, terminal: boolean): RefreshState => {
    const state: RefreshState = { status: "failed", key, error, code, terminal, at: now() };
    store.setRefresh(entry.sessionKey, entry.agentId, state);
    return state;
  };
  if (!transport.hasMethod("progressCard.refresh")) {
    return fail("UPDATE_REQUIRED", "This Gateway cannot refresh progress cards; update OpenClaw on the Gateway host.", true);
  }
  const addressed = target(store, entry);
  if (!addressed.ok) return fail(addressed.error.code, addressed.error.message, true);
  const t = addressed.value;
  const baselineGuess = entry.card?.revision ?? 0;
  store.setRefresh(entry.sessionKey, entry.agentId, { status: "pending", key, baseline: baselineGuess, startedAt: now() });
  try {
    const ack = await transport.request<{ revision?: unknown }>("progressCard.refresh", { ...t, idempotencyKey: key });
    const baseline = typeof ack?.revision === "number" ? ack.revision : baselineGuess;
    const state: RefreshState = { status: "pending", key, baseline, startedAt: now() };
    store.setRefresh(entry.sessionKey, entry.agentId, state, opts.timeoutMs ?? DEFAULT_REFRESH_TIMEOUT_MS);
    return store.entry(entry.sessionKey, entry.agentId)?.refresh ?? null;
  } catch (err) {
    const f = errorFacts(err);
    const terminal = f.detailCode === REFRESH_TERMINAL;
    return fail(f.detailCode ?? f.code, f.message, terminal);
  }
}
