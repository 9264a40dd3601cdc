// Answering a needs-you entry (Y13, Y14): every refusal of main/core/needs-answer.ts, the exact
// Gateway request built for each kind (docs/gateway.md §10.6), the outcome read from the reply,
// and the book's "answered here" path (the Gateway's own word held while an answer is on its
// way). Pure: entries built in the shapes the core holds.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { answerRequest, appliedOutcome, MAX_OWN_ANSWER, NeedAnswerRefused, type NeedAnswerRequest } from "../../main/core/needs-answer.ts";
import { blankEntry } from "../../main/core/needs-payload.ts";
import { NeedsBook } from "../../main/core/needs.ts";
import type { NeedAnswer, NeedEntry, NeedEvent, NeedQuestion, NeedsAnswering } from "../../common/model.ts";

const GW = "127.0.0.1-18789";
const ID = "3778ac43-36fd-4c31-b82e-6d7700a4ce06";
const T0 = 1_796_399_290_000;

function execEntry(over: Partial<NeedEntry> = {}): NeedEntry {
  return {
    ...blankEntry(GW, ID, "exec", T0),
    command: "uname -s",
    cwd: "/srv/work",
    host: "gateway",
    allowedDecisions: ["allow-once", "deny"],
    expiresAt: T0 + 30 * 60_000,
    ...over,
  };
}

const question = (over: Partial<NeedQuestion> = {}): NeedQuestion => ({
  questionId: "colour",
  header: "Pick",
  question: "Which colour?",
  options: [
    { label: "Red", description: null },
    { label: "Blue", description: "calm" },
  ],
  multiSelect: false,
  isOther: true,
  ...over,
});

function questionEntry(questions: NeedQuestion[] = [question()]): NeedEntry {
  return { ...blankEntry(GW, "ask_5f1c", "question", T0), questions, expiresAt: T0 + 15 * 60_000 };
}

/** The refusal's message; fails when the answer is not refused or refused otherwise. */
function refusal(entry: NeedEntry | null, answer: NeedAnswer, answering: NeedsAnswering = "on"): string {
  try {
    answerRequest(entry, answering, answer);
  } catch (err) {
    assert.ok(err instanceof NeedAnswerRefused, `not a NeedAnswerRefused: ${String(err)}`);
    return err.message;
  }
  assert.fail(`answer ${JSON.stringify(answer)} was not refused`);
}

const answers = (given: Record<string, string[]>): NeedAnswer => ({ kind: "question", answers: given });

