// The needs-you book (Y1–Y5) fed with payloads in the shapes the Gateway sends
// (docs/gateway.md §10), its record and record file, and the waiting status on the
// activity line (Y7). Pure: a fake clock, no Gateway.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { NeedsBook } from "../../main/core/needs.ts";
import { NEEDS_RECORD_LIMIT, NeedsRecord, recordOf } from "../../main/core/needs-record.ts";
import { loadNeedsRecordFile, openNeedsRecordFile } from "../../main/core/needs-record-file.ts";
import { ActivityTracker } from "../../main/core/activity/tracker.ts";
import type { NeedEntry, NeedEvent, SessionActivity } from "../../common/model.ts";

const GW = "127.0.0.1-18789";
const KEY = "agent:main:dashboard:7debc8f4-7645-490b-ab82-aa738fbada16";
const ID = "3778ac43-36fd-4c31-b82e-6d7700a4ce06";
const T0 = 1_796_399_290_000;

function setup() {
  let t = T0;
  const events: NeedEvent[] = [];
  const book = new NeedsBook({ now: () => t, onChange: (_g, e) => void (e && events.push(e)) });
  return { book, events, advance: (ms: number) => void (t += ms), now: () => t };
}

/** An `exec.approval.requested` payload as 2026.9.6 sends it (abridged the same way). */
function execRequested(id = ID, over: Record<string, unknown> = {}) {
  return {
    approvalKind: "exec",
    id,
    request: {
      command: "uname -s",
      cwd: "/srv/work",
      host: "gateway",
      security: "allowlist",
      ask: "on-miss",
      unavailableDecisions: ["allow-always"],
      allowedDecisions: ["allow-once", "deny"],
      agentId: "main",
      sessionKey: KEY,
      runId: "runB",
      toolCallId: "call_12",
      ...over,
    },
    createdAtMs: T0,
    expiresAtMs: T0 + 30 * 60_000,
  };
}

/** A `question.requested` payload as 2026.9.6 sends it for a scripted ask_user call. */
function questionRequested(id: string) {
  return {
    id,
    questions: [
      { questionId: "colour", header: "Pick", question: "Which colour?", options: [{ label: "Red" }, { label: "Blue" }], isOther: true },
    ],
    agentId: "main",
    sessionKey: "agent:main:main",
    runId: "runQ",
    createdAtMs: T0,
    expiresAtMs: T0 + 15 * 60_000,
    status: "pending",
  };
}

const lifecycle = (phase: string, data: Record<string, unknown> = {}) => ({
  runId: "runB",
  sessionKey: KEY,
  stream: "lifecycle",
  data: { phase, ...data },
});

