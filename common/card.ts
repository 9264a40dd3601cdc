// Validating cards from the wire (C1, C5) and deriving what they mean (R1, R6, R7).
import { DeskError, ERROR_CODES, failure, isDeskError, ok, type Result } from "./errors.ts";
import { stripInvisible } from "./strip.ts";
import type { CardDerived, ProgressCard, RunOutcome, SessionInfo, Step, StepStatus } from "./model.ts";

/** Defensive bounds: the Gateway enforces 8,192 bytes and 50 steps; the app still checks. */
export const MAX_NOTE_BYTES = 8192;
export const MAX_STEPS = 50;
export const MAX_STEP_BYTES = 512;

const STATUSES: ReadonlySet<string> = new Set<StepStatus>(["pending", "in_progress", "completed"]);

/** A card that breaks the card rules: a DeskError with code MALFORMED_CARD. */
const malformed = (message: string): DeskError => new DeskError(ERROR_CODES.malformedCard, message);

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** parseCard with a malformed card as a value (C5: an error state, never a crash); bugs still throw. */
export function readCard(value: unknown): Result<ProgressCard | null> {
  try {
    return ok(parseCard(value));
  } catch (e) {
    if (isDeskError(e, ERROR_CODES.malformedCard)) return failure(e);
    throw e;
  }
}

/**
 * Turns the `card` field of a `progressCard.get`/`put` reply into a card, or null when
 * there is none (C3). Anything malformed or oversized throws a MALFORMED_CARD DeskError with a
 * message a person can act on; it never yields a half-valid card.
 */
export function parseCard(value: unknown): ProgressCard | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw malformed("card is not an object");
  const raw = value as Record<string, unknown>;
  if (typeof raw.sessionKey !== "string" || raw.sessionKey === "") {
    throw malformed("card has no sessionKey");
  }
  if (!Number.isSafeInteger(raw.revision) || (raw.revision as number) < 1) {
    throw malformed(`card revision ${JSON.stringify(raw.revision)} is not an integer ≥ 1`);
  }
  if (typeof raw.updatedAt !== "number" || !Number.isFinite(raw.updatedAt)) {
    throw malformed("card updatedAt is not a time");
  }
  let markdown: string | null = null;
  if (raw.markdown !== undefined && raw.markdown !== null) {
    if (typeof raw.markdown !== "string") throw malformed("card markdown is not text");
    if (bytes(raw.markdown) > MAX_NOTE_BYTES) {
      throw malformed(`card note is ${bytes(raw.markdown)} bytes, over the ${MAX_NOTE_BYTES}-byte limit`);
    }
    markdown = stripInvisible(raw.markdown);
  }
  const steps: Step[] = [];
  if (raw.steps !== undefined && raw.steps !== null) {
    if (!Array.isArray(raw.steps)) throw malformed("card steps is not a list");
    if (raw.steps.length > MAX_STEPS) {
      throw malformed(`card has ${raw.steps.length} steps, over the ${MAX_STEPS}-step limit`);
    }
    let inProgress = 0;
    for (const [i, s] of raw.steps.entries()) {
      const item = s as Record<string, unknown> | null;
      if (!item || typeof item !== "object" || typeof item.step !== "string" || typeof item.status !== "string") {
        throw malformed(`card step ${i + 1} is not {step, status}`);
      }
      if (!STATUSES.has(item.status)) throw malformed(`card step ${i + 1} has unknown status "${item.status}"`);
      if (bytes(item.step) > MAX_STEP_BYTES) {
        throw malformed(`card step ${i + 1} is over the ${MAX_STEP_BYTES}-byte limit`);
      }
      const text = stripInvisible(item.step);
      if (text.trim() === "") throw malformed(`card step ${i + 1} has no text`);
      if (item.status === "in_progress") inProgress += 1;
      steps.push({ step: text, status: item.status as StepStatus });
    }
    if (inProgress > 1) throw malformed("card has more than one in_progress step");
  }
  // C3: no steps and no readable note is no card.
  if (steps.length === 0 && (markdown === null || markdown.trim() === "")) return null;
  return { sessionKey: raw.sessionKey, revision: raw.revision as number, updatedAt: raw.updatedAt, markdown, steps };
}

/** The run facts R6 needs; a missing session row means every fact is unknown. */
type RunFacts = Pick<SessionInfo, "status" | "hasActiveRun" | "startedAt" | "endedAt">;

const TERMINAL: ReadonlySet<string> = new Set<RunOutcome>(["done", "failed", "killed", "timeout"]);

/** docs/gateway.md §4.6 "active". */
export function isRunActive(run: RunFacts | null): boolean {
  if (!run) return false;
  if (run.status !== null && run.status !== "queued" && run.status !== "running") return false;
  if (run.hasActiveRun !== null) return run.hasActiveRun;
  return run.status === "queued" || run.status === "running";
}

export function deriveCard(card: ProgressCard, run: RunFacts | null): CardDerived {
  const total = card.steps.length;
  const completed = card.steps.filter((s) => s.status === "completed").length;
  const current = card.steps.find((s) => s.status === "in_progress")?.step ?? card.steps.find((s) => s.status === "pending")?.step ?? null;

  let outcome: RunOutcome | null = null;
  if (
    run &&
    run.status !== null &&
    TERMINAL.has(run.status) &&
    run.startedAt !== null &&
    run.endedAt !== null &&
    run.startedAt <= card.updatedAt &&
    card.updatedAt <= run.endedAt
  ) {
    outcome = run.status as RunOutcome;
  }

  if (total === 0) return { completed, total, current: null, state: "note", outcome };
  if (completed === total) return { completed, total, current: null, state: "complete", outcome };

  // R6: an unfinished card is paused unless a live run that started before it still runs.
  // Elapsed time alone never enters here.
  const stale = run?.startedAt != null && card.updatedAt < run.startedAt;
  const active = run !== null && isRunActive(run) && !stale && run.status !== "queued" && (run.startedAt !== null || run.status === null);
  return { completed, total, current, state: active && outcome === null ? "active" : "paused", outcome };
}

export function sameDerived(a: CardDerived | null, b: CardDerived | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return a.completed === b.completed && a.total === b.total && a.current === b.current && a.state === b.state && a.outcome === b.outcome;
}