describe("answering an entry: refusals", () => {
  test("an entry that is gone is refused: answered elsewhere or expired", () => {
    assert.equal(
      refusal(null, { kind: "exec", decision: "allow-once" }),
      "This request is no longer pending: it was answered elsewhere or has expired.",
    );
  });

  test("answering off or refused on that Gateway is refused, each with its way forward", () => {
    assert.match(refusal(execEntry(), { kind: "exec", decision: "allow-once" }, "off"), /^Answering is off for this Gateway: turn on/);
    assert.match(
      refusal(execEntry(), { kind: "exec", decision: "allow-once" }, "refused"),
      /^The Gateway did not grant Progress Desk the approvals and questions scopes/,
    );
  });

  test("a waiting run (seen only from the lifecycle) cannot be answered here", () => {
    const waiting = blankEntry(GW, ID, "waiting", T0);
    assert.equal(
      refusal(waiting, { kind: "exec", decision: "allow-once" }),
      "Progress Desk cannot see this approval's request: answer it in the Control UI.",
    );
  });

  test("an answer of another kind than the entry is refused", () => {
    assert.equal(refusal(execEntry(), { kind: "plugin", decision: "allow-once" }), "This is a command approval, not a plugin approval.");
    assert.equal(refusal(execEntry(), { kind: "question", cancel: true }), "This is a command approval, not a question.");
    assert.equal(refusal(questionEntry(), { kind: "exec", decision: "deny" }), "This is a question, not a command approval.");
  });

  test("a decision the Gateway does not offer for the entry is refused", () => {
    assert.equal(refusal(execEntry(), { kind: "exec", decision: "allow-always" }), "Allow always is not offered for this request.");
    assert.equal(
      refusal(execEntry({ allowedDecisions: ["allow-once"] }), { kind: "exec", decision: "deny" }),
      "Deny is not offered for this request.",
    );
    assert.equal(
      refusal(execEntry({ allowedDecisions: [] }), { kind: "exec", decision: "allow-once" }),
      "Allow once is not offered for this request.",
    );
    // A decision word the contract would never let through still names no decision.
    assert.equal(
      refusal(execEntry(), { kind: "exec", decision: "allow-forever" } as unknown as NeedAnswer),
      "That decision is not offered for this request.",
    );
  });

  test("an answer to a question the entry does not ask is refused", () => {
    assert.equal(refusal(questionEntry(), answers({ colour: ["Red"], size: ["L"] })), "This request asks no question “size”.");
    // An inherited name is not a question either.
    assert.equal(
      refusal(questionEntry(), answers(JSON.parse('{"colour":["Red"],"__proto__":["x"]}'))),
      "This request asks no question “__proto__”.",
    );
  });

  test("a value that is not an option is refused where no own answer is allowed", () => {
    const closed = questionEntry([question({ isOther: false })]);
    assert.equal(refusal(closed, answers({ colour: ["Green"] })), "“Pick” takes one of its options only.");
    // Labels are matched exactly: a padded label is an own answer, which this question does not take.
    assert.equal(refusal(closed, answers({ colour: ["red"] })), "“Pick” takes one of its options only.");
  });

  test("two answers for a single-select question are refused; a multi-select takes them", () => {
    assert.equal(refusal(questionEntry(), answers({ colour: ["Red", "Blue"] })), "“Pick” takes one answer.");
    assert.equal(refusal(questionEntry(), answers({ colour: ["Red", "Teal"] })), "“Pick” takes one answer.");
    const multi = questionEntry([question({ multiSelect: true })]);
    assert.deepEqual(answerRequest(multi, "on", answers({ colour: ["Red", "Blue"] })).params, {
      id: "ask_5f1c",
      answers: { answers: { colour: ["Red", "Blue"] } },
    });
  });

  test("a question left without an answer is refused: missing, empty, or only blanks", () => {
    const two = questionEntry([question(), question({ questionId: "size", header: "", question: "Which size?" })]);
    assert.equal(refusal(two, answers({ colour: ["Red"] })), "“Which size?” has no answer yet.");
    assert.equal(refusal(questionEntry(), answers({ colour: [] })), "“Pick” has no answer yet.");
    assert.equal(refusal(questionEntry(), answers({ colour: ["", "   ", "\n"] })), "“Pick” has no answer yet.");
    assert.equal(refusal(questionEntry(), answers({})), "“Pick” has no answer yet.");
  });

  test("an own answer is at most 2000 characters and holds no control or hidden characters", () => {
    assert.equal(MAX_OWN_ANSWER, 2000);
    const longest = "t".repeat(MAX_OWN_ANSWER);
    assert.deepEqual(answerRequest(questionEntry(), "on", answers({ colour: [longest] })).params, {
      id: "ask_5f1c",
      answers: { answers: { colour: [longest] } },
    });
    assert.equal(refusal(questionEntry(), answers({ colour: [`${longest}t`] })), "An own answer is at most 2000 characters.");
    for (const hidden of ["Te\u0007al", "Teal\u001b[2J", "Te\u202eal", "Te\u200bal"]) {
      assert.equal(
        refusal(questionEntry(), answers({ colour: [hidden] })),
        "An own answer cannot hold control or hidden characters.",
        JSON.stringify(hidden),
      );
    }
  });
});

