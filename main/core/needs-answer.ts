// Answering a needs-you entry (Y13, Y14): the person's answer checked against the entry the
// core holds, then turned into the one Gateway request that carries it (docs/gateway.md
// §10.6), and the Gateway's reply read back into an outcome. A page names only the entry and
// the answer: which decisions exist, which questions and options, all come from the entry.
// Pure: desk.ts sends the request.
import type { NeedAnswer, NeedEntry, NeedOutcome, NeedsAnswering } from "../../common/model.ts";
import { hasHiddenCharacters, needKindLabel } from "../../common/needs-view.ts";
import { isObj, str } from "./activity/payload.ts";
import { outcomeOfDecision } from "./needs-record.ts";

/** The longest own answer ("Other") sent to an agent. */
export const MAX_OWN_ANSWER = 2000;

/** Why an answer was not sent: the message is the person's to read. */
export class NeedAnswerRefused extends Error {
  override readonly name = "NeedAnswerRefused";
}

export type NeedAnswerRequest = { method: "approval.resolve" | "question.resolve"; params: Record<string, unknown> };

const DECISION_WORDS = { "allow-once": "Allow once", "allow-always": "Allow always", deny: "Deny" } as const;

/**
 * The request that answers `entry`, or a NeedAnswerRefused saying why not: the entry is gone,
 * this desk does not answer on that Gateway, the answer is of another kind, the decision is
 * not one the Gateway offers, or the question answers do not fit its questions.
 */
export function answerRequest(entry: NeedEntry | null, answering: NeedsAnswering, answer: NeedAnswer): NeedAnswerRequest {
  if (entry === null) throw new NeedAnswerRefused("This request is no longer pending: it was answered elsewhere or has expired.");
  if (answering !== "on") {
    throw new NeedAnswerRefused(
      answering === "refused"
        ? "The Gateway did not grant Progress Desk the approvals and questions scopes: answer in the Control UI."
        : "Answering is off for this Gateway: turn on “Answer approvals and questions from Progress Desk” in Settings, or answer in the Control UI.",
    );
  }
  if (entry.kind === "waiting")
    throw new NeedAnswerRefused("Progress Desk cannot see this approval's request: answer it in the Control UI.");
  if (answer.kind !== entry.kind) {
    throw new NeedAnswerRefused(`This is a ${kindWords(entry)}, not a ${kindWords(answer)}.`);
  }
  if (answer.kind === "exec" || answer.kind === "plugin") {
    if (!entry.allowedDecisions.includes(answer.decision)) {
      throw new NeedAnswerRefused(`${DECISION_WORDS[answer.decision] ?? "That decision"} is not offered for this request.`);
    }
    return { method: "approval.resolve", params: { id: entry.id, kind: entry.kind, decision: answer.decision } };
  }
  if ("answers" in answer) {
    return { method: "question.resolve", params: { id: entry.id, answers: { answers: questionAnswers(entry, answer.answers) } } };
  }
  return { method: "question.resolve", params: { id: entry.id, cancel: true } };
}

/** "command approval", "plugin approval", "question". */
const kindWords = (e: Pick<NeedEntry, "kind">): string => needKindLabel(e).toLowerCase();

/** Every question answered once, each with its own options (or an own answer where allowed). */
function questionAnswers(entry: NeedEntry, given: Record<string, string[]>): Record<string, string[]> {
  const known = new Set(entry.questions.map((q) => q.questionId));
  const stranger = Object.keys(given).find((id) => !known.has(id));
  if (stranger !== undefined) throw new NeedAnswerRefused(`This request asks no question “${stranger}”.`);
  const out: Record<string, string[]> = {};
  for (const q of entry.questions) {
    const name = q.header || q.question;
    const values = (Object.hasOwn(given, q.questionId) ? given[q.questionId] : undefined) ?? [];
    const labels = new Set(q.options.map((o) => o.label));
    const chosen: string[] = [];
    for (const raw of values) {
      const value = labels.has(raw) ? raw : raw.trim();
      if (value === "") continue;
      if (!labels.has(value)) {
        if (!q.isOther) throw new NeedAnswerRefused(`“${name}” takes one of its options only.`);
        if (value.length > MAX_OWN_ANSWER) throw new NeedAnswerRefused(`An own answer is at most ${MAX_OWN_ANSWER} characters.`);
        if (hasHiddenCharacters(value)) throw new NeedAnswerRefused("An own answer cannot hold control or hidden characters.");
      }
      if (!chosen.includes(value)) chosen.push(value);
    }
    if (chosen.length === 0) throw new NeedAnswerRefused(`“${name}” has no answer yet.`);
    if (!q.multiSelect && chosen.length > 1) throw new NeedAnswerRefused(`“${name}” takes one answer.`);
    out[q.questionId] = chosen;
  }
  return out;
}

/**
 * How the entry ended by this answer, from the Gateway's reply; null when the Gateway did not
 * apply it (another answer came first, or it expired meanwhile).
 */
export function appliedOutcome(request: NeedAnswerRequest, reply: unknown): NeedOutcome | null {
  if (!isObj(reply)) return null;
  if (request.method === "approval.resolve") {
    if (reply.applied !== true) return null;
    const approval = isObj(reply.approval) ? reply.approval : {};
    const decision = str(approval.decision) ?? (request.params.decision as string);
    return decision === "allow-once" || decision === "allow-always" || decision === "deny" ? outcomeOfDecision(decision) : null;
  }
  const status = str(reply.status);
  return status === "answered" ? "answered" : status === "cancelled" ? "cancelled" : null;
}
