// Needs you on a real Gateway with the scripted model (Y1–Y8): an exec approval in the core
// and in `watch --json`, answering off (lifecycle only, no approval surface declared), an
// approval resolved by a second client, a desk restarted while one is pending, an ask_user
// question answered or cancelled; answering through desk.answerNeed (Y13): allow once, deny,
// refused when off, when a second client answered first, or when an answer is on its way.
//
// The Gateway shows an approval only to clients of the device that started the run (and to
// admins): the test's user client therefore acts as the desk's own device (docs/gateway.md §10.3).
// Questions reach every client with the questions scope, so their desks have devices of their own.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { ChildProcess } from "node:child_process";
import { ProgressDesk } from "../../main/core/desk.ts";
import { CredentialVault, fileStorage, memoryStorage } from "../../main/core/vault.ts";
import { connectBareClient, p, type BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { spawnWatchJson } from "../harness/watch-cli.ts";
import { until } from "../harness/until.ts";
import {
  runEnded as runEnd,
  startExecTurn as execTurn,
  startQuestionTurn as questionTurn,
  toolResultBefore as toolResultOf,
} from "../harness/waiting-turns.ts";
import type { DeskChange, NeedEntry, NeedEvent } from "../../common/model.ts";

const GW = "needs-gateway";
const ALL_SCOPES = ["operator.read", "operator.write", "operator.approvals", "operator.questions"];
let model: ScriptedModel;
const rig = new GatewayRig(async () => (model = await startScriptedModel()), { exec: { host: "gateway", mode: "ask" } });
let gw: TestGateway;
let vault: CredentialVault;
let user: BareClient; // the desk's own device: starts runs and answers as "a second client"
const desks = new Set<ProgressDesk>();
let home: string;

/** A started desk on the test Gateway and every needs change it emits. */
function startDesk(opts: { answer: boolean; vault: CredentialVault }) {
  const desk = new ProgressDesk({
    gateways: [{ id: GW, url: gw.url, token: gw.token, ...(opts.answer ? { answerApprovals: true } : {}) }],
    vault: opts.vault,
    clientVersion: "0.0.0-test",
  });
  const events: NeedEvent[] = [];
  const waiters = new Set<() => void>();
  desk.subscribe((c: DeskChange) => {
    if (c.type === "needs" && c.event) events.push(c.event);
    for (const w of waiters) w();
  });
  desk.start();
  desks.add(desk);
  /** Resolves with the first needs event (past ones included) that `pred` accepts. */
  const waitFor = (pred: (e: NeedEvent) => boolean, what: string, timeoutMs = 60_000) =>
    new Promise<NeedEvent>((resolve, reject) => {
      const check = () => {
        const hit = events.find(pred);
        if (!hit) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `no needs event "${what}" within ${timeoutMs} ms; saw ${JSON.stringify(events.map((e) => [e.kind, e.entry.kind, e.entry.id]))}`,
          ),
        );
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const stop = () => {
    desk.stop();
    desks.delete(desk);
  };
  return { desk, events, waitFor, stop };
}

/** A turn whose one tool call waits for approval (test/harness/waiting-turns.ts). */
const startExecTurn = (command = "uname -s", finalText = "ran it") => execTurn(user, command, finalText);

/** `watch --json` on the test Gateway from `home` (the user's device); `seen` waits for a printed line. */
function startWatch(args: string[]) {
  let out = "";
  const lines = () =>
    out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, any>);
  const child: ChildProcess = spawnWatchJson(gw, home, (chunk) => void (out += chunk), args);
  const seen = (pred: (l: Record<string, any>) => boolean, what: string) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`watch printed no ${what} within 60 s:\n${out}`)), 60_000);
      const check = () => {
        const hit = lines().find(pred);
        if (!hit) return;
        clearTimeout(timer);
        child.stdout?.off("data", check);
        resolve(hit);
      };
      child.stdout?.on("data", check);
      check();
    });
  return { seen, stop: () => void child.kill("SIGTERM") };
}

const startQuestionTurn = (finalText: string) => questionTurn(user, finalText);

/**
 * After a failed question test: the main session runs one turn at a time, so a question left
 * pending would hold up the next test's turn.
 */