describe("answering an entry: the request sent to the Gateway", () => {
  test("an approval: approval.resolve with the entry's id and kind and the decision", () => {
    assert.deepEqual(answerRequest(execEntry(), "on", { kind: "exec", decision: "allow-once" }), {
      method: "approval.resolve",
      params: { id: ID, kind: "exec", decision: "allow-once" },
    });
    assert.deepEqual(answerRequest(execEntry(), "on", { kind: "exec", decision: "deny" }), {
      method: "approval.resolve",
      params: { id: ID, kind: "exec", decision: "deny" },
    });
    const plugin = { ...execEntry({ allowedDecisions: ["allow-once", "allow-always", "deny"] }), kind: "plugin" as const, command: null };
    assert.deepEqual(answerRequest(plugin, "on", { kind: "plugin", decision: "allow-always" }), {
      method: "approval.resolve",
      params: { id: ID, kind: "plugin", decision: "allow-always" },
    });
  });

  test("a question: question.resolve with each question's labels; own answers trimmed; repeats folded", () => {
    const two = questionEntry([question(), question({ questionId: "size", header: "Size", multiSelect: true })]);
    assert.deepEqual(answerRequest(two, "on", answers({ colour: ["Blue", "Blue"], size: ["  Teal  ", "Teal", "Red", "Red"] })), {
      method: "question.resolve",
      params: { id: "ask_5f1c", answers: { answers: { colour: ["Blue"], size: ["Teal", "Red"] } } },
    });
    // An own answer keeps its lines (tabs and newlines are not hidden characters).
    assert.deepEqual(answerRequest(questionEntry(), "on", answers({ colour: ["Teal,\nplease"] })).params, {
      id: "ask_5f1c",
      answers: { answers: { colour: ["Teal,\nplease"] } },
    });
  });

  test("cancelling a question: question.resolve with cancel", () => {
    assert.deepEqual(answerRequest(questionEntry(), "on", { kind: "question", cancel: true }), {
      method: "question.resolve",
      params: { id: "ask_5f1c", cancel: true },
    });
  });
});

describe("answering an entry: the outcome read from the Gateway's reply", () => {
  const approval: NeedAnswerRequest = { method: "approval.resolve", params: { id: ID, kind: "exec", decision: "allow-once" } };
  const asked: NeedAnswerRequest = { method: "question.resolve", params: { id: "ask_5f1c", cancel: true } };

  test("an applied approval: the Gateway's decision, else the one sent", () => {
    assert.equal(appliedOutcome(approval, { applied: true, approval: { status: "resolved", decision: "allow-once" } }), "allowed-once");
    assert.equal(appliedOutcome(approval, { applied: true, approval: { decision: "deny" } }), "denied");
    assert.equal(appliedOutcome(approval, { applied: true, approval: { decision: "allow-always" } }), "allowed-always");
    assert.equal(appliedOutcome(approval, { applied: true }), "allowed-once");
  });

  test("an approval not applied (another answer came first, or it expired) or an odd reply: no outcome", () => {
    for (const reply of [{ applied: false }, {}, { applied: "true" }, null, "ok", [], { applied: true, approval: { decision: "maybe" } }]) {
      assert.equal(appliedOutcome(approval, reply), null, JSON.stringify(reply));
    }
  });

  test("a question: answered or cancelled by the Gateway's status, else no outcome", () => {
    assert.equal(appliedOutcome(asked, { status: "answered", answers: { colour: ["Red"] } }), "answered");
    assert.equal(appliedOutcome(asked, { status: "cancelled" }), "cancelled");
    for (const reply of [{ status: "expired" }, { status: "pending" }, {}, null, { applied: true }]) {
      assert.equal(appliedOutcome(asked, reply), null, JSON.stringify(reply));
    }
  });
});

