// R6 outcomes from real agent runs: a card written by the agent's progress_card tool, then
// the run ends failed (the model endpoint errors), killed (aborted through the Gateway's
// chat.abort) or timed out (chat.send's own timeoutMs). The Gateway, its runtime and its
// session rows are real; what the card means comes from the core's derivation of them.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { p, type BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { plan, startDesk, type DeskHarness } from "./support.ts";

/** Turns whose message carries this marker fail at the model call after the card is written. */
const FAIL_MARK = "FAIL_AFTER_CARD";

/**
 * FAULTY model endpoint: forwards everything to the scripted model, except that in a turn
 * marked FAIL_MARK the call that follows a tool result (the card is written by then) gets
 * HTTP 400, as a provider rejecting a request would. The Gateway then fails the run.
 */
async function startFaultyModel(inner: ScriptedModel): Promise<ScriptedModel & { failed: () => number }> {
  let failed = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const text = body.toString("utf8");
    if (text.includes(FAIL_MARK) && text.includes('"role":"tool"')) {
      failed += 1;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "scripted provider failure", type: "invalid_request_error" } }));
      return;
    }
    const upstream = http.request({ host: "127.0.0.1", port: inner.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => inner.requests(),
    failed: () => failed,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inner.stop();
    },
  };
}

let model: Awaited<ReturnType<typeof startFaultyModel>>;
const rig = new GatewayRig(async () => (model = await startFaultyModel(await startScriptedModel())));
let gw: TestGateway;
let user: BareClient;
let d: DeskHarness;

before(
  async () => {
    ({ gw, client: user } = await rig.start());
    d = await startDesk(gw);
    await d.waitForState("connected", 45_000);
    await warmUpAgent(user, gw);
  },
  { timeout: 300_000 },
);

after(async () => {
  d?.stop();
  await rig.stop();
});

const cardStep = { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending") } };

/** Starts a turn without waiting for it; resolves with its run id once the Gateway accepted it. */
async function startTurn(sessionKey: string, script: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
  const idempotencyKey = randomUUID();
  const message = `Go.\nSCRIPT:${JSON.stringify(script)}`;
  const ack = await user.request<{ runId?: string }>("chat.send", { sessionKey, idempotencyKey, message, ...extra });
  return ack.runId ?? idempotencyKey;
}

const runEnded = (runId: string, timeoutMs = 60_000) =>
  user.waitForEvent(
    (e) => e.event === "agent" && p(e).runId === runId && p(e).stream === "lifecycle" && ["end", "error"].includes(p(e).data?.phase),
    timeoutMs,
  );

describe("R6: a finished run shows its outcome", () => {
  test("failed: the model errors after the card was written", { timeout: 120_000 }, async () => {
    const key = await user.createSession();
    const turn = await user.runTurn(key, [cardStep, { text: "never sent" }], { message: FAIL_MARK, timeoutMs: 90_000 });
    assert.equal(turn.phase, "error", "the run ended in error");
    assert.ok(model.failed() >= 1, "the faulty endpoint did fail a call");
    const e = await d.waitForCard(key, (x) => x.derived?.outcome === "failed", 30_000);
    assert.equal(e.derived?.state, "paused", "not active any more");
    assert.equal(e.card?.revision, 1, "the outcome changes the meaning, not the card");
    assert.equal(e.derived?.current, "Step 2");
  });

  test("killed: the run is aborted through the Gateway (chat.abort)", { timeout: 120_000 }, async () => {
    const key = await user.createSession();
    const runId = await startTurn(key, [cardStep, { text: "too late", delayMs: 30_000 }]);
    const active = await d.waitForCard(key, (x) => x.derived?.state === "active", 60_000);
    assert.equal(active.derived?.outcome, null);
    const abort = await user.request<{ aborted?: boolean }>("chat.abort", { sessionKey: key, runId });
    assert.equal(abort.aborted, true);
    await runEnded(runId);
    const e = await d.waitForCard(key, (x) => x.derived?.outcome === "killed", 30_000);
    assert.equal(e.derived?.state, "paused");
    assert.equal(e.card?.revision, active.card?.revision);
  });

  test("timeout: the run outlives the timeoutMs it was started with", { timeout: 120_000 }, async () => {
    const key = await user.createSession();
    const runId = await startTurn(key, [cardStep, { text: "too slow", delayMs: 40_000 }], { timeoutMs: 8000 });
    const ended = await runEnded(runId);
    assert.equal(p(ended).data?.phase, "error");
    const e = await d.waitForCard(key, (x) => x.derived?.outcome === "timeout", 30_000);
    assert.equal(e.derived?.state, "paused");
    assert.equal(e.derived?.completed, 1);
  });
});
