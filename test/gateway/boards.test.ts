// P3 core: progress widgets pinned on real Gateway boards (board.widget.put, as the agent's
// dashboard tool does), read on connect and again on board.changed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TestGateway } from "../harness/gateway.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { plan, startDesk } from "./support.ts";

const rig = new GatewayRig();
let gw: TestGateway;
let agent: BareClient;

before(async () => ({ gw, client: agent } = await rig.start()));

after(() => rig.stop());

const pin = (board: string, name: string, target?: string) =>
  agent.request("board.widget.put", {
    sessionKey: board,
    name,
    title: `Progress of ${name}`,
    content: { kind: "plugin", pluginKind: "session:progress", ...(target ? { props: { sessionKey: target } } : {}) },
  });

test("pins on boards are found on connect and followed on board.changed; their cards load", async () => {
  const [board, worker, later] = await Promise.all([agent.createSession(), agent.createSession(), agent.createSession()]);
  await agent.put(worker, { plan: plan("completed", "in_progress") });
  await pin(board, "worker-progress", worker);
  await pin(board, "own-progress"); // no props: the board's own session
  await agent.request("board.widget.put", {
    sessionKey: board,
    name: "notes",
    content: { kind: "html", html: "<p>not a progress widget</p>" },
  });

  const d = await startDesk(gw);
  try {
    await d.waitForState("connected", 30_000);
    const boards = await d.waitFor((c) => c.type === "boards" && c.boards.pins.length >= 2, 20_000);
    assert.ok(boards.type === "boards");
    assert.equal(boards.boards.supported, true);
    const pins = boards.boards.pins.map((p) => [p.widget, p.sessionKey, p.boardSessionKey]).sort();
    assert.deepEqual(
      pins,
      [
        ["own-progress", board, board],
        ["worker-progress", worker, board],
      ].sort(),
    );
    const e = await d.waitForCard(worker, (x) => x.card !== null);
    assert.equal(e.derived?.completed, 1);

    await agent.put(later, { markdown: "Pinned later" });
    await pin(board, "later-progress", later);
    const again = await d.waitFor((c) => c.type === "boards" && c.boards.pins.some((p) => p.sessionKey === later), 20_000);
    assert.ok(again.type === "boards" && again.boards.pins.length === 3);
    await d.waitForCard(later, (x) => x.card?.markdown === "Pinned later");
    assert.equal(d.desk.snapshot().gateways[0]!.boards.pins.length, 3);
  } finally {
    d.stop();
  }
});