describe("the book: an entry answered here", () => {
  function bookWithApproval() {
    const events: NeedEvent[] = [];
    const book = new NeedsBook({ now: () => T0 + 5_000, onChange: (_g, e) => void (e && events.push(e)) });
    book.handleEvent(GW, "exec.approval.requested", {
      id: ID,
      request: {
        command: "uname -s",
        cwd: "/srv/work",
        host: "gateway",
        allowedDecisions: ["allow-once", "deny"],
        sessionKey: "agent:main:x",
      },
      createdAtMs: T0,
      expiresAtMs: T0 + 30 * 60_000,
    });
    assert.equal(book.state(GW).entries.length, 1);
    return { book, events };
  }

  test("leaves at once, recorded as allowed once in Progress Desk, its event marked answeredHere", () => {
    const { book, events } = bookWithApproval();
    const record = book.answeredHere(GW, ID, "allowed-once");
    assert.equal(record?.outcome, "allowed-once");
    assert.equal(record?.text, "allowed once in Progress Desk");
    assert.equal(record?.resolvedBy, "Progress Desk");
    assert.equal(record?.endedAt, T0 + 5_000);
    assert.deepEqual(book.state(GW).entries, []);
    const last = events.at(-1);
    assert.equal(last?.kind, "resolved");
    assert.equal(last?.kind === "resolved" && last.answeredHere, true);
    assert.equal(last?.kind === "resolved" && last.record.text, "allowed once in Progress Desk");
  });

  test("the Gateway's own exec.approval.resolved for it, arriving later, changes nothing", () => {
    const { book, events } = bookWithApproval();
    book.answeredHere(GW, ID, "allowed-once");
    const before = events.length;
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "allow-once", resolvedBy: "some client", ts: T0 + 6_000 });
    assert.equal(events.length, before);
    assert.equal(book.record.find(GW, ID)?.text, "allowed once in Progress Desk");
    assert.equal(book.record.list().length, 1);
  });

  test("the Gateway announces the answer from here before it replies: the entry waits for the reply, then leaves once, answered here", () => {
    const { book, events } = bookWithApproval();
    book.answerSent(GW, ID);
    const before = events.length;
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "allow-once", resolvedBy: "Progress Desk", ts: T0 + 4_000 });
    assert.equal(events.length, before, "held until the reply");
    assert.equal(book.state(GW).entries.length, 1);
    book.answeredHere(GW, ID, "allowed-once");
    const resolved = events.slice(before);
    assert.deepEqual(
      resolved.map((e) => [e.kind, e.kind === "resolved" && e.answeredHere, e.kind === "resolved" && e.record.text]),
      [["resolved", true, "allowed once in Progress Desk"]],
    );
  });

  test("another client's answer came first while ours was on its way: when the Gateway did not apply ours, the other one's outcome stands", () => {
    const { book, events } = bookWithApproval();
    book.answerSent(GW, ID);
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "deny", resolvedBy: "second client", ts: T0 + 4_000 });
    const before = events.length;
    book.answerFailed(GW, ID);
    const resolved = events.slice(before);
    assert.deepEqual(
      resolved.map((e) => [e.kind, e.kind === "resolved" && e.answeredHere, e.kind === "resolved" && e.record.text]),
      [["resolved", false, "denied in second client"]],
    );
    assert.deepEqual(book.state(GW).entries, []);
  });

  test("an answer that failed with no word from the Gateway leaves the entry pending; later resolutions apply at once", () => {
    const { book, events } = bookWithApproval();
    book.answerSent(GW, ID);
    const before = events.length;
    book.answerFailed(GW, ID);
    assert.equal(events.length, before);
    assert.equal(book.state(GW).entries.length, 1);
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "deny", resolvedBy: "second client", ts: T0 + 6_000 });
    assert.equal(book.record.find(GW, ID)?.text, "denied in second client");
  });

  test("resolved elsewhere first: nothing is answered here and the other answer's record stands", () => {
    const { book, events } = bookWithApproval();
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "deny", resolvedBy: "second client", ts: T0 + 4_000 });
    const before = events.length;
    const record = book.answeredHere(GW, ID, "allowed-once");
    assert.equal(events.length, before);
    assert.equal(record?.text, "denied in second client");
  });
});
