// The card as data against a real Gateway: every write replaces the whole card (C2), seen
// by the core's store and by `watch --json`; and agent-scoped cards (G4): a bare key read
// with the agentId the Gateway's progress-card-agent-scope-v1 capability allows, the same
// (sessionKey, agentId) kept for every later read and clear.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AGENT_SCOPE_CAPABILITY } from "../../main/core/cards/card-slots.ts";
import { connectBareClient, type BareClient, type PlanStep } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { until } from "../harness/until.ts";
import { spawnWatchJson } from "../harness/watch-cli.ts";
import { startDesk, type DeskHarness } from "./support.ts";

const home = mkdtempSync(join(tmpdir(), "pd-card-contract-"));
let gw: TestGateway;
let writer: BareClient; // plays the agent (or another client) writing cards
let d: DeskHarness;
let watch: ChildProcess;
let out = "";

before(async () => {
  gw = await startGateway();
  writer = await connectBareClient(gw);
  d = await startDesk(gw);
  await d.waitForState("connected", 45_000);
  watch = spawnWatchJson(gw, home, (c) => (out += c));
  await until("watch connected", () => out.includes('"state":"connected"'), 45_000);
});

after(async () => {
  watch?.kill("SIGINT");
  d?.stop();
  await writer?.close();
  await gw?.dispose();
  rmSync(home, { recursive: true, force: true });
});

type WatchCard = {
  type: string;
  sessionKey: string;
  revision: number | null;
  markdown: string | null;
  steps: PlanStep[];
  derived: { total: number; state: string };
};
/** The line `watch --json` printed for this revision of the session's card. */
const watchLine = (key: string, revision: number) =>
  until(`watch printed ${key} r${revision}`, () =>
    out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as WatchCard)
      .find((l) => l.type === "card" && l.sessionKey === key && l.revision === revision),
  );

async function written(key: string, card: Parameters<BareClient["put"]>[1]) {
  const reply = await writer.put(key, card);
  const revision = reply.card!.revision;
  const entry = await d.waitForCard(key, (e) => e.card?.revision === revision);
  return { entry, line: await watchLine(key, revision) };
}

const steps = (...names: string[]): PlanStep[] => names.map((step, i) => ({ step, status: i === 0 ? "in_progress" : "pending" }));

describe("C2 every write replaces the whole card", () => {
  test("a write without the note removes the note; the checklist is the new one", async () => {
    const key = await writer.createSession();
    const first = await written(key, { markdown: "Investigating the flaky test", plan: steps("Reproduce", "Fix") });
    assert.equal(first.entry.card?.markdown, "Investigating the flaky test");
    assert.equal(first.line.markdown, "Investigating the flaky test");

    const second = await written(key, { plan: steps("Reproduce", "Fix") });
    assert.equal(second.entry.card?.markdown, null, "the store keeps no old note");
    assert.equal(second.line.markdown, null, "watch shows no old note");
    assert.deepEqual(second.entry.card?.steps, steps("Reproduce", "Fix"));
  });

  test("a write with fewer steps replaces the steps; no old step survives", async () => {
    const key = await writer.createSession();
    await written(key, { plan: steps("Inspect", "Patch", "Test", "Release") });
    const fewer = await written(key, { plan: steps("Release") });
    assert.deepEqual(fewer.entry.card?.steps, steps("Release"));
    assert.equal(fewer.entry.derived?.total, 1);
    assert.deepEqual(fewer.line.steps, steps("Release"));
    assert.equal(fewer.line.derived.total, 1);
  });

  test("a write without the plan removes the checklist: a note-only card", async () => {
    const key = await writer.createSession();
    await written(key, { markdown: "Step list follows", plan: steps("One", "Two") });
    const noteOnly = await written(key, { markdown: "Blocked on review" });
    assert.deepEqual(noteOnly.entry.card?.steps, []);
    assert.equal(noteOnly.entry.derived?.state, "note");
    assert.deepEqual(noteOnly.line.steps, []);
    assert.equal(noteOnly.line.markdown, "Blocked on review");
  });
});

describe("G4 agent scope", () => {
  test("the real Gateway offers the capability the app relies on", () => {
    assert.ok((writer.hello as { features?: { capabilities?: string[] } }).features?.capabilities?.includes(AGENT_SCOPE_CAPABILITY));
  });

  test("a bare key is read, followed and cleared as the agent it was asked for", { timeout: 60_000 }, async () => {
    // A bare `global` session of agent `main`; its events name it agent-qualified.
    await writer.request("sessions.create", { key: "global", agentId: "main" });
    const put = (plan: PlanStep[]) =>
      writer.request<{ card: { revision: number } | null }>("progressCard.put", { sessionKey: "global", agentId: "main", plan });
    const since = d.changes.length;
    const r1 = (await put(steps("Collect", "Summarise"))).card!.revision;
    // The hint names agent:main:global, which is also a session key of its own. Let the store
    // act on it before the pair is tracked: tracking afterwards must still follow every later hint.
    const hinted = (e: { sessionKey: string; agentId: string | null }) =>
      e.sessionKey === "agent:main:global" || (e.sessionKey === "global" && e.agentId === null);
    await d.waitFor((c) => c.type === "card" && hinted(c.entry), 20_000, since);

    d.desk.track(d.gatewayId, "global", "main");
    const read = await until("the agent's card", () => {
      const e = d.desk.entry(d.gatewayId, "global", "main");
      return e?.card?.revision === r1 ? e : null;
    });
    assert.equal(read.agentId, "main");
    assert.equal(read.error, null);
    assert.deepEqual(read.card?.steps, steps("Collect", "Summarise"));
    // The agentId is really sent: the same bare key for an agent with no such session is not
    // main's card under another name (this Gateway would answer a read without agentId with main's).
    d.desk.track(d.gatewayId, "global", "ghost");
    const ghost = await until("the read for agent ghost answered", () => {
      const e = d.desk.entry(d.gatewayId, "global", "ghost");
      return e === null || e.card !== null || e.error !== null ? { e } : null;
    });
    assert.equal(ghost.e?.card ?? null, null, "never another agent's card");

    // A later write arrives as a hint for agent:main:global; the same pair is read again.
    const done: PlanStep[] = [
      { step: "Collect", status: "completed" },
      { step: "Summarise", status: "completed" },
    ];
    const r2 = (await put(done)).card!.revision;
    const followed = await until("the newer revision", () => {
      const e = d.desk.entry(d.gatewayId, "global", "main");
      return e?.card?.revision === r2 ? e : null;
    });
    assert.equal(followed.derived?.state, "complete");

    // Dismiss clears that agent's card at the Gateway, not some other session's.
    const result = await d.desk.dismiss(d.gatewayId, "global", { revision: r2, agentId: "main" });
    assert.equal(result.outcome, "cleared", JSON.stringify(result));
    const after = await writer.request<{ card: unknown }>("progressCard.get", { sessionKey: "global", agentId: "main" });
    assert.equal(after.card, null);
    await until("the store saw the clear", () => d.desk.entry(d.gatewayId, "global", "main")?.card === null);
  });
});