describe("the needs-you book", () => {
  test("an exec approval arrives with its command, folder, host, decisions, expiry and /approve link", () => {
    const { book, events } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested());
    const [entry] = book.state(GW).entries;
    assert.ok(entry);
    assert.deepEqual(
      [entry.kind, entry.command, entry.cwd, entry.host, entry.sessionKey, entry.agentId, entry.toolCallId],
      ["exec", "uname -s", "/srv/work", "gateway", KEY, "main", "call_12"],
    );
    assert.deepEqual(entry.allowedDecisions, ["allow-once", "deny"]);
    assert.equal(entry.expiresAt, T0 + 30 * 60_000);
    assert.equal(entry.linkPath, `/approve/${ID}`);
    assert.deepEqual(
      events.map((e) => e.kind),
      ["arrived"],
    );
  });

  test("resolved elsewhere: the entry leaves, and the record says the decision and who made it", () => {
    const { book, events } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested());
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "allow-once", resolvedBy: "Control UI", ts: T0 + 5 });
    assert.equal(book.state(GW).entries.length, 0);
    const last = events.at(-1);
    assert.equal(last?.kind, "resolved");
    assert.equal(last?.kind === "resolved" && last.record.text, "allowed once in the Control UI");
    assert.equal(book.record.list()[0]?.outcome, "allowed-once");
  });

  test("a deny by another client reads as denied in that client", () => {
    const { book } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested());
    book.handleEvent(GW, "exec.approval.resolved", { id: ID, decision: "deny", resolvedBy: "approver" });
    assert.equal(book.record.list()[0]?.text, "denied in approver");
  });

  test("without the scopes, a run's waiting-approval makes an entry with its approval link; approval-resolved ends it", () => {
    const { book, events } = setup();
    book.handleEvent(GW, "agent", lifecycle("waiting-approval", { approvalId: ID, toolCallId: "call_12" }));
    const [entry] = book.state(GW).entries;
    assert.equal(entry?.kind, "waiting");
    assert.equal(entry?.sessionKey, KEY);
    assert.equal(entry?.linkPath, `/approve/${ID}`);
    book.handleEvent(GW, "agent", lifecycle("approval-resolved", { approvalId: ID, toolCallId: "call_12" }));
    assert.equal(book.state(GW).entries.length, 0);
    assert.deepEqual(
      events.map((e) => e.kind),
      ["arrived", "resolved"],
    );
  });

  test("the waiting run learns its approval (one entry, updated), and the approval never falls back", () => {
    const { book, events } = setup();
    book.handleEvent(GW, "agent", lifecycle("waiting-approval", { approvalId: ID, toolCallId: "call_12" }));
    book.handleEvent(GW, "exec.approval.requested", execRequested());
    book.handleEvent(GW, "agent", lifecycle("waiting-approval", { approvalId: ID, toolCallId: "call_12" }));
    // With answering on, the lifecycle's approval-resolved waits for the event that names the decision.
    book.handleEvent(GW, "agent", lifecycle("approval-resolved", { approvalId: ID, toolCallId: "call_12" }));
    assert.equal(book.state(GW).entries[0]?.kind, "exec");
    assert.deepEqual(
      events.map((e) => e.kind),
      ["arrived", "updated"],
    );
  });

  test("a run that ended waits on nothing", () => {
    const { book } = setup();
    book.handleEvent(GW, "agent", lifecycle("waiting-approval", { approvalId: ID }));
    book.handleEvent(GW, "agent", lifecycle("end"));
    assert.equal(book.state(GW).entries.length, 0);
    assert.equal(book.record.list()[0]?.outcome, "gone");
  });

  test("an entry past its expiry leaves as expired, denied", () => {
    const { book, advance } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested());
    assert.equal(book.nextExpiry(), T0 + 30 * 60_000);
    advance(30 * 60_000 - 1);
    book.expire();
    assert.equal(book.state(GW).entries.length, 1);
    advance(1);
    book.expire();
    assert.equal(book.state(GW).entries.length, 0);
    assert.equal(book.record.list()[0]?.text, "expired, denied");
  });

  test("the lists: new entries arrive, missing ones known before the read end, newer ones and fresh resolutions stand", () => {
    const { book, events, advance, now } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested("old"));
    advance(10);
    const listedAt = now();
    advance(10);
    // Arrived while the reads were on their way: not in the list, still pending.
    book.handleEvent(GW, "exec.approval.requested", execRequested("newer"));
    // Resolved while the reads were on their way: in the list, not pending any more.
    book.handleEvent(GW, "exec.approval.requested", execRequested("answered"));
    book.handleEvent(GW, "exec.approval.resolved", { id: "answered", decision: "deny" });
    const listed = ["listed", "answered"].map((id) => ({ ...blankListed(id) }));
    book.reconcile(GW, ["exec"], listed, listedAt);
    assert.deepEqual(
      book
        .state(GW)
        .entries.map((e) => e.id)
        .sort(),
      ["listed", "newer"],
    );
    assert.equal(book.record.find(GW, "old")?.outcome, "gone");
    assert.ok(events.some((e) => e.kind === "arrived" && e.entry.id === "listed"));
  });

  test("a question arrives with its questions and options and leaves answered, with an /ask link", () => {
    const { book } = setup();
    book.handleEvent(GW, "question.requested", {
      id: "ask_1",
      questions: [
        {
          questionId: "colour",
          header: "Pick",
          question: "Which colour?",
          options: [{ label: "Red" }, { label: "Blue", description: "calm" }],
          isOther: true,
        },
      ],
      sessionKey: "agent:main:main",
      runId: "runQ",
      expiresAtMs: T0 + 60_000,
      status: "pending",
    });
    const [entry] = book.state(GW).entries;
    assert.equal(entry?.kind, "question");
    assert.equal(entry?.linkPath, "/ask/ask_1");
    assert.deepEqual(entry?.questions[0]?.options, [
      { label: "Red", description: null },
      { label: "Blue", description: "calm" },
    ]);
    assert.equal(entry?.questions[0]?.isOther, true);
    book.handleEvent(GW, "question.resolved", { id: "ask_1", status: "answered", answers: { answers: { colour: ["Red"] } } });
    assert.equal(book.state(GW).entries.length, 0);
    assert.equal(book.record.list()[0]?.outcome, "answered");
  });

  test("an unanswered question expires as not answered, never as denied (by the Gateway's word, by the clock, and read back from the file)", () => {
    const byGateway = setup();
    byGateway.book.handleEvent(GW, "question.requested", questionRequested("ask_1"));
    byGateway.book.handleEvent(GW, "question.resolved", { id: "ask_1", status: "expired" });
    assert.equal(byGateway.book.record.find(GW, "ask_1")?.outcome, "expired");
    assert.equal(byGateway.book.record.find(GW, "ask_1")?.text, "expired, not answered");

    const byClock = setup();
    byClock.book.handleEvent(GW, "question.requested", questionRequested("ask_2"));
    byClock.advance(15 * 60_000);
    byClock.book.expire();
    assert.equal(byClock.book.record.find(GW, "ask_2")?.text, "expired, not answered");

    const dir = mkdtempSync(path.join(os.tmpdir(), "needs-record-"));
    try {
      const saved = openNeedsRecordFile(path.join(dir, "needs-record.json"));
      saved.record.add(byClock.book.record.find(GW, "ask_2")!);
      saved.flush();
      assert.equal(loadNeedsRecordFile(path.join(dir, "needs-record.json")).records[0]?.text, "expired, not answered");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("malformed payloads make no entry", () => {
    const { book } = setup();
    for (const bad of [null, 7, "x", {}, { id: 5 }, { id: "" }, []]) {
      book.handleEvent(GW, "exec.approval.requested", bad);
      book.handleEvent(GW, "question.requested", bad);
      book.handleEvent(GW, "agent", bad);
    }
    assert.equal(book.state(GW).entries.length, 0);
  });
});

function blankListed(id: string): NeedEntry {
  const { book } = setup();
  book.handleEvent(GW, "exec.approval.requested", execRequested(id));
  return book.state(GW).entries[0]!;
}

describe("the needs-you record", () => {
  test("keeps the last 200, masks secrets in commands and keeps no output", () => {
    const record = new NeedsRecord();
    const { book } = setup();
    book.handleEvent(GW, "exec.approval.requested", execRequested("s", { command: "curl -H 'Authorization: Bearer abcdefgh12345678' x" }));
    const entry = book.state(GW).entries[0]!;
    for (let i = 0; i < NEEDS_RECORD_LIMIT + 5; i++) record.add(recordOf({ ...entry, id: `id-${i}` }, "denied", null, T0 + i));
    const list = record.list();
    assert.equal(list.length, NEEDS_RECORD_LIMIT);
    assert.equal(list[0]?.id, "id-5");
    assert.ok(!list[0]?.summary?.includes("abcdefgh12345678"), list[0]?.summary ?? "");
  });

  test("is saved only for the person (0600), read back, and a damaged file is set aside", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "needs-record-"));
    try {
      const file = path.join(dir, "needs-record.json");
      const { book } = setup();
      book.handleEvent(GW, "exec.approval.requested", execRequested());
      const saved = openNeedsRecordFile(file);
      saved.record.add(recordOf(book.state(GW).entries[0]!, "allowed-once", "approver", T0 + 1));
      saved.flush();
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(loadNeedsRecordFile(file).records[0]?.text, "allowed once in approver");
      writeFileSync(file, "{ not json");
      const warnings: string[] = [];
      const again = openNeedsRecordFile(file, { warn: (m) => void warnings.push(m) });
      assert.equal(again.record.list().length, 0);
      assert.ok(existsSync(`${file}.damaged`));
      assert.match(warnings[0] ?? "", /damaged/);
      assert.ok(readFileSync(`${file}.damaged`, "utf8").startsWith("{ not json"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the activity line of a call waiting for approval (Y7)", () => {
  test("says waiting while the approval is pending and running again after it, and raises no stall", () => {
    let t = T0;
    const tracker = new ActivityTracker({ now: () => t, schedule: () => () => {}, stall: { silentMs: 60_000 } });
    const agent = (stream: string, data: Record<string, unknown>) =>
      tracker.handleAgentEvent(GW, { runId: "runB", sessionKey: KEY, stream, data });
    agent("lifecycle", { phase: "start" });
    agent("item", {
      itemId: "tool:call_12",
      toolCallId: "call_12",
      name: "exec",
      kind: "tool",
      phase: "start",
      meta: "uname -s",
      commandBearing: true,
    });
    const current = (): SessionActivity["current"] => tracker.get(GW, KEY)?.current ?? null;
    assert.equal(current()?.status, "running");
    agent("lifecycle", { phase: "waiting-approval", approvalId: ID, toolCallId: "call_12" });
    assert.equal(current()?.status, "waiting");
    assert.equal(current()?.label, "Shell · uname -s");
    t += 10 * 60_000;
    tracker.tick();
    assert.equal(tracker.get(GW, KEY)?.stall, null);
    agent("lifecycle", { phase: "approval-resolved", approvalId: ID, toolCallId: "call_12" });
    assert.equal(current()?.status, "running");
  });
});