async function cancelPendingQuestion(runId: string): Promise<void> {
  const asked = user.events.find((e) => e.event === "question.requested" && p(e).runId === runId);
  if (!asked) return;
  // Already answered or cancelled by the test: the Gateway refuses, and nothing is held up.
  await user.request("question.resolve", { id: p(asked).id, cancel: true }).catch(() => {});
}

const toolResultBefore = (finalText: string) => toolResultOf(model, finalText);

const runEnded = (runId: string) => runEnd(user, runId);

before(
  async () => {
    const started = await rig.start();
    gw = started.gw;
    home = mkdtempSync(path.join(os.tmpdir(), "needs-watch-"));
    // The watch process's own vault, made first so the test knows its device: the user acts as it.
    vault = await CredentialVault.open(fileStorage(path.join(home, "pd", "credentials.json")));
    await vault.flush();
    user = await connectBareClient(gw, { scopes: ALL_SCOPES, identity: vault.deviceIdentity(), displayName: "second client" });
    await warmUpAgent(started.client, gw);
  },
  { timeout: 300_000 },
);

after(async () => {
  for (const d of desks) d.stop();
  await user?.close();
  await rig.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("needs you on a real Gateway", () => {
  test(
    "answering on: the exec approval appears in the core with its command; a second client's answer removes it with the outcome; answering off sees only the lifecycle, with the /approve link",
    { timeout: 180_000 },
    async () => {
      const on = startDesk({ answer: true, vault });
      const off = startDesk({ answer: false, vault: await CredentialVault.open(memoryStorage()) });
      try {
        const { runId } = await startExecTurn();
        const arrived = await on.waitFor((e) => e.kind === "arrived" && e.entry.kind === "exec" && e.entry.runId === runId, "exec arrived");
        const entry: NeedEntry = arrived.entry;
        assert.equal(entry.command, "uname -s");
        assert.equal(entry.host, "gateway");
        assert.ok(entry.cwd, "the working folder is known");
        assert.deepEqual(entry.allowedDecisions, ["allow-once", "deny"]);
        assert.ok(entry.expiresAt !== null && entry.expiresAt > entry.arrivedAt);
        assert.equal(on.desk.needsState(GW).answering, "on");

        // Off: the same approval, known only from the run's lifecycle, linked to the Control UI.
        const waiting = await off.waitFor((e) => e.kind === "arrived" && e.entry.id === entry.id, "waiting arrived");
        assert.equal(waiting.entry.kind, "waiting");
        assert.equal(waiting.entry.linkPath, `/approve/${entry.id}`);
        assert.equal(waiting.entry.command, null);
        const offState = off.desk.snapshot().gateways[0]!.connection;
        assert.equal(offState.state, "connected");
        assert.deepEqual(offState.state === "connected" && [...offState.scopes].sort(), ["operator.read", "operator.write"]);
        assert.equal(off.desk.needsState(GW).answering, "off");

        const result = await user.request<{ applied?: boolean }>("approval.resolve", {
          id: entry.id,
          kind: "exec",
          decision: "allow-once",
        });
        assert.equal(result.applied, true);
        const gone = await on.waitFor((e) => e.kind === "resolved" && e.entry.id === entry.id, "resolved");
        assert.equal(gone.kind === "resolved" && gone.record.text, "allowed once in second client");
        assert.equal(on.desk.needsState(GW).entries.length, 0);
        await off.waitFor((e) => e.kind === "resolved" && e.entry.id === entry.id, "waiting resolved");
        await runEnded(runId);
        // No approval event ever reached the desk that declared nothing: nothing but the waiting entry.
        assert.ok(
          off.events.every((e) => e.entry.kind === "waiting"),
          JSON.stringify(off.events.map((e) => e.entry.kind)),
        );
      } finally {
        on.stop();
        off.stop();
      }
    },
  );

  test("a desk restarted while an approval is pending shows it again, from the Gateway's list", { timeout: 180_000 }, async () => {
    const first = startDesk({ answer: true, vault });
    const { runId } = await startExecTurn("uname -m");
    const arrived = await first.waitFor((e) => e.kind === "arrived" && e.entry.runId === runId && e.entry.kind === "exec", "first desk");
    first.stop();
    const second = startDesk({ answer: true, vault });
    try {
      const again = await second.waitFor((e) => e.kind === "arrived" && e.entry.id === arrived.entry.id, "restarted desk");
      assert.equal(again.entry.command, "uname -m");
      await user.request("approval.resolve", { id: arrived.entry.id, kind: "exec", decision: "deny" });
      const denied = await second.waitFor((e) => e.kind === "resolved" && e.entry.id === arrived.entry.id, "denied");
      assert.equal(denied.kind === "resolved" && denied.record.outcome, "denied");
      await runEnded(runId);
    } finally {
      second.stop();
    }
  });

  test("watch --json --answer-approvals prints the approval with its command, then its outcome", { timeout: 180_000 }, async () => {
    const watch = startWatch(["--answer-approvals"]);
    try {
      await watch.seen((l) => l.type === "connection" && l.state === "connected", "connection");
      const { runId } = await startExecTurn("uname -r");
      const arrived = await watch.seen((l) => l.type === "needs" && l.event === "arrived" && l.runId === runId, "needs arrived");
      assert.equal(arrived.command, "uname -r");
      assert.equal(arrived.link, `${gw.url.replace(/^ws/, "http")}/approve/${arrived.id}`);
      await user.request("approval.resolve", { id: arrived.id, kind: "exec", decision: "allow-once" });
      const resolved = await watch.seen((l) => l.type === "needs" && l.event === "resolved" && l.id === arrived.id, "needs resolved");
      assert.equal(resolved.outcome.outcome, "allowed-once");
      await runEnded(runId);
    } finally {
      watch.stop();
    }
  });

  test(
    "an ask_user question in the main session reaches a desk on another device and watch --json, with its questions and options; a client's answer removes it as answered and the agent gets the answer",
    { timeout: 180_000 },
    async () => {
      // Its own device: unlike approvals, questions are not bound to the device that started the run.
      const desk = startDesk({ answer: true, vault: await CredentialVault.open(memoryStorage()) });
      const watch = startWatch(["--answer-approvals"]);
      let runId = "";
      try {
        await watch.seen((l) => l.type === "connection" && l.state === "connected", "connection");
        runId = await startQuestionTurn("colour chosen");
        const arrived = await desk.waitFor(
          (e) => e.kind === "arrived" && e.entry.kind === "question" && e.entry.runId === runId,
          "question",
        );
        const entry = arrived.entry;
        assert.equal(entry.sessionKey, "agent:main:main");
        assert.deepEqual(
          entry.questions.map((q) => [q.questionId, q.header, q.question, q.options.map((o) => o.label), q.isOther]),
          [["colour", "Pick", "Which colour?", ["Red", "Blue"], true]],
        );
        assert.equal(entry.questions[0]?.options[1]?.description, "calm");
        assert.equal(entry.linkPath, `/ask/${entry.id}`);
        assert.ok(entry.expiresAt !== null && entry.expiresAt > entry.arrivedAt);

        const line = await watch.seen((l) => l.type === "needs" && l.event === "arrived" && l.id === entry.id, "question arrived");
        assert.equal(line.kind, "question");
        assert.deepEqual(
          line.questions.map((q: { options: string[] }) => q.options),
          [["Red", "Blue"]],
        );
        assert.equal(line.link, `${gw.url.replace(/^ws/, "http")}/ask/${entry.id}`);

        const result = await user.request<{ status?: string }>("question.resolve", {
          id: entry.id,
          answers: { answers: { colour: ["Red"] } },
        });
        assert.equal(result.status, "answered");
        const done = await desk.waitFor((e) => e.kind === "resolved" && e.entry.id === entry.id, "question resolved");
        assert.equal(done.kind === "resolved" && done.record.outcome, "answered");
        assert.equal(done.kind === "resolved" && done.record.summary, "Which colour?");
        assert.equal(desk.desk.needsState(GW).entries.length, 0);
        const resolvedLine = await watch.seen(
          (l) => l.type === "needs" && l.event === "resolved" && l.id === entry.id,
          "question resolved",
        );
        assert.equal(resolvedLine.outcome.outcome, "answered");
        await runEnded(runId);
        // The agent carried on with the person's answer as the ask_user tool result.
        const toolResult = toolResultBefore("colour chosen");
        assert.match(toolResult, /"status": "answered"/);
        assert.match(toolResult, /"colour": \[\s*"Red"\s*\]/);
      } finally {
        desk.stop();
        watch.stop();
        await cancelPendingQuestion(runId);
      }
    },
  );

  test(
    "a question pending before the desk starts is read from the Gateway's list; cancelled, it leaves as cancelled and the agent gets no answer",
    { timeout: 180_000 },
    async () => {
      const runId = await startQuestionTurn("no colour");
      const pending = await user.waitForEvent((e) => e.event === "question.requested" && p(e).runId === runId, 60_000);
      const desk = startDesk({ answer: true, vault: await CredentialVault.open(memoryStorage()) });
      try {
        const listed = await desk.waitFor((e) => e.kind === "arrived" && e.entry.id === p(pending).id, "listed question");
        assert.equal(listed.entry.questions[0]?.question, "Which colour?");
        const result = await user.request<{ status?: string }>("question.resolve", { id: listed.entry.id, cancel: true });
        assert.equal(result.status, "cancelled");
        const done = await desk.waitFor((e) => e.kind === "resolved" && e.entry.id === listed.entry.id, "question cancelled");
        assert.equal(done.kind === "resolved" && done.record.outcome, "cancelled");
        assert.equal(done.kind === "resolved" && done.record.text, "cancelled");
        await runEnded(runId);
        assert.match(toolResultBefore("no colour"), /"status": "no_answer"/);
      } finally {
        desk.stop();
        await cancelPendingQuestion(runId);
      }
    },
  );
});

describe("answering from the desk on a real Gateway (desk.answerNeed)", () => {
  /** A desk that answers, on the user's device (it sees the user's approvals), and the exec approval of a new turn. */
  async function execApproval(command: string, finalText: string) {
    const on = startDesk({ answer: true, vault });
    const { runId } = await startExecTurn(command, finalText);
    const arrived = await on.waitFor((e) => e.kind === "arrived" && e.entry.kind === "exec" && e.entry.runId === runId, "exec arrived");
    return { on, runId, entry: arrived.entry, ref: { gatewayId: GW, id: arrived.entry.id } };
  }

  test(
    "allow once: the entry leaves as allowed once in Progress Desk, the command runs and its output reaches the model",
    { timeout: 180_000 },
    async () => {
      const { on, runId, entry, ref } = await execApproval("uname -s", "allowed and ran");
      try {
        const record = await on.desk.answerNeed(ref, { kind: "exec", decision: "allow-once" });
        assert.equal(record.outcome, "allowed-once");
        assert.equal(record.text, "allowed once in Progress Desk");
        const left = await on.waitFor((e) => e.kind === "resolved" && e.entry.id === entry.id, "resolved");
        assert.equal(left.kind === "resolved" && left.answeredHere, true);
        assert.equal(on.desk.needsState(GW).entries.length, 0);
        const ended = await runEnded(runId);
        assert.equal(p(ended).data.phase, "end");
        assert.match(toolResultBefore("allowed and ran"), /Linux/);
        // The Gateway's own resolution came later and changed nothing: one resolved event, the record as answered here.
        assert.equal(on.events.filter((e) => e.kind === "resolved" && e.entry.id === entry.id).length, 1);
        assert.equal(on.desk.needsHistory().find((r) => r.id === entry.id)?.text, "allowed once in Progress Desk");
      } finally {
        on.stop();
      }
    },
  );

  test(
    "answering off is refused and sends nothing (the approval stays pending); deny through answerNeed ends the run without running the command",
    { timeout: 180_000 },
    async () => {
      const marker = path.join(home, `denied-${Math.random().toString(16).slice(2)}`);
      const off = startDesk({ answer: false, vault: await CredentialVault.open(memoryStorage()) });
      const { on, runId, entry, ref } = await execApproval(`touch ${marker}`, "denied, not run");
      try {
        await off.waitFor((e) => e.kind === "arrived" && e.entry.id === entry.id, "waiting arrived");
        await assert.rejects(off.desk.answerNeed(ref, { kind: "exec", decision: "allow-once" }), (err: Error) => {
          assert.equal(err.name, "NeedAnswerRefused");
          assert.match(err.message, /^Answering is off for this Gateway/);
          return true;
        });
        // Still pending: the answering desk's deny is the one the Gateway applies.
        const record = await on.desk.answerNeed(ref, { kind: "exec", decision: "deny" });
        assert.equal(record.outcome, "denied");
        assert.equal(record.text, "denied in Progress Desk");
        await runEnded(runId);
        assert.equal(existsSync(marker), false, "the denied command did not run");
        assert.match(toolResultBefore("denied, not run"), /Exec denied \(.*user-denied\)/);
      } finally {
        on.stop();
        off.stop();
      }
    },
  );

  test(
    "an approval a second client answered first: the desk's answer is refused with a clear message and the entry leaves with the other client's outcome",
    { timeout: 180_000 },
    async () => {
      const { on, runId, entry, ref } = await execApproval("uname -n", "second client denied");
      try {
        // Sent first on the user's socket; the desk's answer follows before either reply is read.
        const theirs = user.request<{ applied?: boolean }>("approval.resolve", { id: entry.id, kind: "exec", decision: "deny" });
        const ours = on.desk.answerNeed(ref, { kind: "exec", decision: "allow-once" });
        await assert.rejects(ours, (err: Error) => {
          assert.equal(err.name, "NeedAnswerRefused");
          assert.match(err.message, /answered elsewhere or has expired/);
          return true;
        });
        assert.equal((await theirs).applied, true);
        const left = await on.waitFor((e) => e.kind === "resolved" && e.entry.id === entry.id, "resolved");
        assert.equal(left.kind === "resolved" && left.answeredHere, false);
        await until("the record names the other client's answer", () =>
          on.desk.needsHistory().find((r) => r.id === entry.id && r.text === "denied in second client"),
        );
        await runEnded(runId);
        assert.match(toolResultBefore("second client denied"), /Exec denied/, "the second client's deny is the one applied");
      } finally {
        on.stop();
      }
    },
  );

  test("two answers at once for one entry: the first is sent and wins, the other is refused", { timeout: 180_000 }, async () => {
    const { on, runId, entry, ref } = await execApproval("uname -s", "first answer won");
    try {
      const first = on.desk.answerNeed(ref, { kind: "exec", decision: "allow-once" });
      const second = on.desk.answerNeed(ref, { kind: "exec", decision: "deny" });
      await assert.rejects(second, (err: Error) => {
        assert.equal(err.name, "NeedAnswerRefused");
        assert.equal(err.message, "This request is being answered already.");
        return true;
      });
      assert.equal((await first).outcome, "allowed-once");
      assert.equal(on.events.filter((e) => e.kind === "resolved" && e.entry.id === entry.id).length, 1);
      await runEnded(runId);
      assert.match(toolResultBefore("first answer won"), /Linux/);
    } finally {
      on.stop();
    }
  });

  test(
    "a question answered through answerNeed reaches the agent as the ask_user result; the entry leaves as answered in Progress Desk",
    { timeout: 180_000 },
    async () => {
      const desk = startDesk({ answer: true, vault: await CredentialVault.open(memoryStorage()) });
      let runId = "";
      try {
        runId = await startQuestionTurn("colour answered here");
        const arrived = await desk.waitFor(
          (e) => e.kind === "arrived" && e.entry.kind === "question" && e.entry.runId === runId,
          "question",
        );
        const record = await desk.desk.answerNeed(
          { gatewayId: GW, id: arrived.entry.id },
          { kind: "question", answers: { colour: ["Blue"] } },
        );
        assert.equal(record.outcome, "answered");
        assert.equal(record.text, "answered in Progress Desk");
        await runEnded(runId);
        const toolResult = toolResultBefore("colour answered here");
        assert.match(toolResult, /"status": "answered"/);
        assert.match(toolResult, /"colour": \[\s*"Blue"\s*\]/);
      } finally {
        desk.stop();
        await cancelPendingQuestion(runId);
      }
    },
  );
});
