// The core against a real Gateway (no model): pairing, card sync, clears, limits,
// invisible characters, ordering, and the A1 dismiss paths.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { plan, startDesk, type DeskHarness } from "./support.ts";

let gw: TestGateway;
let agent: BareClient; // plays the agent: writes cards through progressCard.put
let d: DeskHarness;

before(async () => {
  gw = await startGateway();
  agent = await connectBareClient(gw);
  d = await startDesk(gw);
  await d.waitForState("connected", 45_000);
});

after(async () => {
  d?.stop();
  await agent?.close();
  await gw?.dispose();
});

describe("pairing", () => {
  test("first connect pairs silently with read+write and stores a device token; later connects reuse it", async () => {
    const vault = await CredentialVault.open(memoryStorage());
    const first = await startDesk(gw, { vault });
    try {
      const state = await first.waitForState("connected", 30_000);
      assert.equal(state.state, "connected");
      assert.ok(state.state === "connected" && state.scopes.includes("operator.read") && state.scopes.includes("operator.write"));
      assert.equal(state.state === "connected" && state.limited, false);
    } finally {
      first.stop();
    }
    await vault.flush();
    const deviceId = vault.deviceIdentity().deviceId;
    const stored = vault.get(`device-token|${gw.url}|${deviceId}|operator`);
    assert.ok(stored, "a device token was stored for this Gateway");
    assert.ok(JSON.parse(stored).token, "the stored record carries the token");

    // No shared token this time: only the stored device token can get us in.
    const second = await startDesk(gw, { vault, token: null });
    try {
      const state = await second.waitForState("connected", 30_000);
      assert.ok(state.state === "connected" && state.scopes.includes("operator.read"));
    } finally {
      second.stop();
    }
  });
});

