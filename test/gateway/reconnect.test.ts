// Dead Gateways and broken links (G2, G3, C4): offline marking, reconnect, re-read,
// wrong credentials without a reconnect storm, and growing backoff with nothing listening.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { freePort, type TestGateway } from "../harness/gateway.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import type { ConnectionState, DeskChange } from "../../common/model.ts";
import { until } from "../harness/until.ts";
import { closedAfterPause, countedTimers, observedClients, plan, startDesk } from "./support.ts";
import { startTcpRelay } from "./tcp-relay.ts";

const rig = new GatewayRig();
let gw: TestGateway;
let agent: BareClient;

before(async () => ({ gw, client: agent } = await rig.start()));

after(() => rig.stop());

const offlineStates = (changes: DeskChange[], since = 0) =>
  changes.slice(since).flatMap((c) => (c.type === "connection" && c.connection.state === "offline" ? [c.connection] : []));

describe("link cut while the Gateway stays up", () => {
  test("cards go offline with their confirmed time, and changes made meanwhile are read on reconnect", async () => {
    const relay = await startTcpRelay(gw.port);
    const d = await startDesk({ url: relay.url, token: gw.token });
    try {
      await d.waitForState("connected", 30_000);
      const [kept, cleared] = await Promise.all([agent.createSession(), agent.createSession()]);
      await agent.put(kept, { plan: plan("in_progress", "pending") });
      await agent.put(cleared, { markdown: "Will be cleared while away" });
      const before = await d.waitForCard(kept, (x) => x.card?.revision === 1);
      await d.waitForCard(cleared, (x) => x.card !== null);

      const since = d.changes.length;
      relay.cut();
      const off = await d.waitForState("offline", 10_000, since);
      assert.ok(off.state === "offline" && off.nextRetryAt > Date.now() - 1000);
      assert.match(off.advice, /Retrying in \d+ s/);
      const snap = d.desk.snapshot().gateways[0]!;
      assert.ok(snap.cards.length >= 2);
      for (const e of snap.cards) assert.equal(e.freshness, "offline", "no card is shown live while offline");
      assert.equal(d.entry(kept)?.confirmedAt, before.confirmedAt, "offline cards keep when they were last confirmed");

      // The agent keeps working while the app is cut off.
      await agent.put(kept, { plan: plan("completed", "in_progress") });
      await agent.put(cleared, {});
      // A retry refused after the writes were saved: the desk has had its chance to see them.
      await d.waitForState("offline", 15_000, d.changes.length);
      assert.equal(d.entry(kept)?.card?.revision, 1, "nothing changes while offline");
      const seenOffline = d.changes.slice(since).flatMap((c) => (c.type === "card" && c.entry.card ? [c.entry] : []));
      assert.ok(
        seenOffline.every((e) => e.freshness !== "live" && e.card!.revision === 1),
        "no card shown live or newer while cut off",
      );

      const back = d.changes.length;
      relay.resume();
      await d.waitForState("connected", 15_000, back);
      const now = await d.waitForCard(kept, (x) => x.card?.revision === 2 && x.freshness === "live");
      assert.equal(now.derived?.completed, 1);
      assert.ok(now.confirmedAt! > before.confirmedAt!);
      await d.waitForCard(cleared, (x) => x.card === null);
    } finally {
      d.stop();
      await relay.close();
    }
  });

  test("wake() reconnects at once and re-reads every card", async () => {
    const d = await startDesk(gw);
    try {
      await d.waitForState("connected", 30_000);
      const key = await agent.createSession();
      await agent.put(key, { markdown: "Before sleep" });
      const first = await d.waitForCard(key, (x) => x.card !== null);
      const attempts = d.desk.stats(d.gatewayId).attempts;
      const since = d.changes.length;
      d.desk.wake();
      await d.waitForState("connected", 15_000, since);
      const reread = await d.waitForCard(key, (x) => x.confirmedAt! > first.confirmedAt!);
      assert.equal(reread.card?.markdown, "Before sleep");
      assert.equal(d.desk.stats(d.gatewayId).attempts, attempts + 1);
    } finally {
      d.stop();
    }
  });
});

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  describe(`Gateway stopped with ${signal}, then restarted`, () => {
    test("offline while down (never live), reconnect and re-read after restart", async () => {
      const d = await startDesk(gw);
      try {
        await d.waitForState("connected", 30_000);
        const key = await agent.createSession();
        await agent.put(key, { plan: plan("completed", "in_progress") });
        const seen = await d.waitForCard(key, (x) => x.card !== null);

        const since = d.changes.length;
        await gw.stop(signal);
        const off = (await d.waitForState("offline", 15_000, since)) as Extract<ConnectionState, { state: "offline" }>;
        assert.ok(off.lastConnectedAt !== null);
        for (const e of d.desk.snapshot().gateways[0]!.cards) assert.equal(e.freshness, "offline");
        assert.equal(d.entry(key)?.card?.revision, seen.card!.revision, "the last card stays visible");

        await gw.restart();
        const back = d.changes.length;
        await d.waitForState("connected", 45_000, since);
        const reread = await d.waitForCard(key, (x) => x.freshness === "live" && x.confirmedAt! > seen.confirmedAt!, 20_000);
        assert.equal(reread.card?.revision, seen.card!.revision);
        void back;

        // And it is live again: a new write arrives.
        await agent.waitForHello(agent.helloCount() + 1, 45_000).catch(() => undefined);
        await agent.put(key, { plan: plan("completed", "completed") });
        await d.waitForCard(key, (x) => x.derived?.state === "complete", 20_000);
      } finally {
        d.stop();
      }
    });
  });
}

describe("wrong credentials", () => {
  test("a wrong token gives auth_failed with advice, and no reconnect storm", async () => {
    const timers = countedTimers();
    const { createClient, handled } = observedClients();
    const d = await startDesk({ url: gw.url, token: "f".repeat(64) }, { schedule: timers.schedule, createClient });
    try {
      const state = await d.waitForState("auth_failed", 30_000);
      assert.ok(state.state === "auth_failed");
      assert.equal(state.setting, "token");
      assert.match(state.code, /^AUTH_/);
      assert.match(state.advice, /token/i);
      // Once the close after the refusal is handled and no retry is due, none can come.
      await until("the refused socket's close to be handled", () => closedAfterPause(handled));
      assert.equal(timers.pending(), 0, "no retries after an auth failure");
      const attempts = d.desk.stats(d.gatewayId).attempts;
      assert.ok(attempts <= 2, `${attempts} connection attempts`);
    } finally {
      d.stop();
    }
  });
});

describe("no Gateway listening", () => {
  test("offline with a growing backoff, bounded attempts", async () => {
    const port = await freePort();
    const d = await startDesk({ url: `ws://127.0.0.1:${port}`, token: "x".repeat(64) });
    try {
      const offs = await until("four refused attempts", () => {
        const o = offlineStates(d.changes);
        return o.length >= 4 && o;
      });
      const delays = offs.map((o) => (o.state === "offline" ? o.retryInMs : 0));
      for (let i = 1; i < Math.min(delays.length, 4); i += 1) {
        assert.ok(delays[i]! > delays[i - 1]!, `backoff grows: ${delays.join(", ")}`);
      }
      assert.ok(offs.every((o) => o.state === "offline" && o.reason === "connection refused"));
      // One attempt per retry (the next may be under way): no storm.
      assert.ok(d.desk.stats(d.gatewayId).attempts - offs.length <= 1, "one attempt per backoff");
    } finally {
      d.stop();
    }
  });
});
