// Real agent runs (the Gateway, its agent runtime and its progress_card tool are real; the
// model is the scripted OpenAI-compatible fixture): agent-written cards, active vs paused
// from the run lifecycle (R6), and a refresh confirmed by a newer revision (A2).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { plan, startDesk, type DeskHarness } from "./support.ts";
import { until } from "../harness/until.ts";
import { spawnWatchJson } from "../harness/watch-cli.ts";

let model: ScriptedModel;
const rig = new GatewayRig(async () => (model = await startScriptedModel()));
let gw: TestGateway;
let user: BareClient; // sends the chat turns
let d: DeskHarness;
const home = mkdtempSync(join(tmpdir(), "pd-agent-runs-"));

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
  rmSync(home, { recursive: true, force: true });
});

describe("agent-written cards", () => {
  test("a card written by the agent's own progress_card tool reaches the store and watch --json", { timeout: 90_000 }, async () => {
    let out = "";
    const watch = spawnWatchJson(gw, home, (c) => (out += c));
    try {
      await until("watch connected", () => out.includes('"state":"connected"'), 30_000);
      const key = await user.createSession();
      const steps = [
        { step: "Read the failing test", status: "completed" as const },
        { step: "Fix the owner check", status: "in_progress" as const },
        { step: "Run the suite", status: "pending" as const },
      ];
      const turn = await user.runTurn(key, [
        {
          tool: "progress_card",
          args: { plan: steps, markdown: '<progress aria-label="Checks · 1/3" value="1" max="3"></progress>\n\nFixing it' },
        },
        { text: "Working" },
      ]);
      assert.equal(turn.phase, "end");
      const e = await d.waitForCard(key, (x) => x.card !== null);
      assert.deepEqual(e.card?.steps, steps);
      assert.match(e.card?.markdown ?? "", /Checks · 1\/3/);
      assert.equal(e.derived?.current, "Fix the owner check");
      // Activity lines name the session first (agent events arrive before the card is read).
      const cardLine = () =>
        out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, any>)
          .find((l) => l.type === "card" && l.sessionKey === key && l.revision !== null);
      const line = await until("watch printed the agent's card", cardLine, 15_000);
      assert.deepEqual(line.steps, steps);
      assert.equal(line.derived.completed, 1);
    } finally {
      watch.kill("SIGINT");
    }
  });

  test("active while the run lives, paused after it ends unfinished (R6)", { timeout: 90_000 }, async () => {
    const key = await user.createSession();
    const states: string[] = [];
    const off = d.desk.subscribe((c) => {
      if (c.type === "card" && c.entry.sessionKey === key && c.entry.derived) states.push(c.entry.derived.state);
    });
    try {
      const turn = user.runTurn(key, [
        { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending") } },
        // The run stays alive while the model "thinks".
        { text: "Stopping here for now", delayMs: 4000 },
      ]);
      const active = await d.waitForCard(key, (x) => x.derived?.state === "active", 30_000);
      assert.equal(active.derived?.completed, 1);
      assert.equal((await turn).phase, "end", "the run ended normally, not in error");
      const paused = await d.waitForCard(key, (x) => x.derived?.state === "paused", 30_000);
      assert.equal(paused.card?.revision, active.card?.revision, "the run ending changes the meaning, not the card");
      assert.deepEqual([...new Set(states)].slice(-2), ["active", "paused"]);
    } finally {
      off();
    }
  });

  test("refresh is confirmed by a newer saved card (A2)", { timeout: 60_000 }, async () => {
    const key = await user.createSession();
    const turn = await user.runTurn(key, [{ tool: "progress_card", args: { plan: plan("in_progress", "pending") } }, { text: "Paused" }]);
    assert.equal(turn.phase, "end", "the run ended normally, not in error");
    const e = await d.waitForCard(key, (x) => x.card !== null && x.derived?.state === "paused", 30_000);
    const pending = await d.desk.refresh(d.gatewayId, key);
    assert.equal(pending?.status, "pending");
    assert.equal(pending?.status === "pending" && pending.baseline, e.card!.revision);
    const confirmed = await d.waitForCard(key, (x) => x.card!.revision > e.card!.revision && x.refresh === null, 30_000);
    // The scripted model answers a refresh by advancing the plan one step.
    assert.equal(confirmed.derived?.completed, 1);
    const refreshPrompts = model.requests().filter((r) => JSON.stringify(r.body).includes("Refresh this session"));
    assert.ok(refreshPrompts.length >= 1, "the Gateway really asked the model to refresh");
  });
});