describe("card sync", () => {
  test("a put reaches the store with derived counts; a clear gives no card", async () => {
    const key = await agent.createSession();
    await agent.put(key, { markdown: "Working on it", plan: plan("completed", "in_progress", "pending") });
    const e = await d.waitForCard(key, (x) => x.card?.revision === 1);
    assert.deepEqual(
      e.card?.steps.map((s) => s.status),
      ["completed", "in_progress", "pending"],
    );
    assert.equal(e.card?.markdown, "Working on it");
    assert.equal(e.derived?.completed, 1);
    assert.equal(e.derived?.total, 3);
    assert.equal(e.derived?.current, "Step 2");
    assert.equal(e.freshness, "live");
    // No run is active in this session: unfinished work shows as paused (R6).
    assert.equal(e.derived?.state, "paused");

    const cleared = await agent.put(key, {});
    assert.equal(cleared.card, null);
    const gone = await d.waitForCard(key, (x) => x.card === null);
    assert.equal(gone.derived, null);
    assert.ok(!d.desk.snapshot().gateways[0]!.cards.some((c) => c.sessionKey === key), "a cleared card leaves the snapshot");

    // After an unconditional clear the Gateway restarts revisions (2026.9.6 gives 1 again):
    // the new card must show although its revision is not above the old one.
    await agent.put(key, { markdown: "Again" });
    const again = await d.waitForCard(key, (x) => x.card !== null);
    assert.equal(again.card?.markdown, "Again");
    assert.equal(again.card?.revision, (await agent.get(key)).card?.revision);
    assert.equal(again.derived?.state, "note");
    await agent.put(key, { markdown: "Again, edited" });
    const edited = await d.waitForCard(key, (x) => x.card?.markdown === "Again, edited");
    assert.ok(edited.card!.revision > again.card!.revision);
  });

  test("two sessions at once stay apart", async () => {
    const [a, b] = await Promise.all([agent.createSession(), agent.createSession()]);
    await Promise.all([agent.put(a, { plan: plan("in_progress", "pending") }), agent.put(b, { plan: plan("completed", "completed") })]);
    const ea = await d.waitForCard(a, (x) => x.card !== null);
    const eb = await d.waitForCard(b, (x) => x.card !== null);
    assert.equal(ea.derived?.state, "paused");
    assert.equal(eb.derived?.state, "complete");
    assert.equal(ea.derived?.total, 2);
    assert.equal(eb.derived?.completed, 2);
  });

  test("the Gateway's limits reject bad writes with clear errors, and the shown card is kept", async () => {
    const key = await agent.createSession();
    await agent.put(key, { markdown: "Good card" });
    await d.waitForCard(key, (x) => x.card?.revision === 1);
    const since = d.changes.length;

    const reject = async (card: Parameters<BareClient["put"]>[1]): Promise<{ code: string; message: string }> => {
      try {
        await agent.put(key, card);
      } catch (err) {
        const e = err as { gatewayCode?: string; code?: string; message: string };
        return { code: e.gatewayCode ?? e.code ?? "", message: e.message };
      }
      throw new Error("the Gateway accepted an invalid card");
    };
    const big = await reject({ markdown: "é".repeat(4097) }); // 8,194 UTF-8 bytes
    assert.equal(big.code, "INVALID_REQUEST");
    assert.match(big.message, /8192|markdown|bytes|long/i);
    const two = await reject({ plan: plan("in_progress", "in_progress") });
    assert.match(two.message, /at most one in_progress/i);
    const many = await reject({ plan: Array.from({ length: 51 }, (_, i) => ({ step: `S${i}`, status: "pending" as const })) });
    assert.equal(many.code, "INVALID_REQUEST");
    const longStep = await reject({ plan: [{ step: "x".repeat(513), status: "pending" }] });
    assert.equal(longStep.code, "INVALID_REQUEST");

    // A good write after the rejected ones: it is revision 2 (none of them was saved), and
    // until it arrives the desk showed only the first card.
    await agent.put(key, { markdown: "After the rejects" });
    const e = await d.waitForCard(key, (x) => x.card?.markdown === "After the rejects");
    assert.equal(e.card?.revision, 2, "rejected writes change nothing");
    const shown = d.changes
      .slice(since)
      .flatMap((c) => (c.type === "card" && c.entry.sessionKey === key && c.entry.card ? [c.entry.card] : []))
      .filter((c) => c.revision !== 2);
    assert.ok(
      shown.every((c) => c.revision === 1 && c.markdown === "Good card"),
      "only the good card was shown before",
    );
  });

  test("a put on a key with no session fails clearly and creates nothing", async () => {
    await assert.rejects(
      agent.put("agent:main:dashboard:00000000-0000-4000-8000-000000000000", { markdown: "x" }),
      (err: { gatewayCode?: string; message: string }) => {
        assert.equal(err.gatewayCode, "UNAVAILABLE");
        assert.match(err.message, /FOREIGN KEY/);
        return true;
      },
    );
  });

  test("invisible and bidirectional characters never reach the display (C6)", async () => {
    const key = await agent.createSession();
    await agent.put(key, {
      markdown: "a\u200Bb\u202Ec\u2063d\uFEFFe\u{E0041}f\u206Ag",
      plan: [{ step: "St\u200Dep\u2060", status: "in_progress" }],
    });
    const e = await d.waitForCard(key, (x) => x.card !== null);
    assert.equal(e.card?.markdown, "abcdefg", "all listed ranges are gone");
    assert.equal(e.card?.steps[0]?.step, "Step");
  });

  test("a burst of writes ends on the last revision and never shows an older one after a newer", async () => {
    const key = await agent.createSession();
    const since = d.changes.length;
    const writes: Promise<unknown>[] = [];
    for (let i = 1; i <= 25; i += 1) writes.push(agent.put(key, { markdown: `Revision ${i}` }));
    await Promise.all(writes);
    const last = await d.waitForCard(key, (x) => x.card?.revision === 25, 20_000);
    assert.equal(last.card?.markdown, "Revision 25");
    const seen = d.changes
      .slice(since)
      .flatMap((c) => (c.type === "card" && c.entry.sessionKey === key && c.entry.card ? [c.entry.card.revision] : []));
    for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i]! >= seen[i - 1]!, `revision went back: ${seen.join(",")}`);
    assert.ok(seen.length < 25, `reads were coalesced (${seen.length} card changes for 25 writes)`);
    assert.equal(d.desk.stats(d.gatewayId).maxInFlightPerSession, 1);
  });
});

