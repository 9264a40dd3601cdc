// Proves the Gateway test harness: a real Gateway driven by the scripted model, and one without a model.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { connectBareClient, p, RunFailedInGatewayError, type BareClient, type PlanStep } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";

const logDir = mkdtempSync(path.join(os.tmpdir(), "progress-desk-model-log-"));
let model: ScriptedModel | undefined;
let gw: TestGateway | undefined; // with the scripted model
let bare: TestGateway | undefined; // without a model
const clients: BareClient[] = [];
const pids: number[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

before(
  async () => {
    model = await startScriptedModel({ logDir });
    // Both Gateways boot in parallel: startup dominates the runtime.
    const [a, b] = await Promise.allSettled([startGateway({ model }), startGateway()]);
    if (a.status === "fulfilled") gw = a.value;
    if (b.status === "fulfilled") bare = b.value;
    if (a.status === "rejected") throw a.reason;
    if (b.status === "rejected") throw b.reason;
    pids.push(gw!.pid, bare!.pid);
  },
  { timeout: 300_000 },
);

after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled([gw?.dispose(), bare?.dispose()]);
  await model?.stop();
  rmSync(logDir, { recursive: true, force: true });
  for (const pid of pids) assert.equal(alive(pid), false, `gateway pid ${pid} survived dispose`);
});

describe("gateway with the scripted model", () => {
  let client: BareClient;
  const plan: PlanStep[] = [
    { step: "Inspect", status: "in_progress" },
    { step: "Fix", status: "pending" },
    { step: "Report", status: "pending" },
  ];
  let cardSession = "";
  let revision = 0;

  test("a bare client is silently paired with read+write and gets a device token", async () => {
    client = await connectBareClient(gw!);
    clients.push(client);
    const auth = (client.hello as { auth?: { scopes?: string[] } }).auth;
    assert.ok(auth?.scopes?.includes("operator.read"), `scopes: ${auth?.scopes}`);
    assert.ok(auth?.scopes?.includes("operator.write"), `scopes: ${auth?.scopes}`);
    assert.equal(typeof client.deviceToken, "string");
    assert.ok(client.deviceToken!.length > 0);
    assert.ok(client.hello.features.methods.includes("progressCard.refresh"));
  });

  test("warm-up turn ends", { timeout: 250_000 }, async (t) => {
    // A fresh Gateway's first turn on a starved CI machine has twice been failed by the Gateway itself, with no
    // lifecycle event (its session row said "failed"). That is the Gateway's trouble, not the harness's: one more
    // turn on a new session is allowed, and the first failure is reported. A harness that cannot run a turn fails both.
    let turn;
    try {
      turn = await client.runTurn(await client.createSession(), [{ text: "warmed up" }], { timeoutMs: 120_000 });
    } catch (error) {
      if (!(error instanceof RunFailedInGatewayError)) throw error;
      t.diagnostic(`first warm-up turn failed inside the Gateway, trying once more:\n${error.message}`);
      turn = await client.runTurn(await client.createSession(), [{ text: "warmed up" }], { timeoutMs: 120_000 });
    }
    assert.equal(turn.phase, "end");
    assert.equal(p(turn.event).data.terminalReply?.text, "warmed up");
  });

  test("the agent's progress_card write arrives as progressCard.changed and is readable", { timeout: 60_000 }, async () => {
    cardSession = await client.createSession();
    const since = client.events.length;
    const turn = await client.runTurn(cardSession, [
      { tool: "progress_card", args: { plan, markdown: "Working on it" } },
      { text: "Card written" },
    ]);
    assert.equal(turn.phase, "end");
    const changed = await client.waitForEvent((e) => e.event === "progressCard.changed" && p(e).sessionKey === cardSession, 5_000, since);
    revision = p(changed).revision;
    assert.equal(revision, 1);
    const { card } = await client.get(cardSession);
    assert.ok(card);
    assert.equal(card.revision, 1);
    assert.equal(card.markdown, "Working on it");
    assert.deepEqual(card.steps, plan);

    const agentCalls = model!.requests().filter((r) => r.kind === "agent");
    const toolNames = agentCalls.at(-1)!.body.tools.map((t: any) => t.function.name);
    assert.ok(toolNames.includes("progress_card"), "progress_card is offered as a direct tool");
  });

  test("progressCard.refresh on the idle session produces a newer revision", { timeout: 60_000 }, async () => {
    const since = client.events.length;
    const ack = await client.request<{ runId: string; status: string; revision: number }>("progressCard.refresh", {
      sessionKey: cardSession,
      idempotencyKey: `refresh-${Date.now()}`,
    });
    assert.equal(ack.status, "accepted");
    assert.equal(ack.revision, revision);
    const changed = await client.waitForEvent(
      (e) => e.event === "progressCard.changed" && p(e).sessionKey === cardSession && p(e).revision > ack.revision,
      30_000,
      since,
    );
    const { card } = await client.get(cardSession);
    assert.ok(card);
    assert.equal(card.revision, p(changed).revision);
    // The fake advances the previous card: the first step completed, the second started.
    assert.deepEqual(
      card.steps?.map((s) => s.status),
      ["completed", "in_progress", "pending"],
    );
  });
});

describe("gateway without a model", () => {
  let client: BareClient;

  test("put, get and clear a card", async () => {
    client = await connectBareClient(bare!);
    clients.push(client);
    const key = await client.createSession();
    const done: PlanStep[] = [
      { step: "Build", status: "completed" },
      { step: "Test", status: "completed" },
    ];
    const put = await client.put(key, { markdown: "All done", plan: done });
    assert.equal(put.card?.revision, 1);
    await client.waitForEvent((e) => e.event === "progressCard.changed" && p(e).sessionKey === key && p(e).revision === 1, 5_000);
    const got = await client.get(key);
    assert.deepEqual(got.card?.steps, done);
    assert.equal(got.card?.markdown, "All done");

    const cleared = await client.put(key, { expectedRevision: 1 });
    assert.equal(cleared.card, null);
    await client.waitForEvent((e) => e.event === "progressCard.changed" && p(e).sessionKey === key && p(e).revision === null, 5_000);
    assert.equal((await client.get(key)).card, null);
  });

  test("an abandoned event wait rejects and lets go of its timer", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const abandon = new AbortController();
    // All synchronous, so no other timer can start or end in between.
    const before = timers();
    const wait = client.waitForEvent(() => false, 600_000, client.events.length, abandon.signal);
    const waiting = timers();
    abandon.abort(new Error("the run failed elsewhere"));
    const after = timers();
    await assert.rejects(wait, /abandoned/);
    assert.equal(waiting, before + 1, "the wait holds one timer");
    assert.equal(after, before, "abandoning it clears that timer");
  });
});