describe("dismiss (A1)", () => {
  test("a completed card is cleared with the conditional clear", async () => {
    const key = await agent.createSession();
    await agent.put(key, { plan: plan("completed", "completed") });
    const e = await d.waitForCard(key, (x) => x.derived?.state === "complete");
    const r = await d.desk.dismiss(d.gatewayId, key, { revision: e.card!.revision });
    assert.deepEqual(r, { outcome: "cleared" });
    assert.equal((await agent.get(key)).card, null);
    assert.equal(d.entry(key)?.card, null);
  });

  test("an unfinished card asks first, then is re-read and cleared if still the one shown", async () => {
    const key = await agent.createSession();
    await agent.put(key, { plan: plan("completed", "in_progress") });
    const e = await d.waitForCard(key, (x) => x.card !== null);
    const ask = await d.desk.dismiss(d.gatewayId, key, { revision: e.card!.revision });
    assert.deepEqual(ask, { outcome: "confirm", question: "Clear this saved progress for everyone?" });
    assert.notEqual((await agent.get(key)).card, null, "asking clears nothing");
    const r = await d.desk.dismiss(d.gatewayId, key, { revision: e.card!.revision, confirmed: true });
    assert.deepEqual(r, { outcome: "cleared" });
    assert.equal((await agent.get(key)).card, null);
  });

  test("a note-only card is cleared only after confirmation", async () => {
    const key = await agent.createSession();
    await agent.put(key, { markdown: "Only a note" });
    const e = await d.waitForCard(key, (x) => x.card !== null);
    assert.equal((await d.desk.dismiss(d.gatewayId, key, { revision: e.card!.revision })).outcome, "confirm");
    assert.equal((await d.desk.dismiss(d.gatewayId, key, { revision: e.card!.revision, confirmed: true })).outcome, "cleared");
  });

  test("when the agent wrote a newer revision meanwhile, the newer card stays and is shown", async () => {
    const key = await agent.createSession();
    await agent.put(key, { plan: plan("in_progress", "pending") });
    const seen = await d.waitForCard(key, (x) => x.card?.revision === 1);
    // The agent writes revision 2; the person's click still refers to revision 1.
    await agent.put(key, { plan: plan("completed", "in_progress") });
    const r = await d.desk.dismiss(d.gatewayId, key, { revision: seen.card!.revision, confirmed: true });
    assert.equal(r.outcome, "newer");
    assert.equal(r.outcome === "newer" && r.card.revision, 2);
    assert.equal((await agent.get(key)).card?.revision, 2, "the newer card was not cleared");
    const shown = await d.waitForCard(key, (x) => x.card?.revision === 2);
    assert.equal(shown.derived?.completed, 1);
  });

  test("a completed card that became unfinished before the conditional clear is kept", async () => {
    const key = await agent.createSession();
    await agent.put(key, { plan: plan("completed", "completed") });
    const seen = await d.waitForCard(key, (x) => x.derived?.state === "complete");
    await agent.put(key, { plan: plan("completed", "completed", "in_progress") });
    const r = await d.desk.dismiss(d.gatewayId, key, { revision: seen.card!.revision });
    assert.equal(r.outcome, "newer");
    assert.equal((await agent.get(key)).card?.revision, 2);
  });
});

describe("refresh without a model (A2)", () => {
  test("accepted, then no newer card: times out, and Retry reuses the same key", async () => {
    const timeoutDesk = await startDesk(gw, { refreshTimeoutMs: 1500 });
    try {
      await timeoutDesk.waitForState("connected", 30_000);
      const key = await agent.createSession();
      await agent.put(key, { plan: plan("in_progress", "pending") });
      const e = await timeoutDesk.waitForCard(key, (x) => x.card !== null);
      const pending = await timeoutDesk.desk.refresh(timeoutDesk.gatewayId, key);
      assert.equal(pending?.status, "pending");
      assert.equal(pending?.status === "pending" && pending.baseline, e.card!.revision);
      const firstKey = pending!.key;
      const again = await timeoutDesk.desk.refresh(timeoutDesk.gatewayId, key);
      assert.equal(again?.key, firstKey, "a click while pending is the same request");
      // While pending the previous card and timestamp stay.
      assert.equal(timeoutDesk.entry(key)?.card?.updatedAt, e.card!.updatedAt);
      const timedOut = await timeoutDesk.waitForCard(key, (x) => x.refresh?.status === "timed_out", 10_000);
      assert.equal(timedOut.refresh?.key, firstKey);
      assert.equal(timedOut.card?.revision, e.card!.revision, "the timeout keeps the card");
      const retried = await timeoutDesk.desk.refresh(timeoutDesk.gatewayId, key, { retry: true });
      assert.equal(retried?.key, firstKey, "Retry reuses the idempotency key");
    } finally {
      timeoutDesk.stop();
    }
  });

  test("refresh is not offered for a session without a card", async () => {
    const key = await agent.createSession();
    await agent.put(key, { markdown: "x" });
    await d.waitForCard(key, (x) => x.card !== null);
    await agent.put(key, {});
    await d.waitForCard(key, (x) => x.card === null);
    assert.equal(await d.desk.refresh(d.gatewayId, key), null);
  });
});
