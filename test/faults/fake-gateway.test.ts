// Faults only a FAKE Gateway can produce (see fake-gateway.ts): each must give a clear state
// and lose nothing — never a crash, never a stuck "connecting".
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { card, helloOk, startFakeGateway, type FakeGateway } from "./fake-gateway.ts";
import { closedAfterPause, countedTimers, observedClients, startDesk, type DeskHarness } from "../gateway/support.ts";
import { until } from "../harness/until.ts";

const KEY = "agent:main:dashboard:11111111-2222-4333-8444-555555555555";
const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * A desk whose retry timers are counted and whose client callbacks are observed: once the
 * last close is handled and no timer is due, no retry can come.
 */
async function watchedDesk(url: string): Promise<{ d: DeskHarness; timers: ReturnType<typeof countedTimers>; handled: string[] }> {
  const timers = countedTimers();
  const { createClient, handled } = observedClients();
  const d = await startDesk({ url, token: "t".repeat(64) }, { schedule: timers.schedule, createClient });
  cleanups.push(() => d.stop());
  return { d, timers, handled };
}

async function setup(handle?: Parameters<typeof startFakeGateway>[0]): Promise<{ fake: FakeGateway; d: DeskHarness }> {
  const fake = await startFakeGateway(handle);
  const d = await startDesk({ url: fake.url, token: "t".repeat(64) });
  cleanups.push(
    () => fake.close(),
    () => d.stop(),
  );
  return { fake, d };
}

const gets = (fake: FakeGateway) => fake.requests.filter((r) => r.method === "progressCard.get");

describe("malformed frames", () => {
  test("garbage frames are ignored; the connection and the cards carry on", async () => {
    let revision = 1;
    const { fake, d } = await setup({
      handle: (req) => (req.method === "progressCard.get" ? { ok: true, payload: { card: card(KEY, revision) } } : undefined),
    });
    await d.waitForState("connected", 10_000);
    const s = fake.socket()!;
    const since = d.changes.length;
    s.raw("this is not json");
    s.raw(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
    s.raw("[1,2,3]");
    s.raw('{"type":"event"}');
    s.raw('{"type":"res","id":"nobody-asked","ok":true,"payload":{}}');
    s.raw('{"type":"event","event":"progressCard.changed","payload":"not an object"}');
    s.raw('{"type":"event","event":"progressCard.changed","payload":{"sessionKey":42}}');
    s.raw('{"type":"event","event":"sessions.changed","payload":{"sessionKey":"' + KEY + '","session":{"key":7}}}');
    s.raw(JSON.stringify({ type: "event", event: "x".repeat(100_000), payload: {} }));
    // A good event after the garbage on the same socket: once it is handled, so was the garbage.
    s.event("progressCard.changed", { sessionKey: KEY, revision: 1 });
    const e = await d.waitForCard(KEY, (x) => x.card?.revision === 1);
    assert.equal(e.card?.markdown, "Revision 1");
    assert.deepEqual(
      d.changes.slice(since).filter((c) => c.type === "connection"),
      [],
      "the connection never changed state",
    );
    assert.equal(d.desk.snapshot().gateways[0]!.connection.state, "connected");
    revision = 2;
    s.event("progressCard.changed", { sessionKey: KEY, revision: 2 });
    await d.waitForCard(KEY, (x) => x.card?.revision === 2);
  });

  test("a malformed or oversized card from the wire is an error state for that card, keeping the last good one", async () => {
    let reply: unknown = card(KEY, 1);
    const { fake, d } = await setup({
      handle: (req) => (req.method === "progressCard.get" ? { ok: true, payload: { card: reply } } : undefined),
    });
    await d.waitForState("connected", 10_000);
    const s = fake.socket()!;
    s.event("progressCard.changed", { sessionKey: KEY, revision: 1 });
    await d.waitForCard(KEY, (x) => x.card?.revision === 1);
    const bad: [unknown, RegExp][] = [
      [card(KEY, 2, { markdown: "x".repeat(8193) }), /8193 bytes, over the 8192-byte limit/],
      [card(KEY, 3, { steps: "nope" }), /steps is not a list/],
      [
        card(KEY, 4, {
          steps: [
            { step: "a", status: "in_progress" },
            { step: "b", status: "in_progress" },
          ],
        }),
        /more than one in_progress/,
      ],
      [card(KEY, 5, { steps: [{ step: "a", status: "sleeping" }] }), /unknown status/],
      [card(KEY, "6" as unknown as number), /revision/],
      [card(KEY, 7, { steps: Array.from({ length: 51 }, () => ({ step: "s", status: "pending" })) }), /51 steps/],
      ["a string", /not an object/],
    ];
    let rev = 2;
    for (const [value, message] of bad) {
      reply = value;
      s.event("progressCard.changed", { sessionKey: KEY, revision: rev++ });
      const e = await d.waitForCard(KEY, (x) => x.error?.code === "MALFORMED_CARD" && message.test(x.error.message));
      assert.equal(e.card?.revision, 1, "the last good card is kept");
      assert.equal(e.card?.markdown, "Revision 1");
      reply = card(KEY, 1);
      s.event("progressCard.changed", { sessionKey: KEY, revision: null });
      await d.waitForCard(KEY, (x) => x.error === null);
    }
    assert.equal(d.desk.snapshot().gateways[0]!.connection.state, "connected");
  });
});

describe("sequence gap", () => {
  test("dropped events make the store list and read everything again", async () => {
    const { fake, d } = await setup({
      handle: (req) => (req.method === "progressCard.get" ? { ok: true, payload: { card: card(KEY, 1) } } : undefined),
    });
    await d.waitForState("connected", 10_000);
    const s = fake.socket()!;
    s.event("progressCard.changed", { sessionKey: KEY, revision: 1 }, 1);
    await d.waitForCard(KEY, (x) => x.card?.revision === 1);
    const readsBefore = gets(fake).length;
    const rosterLists = () => fake.requests.filter((r) => r.method === "sessions.list" && r.params.hasBoard !== true).length;
    const listsBefore = rosterLists();
    s.event("tick", { ts: Date.now() }, 5); // seq 2–4 never arrive
    await until("the card to be read again", () => gets(fake).length > readsBefore);
    assert.equal(rosterLists(), listsBefore + 1, "the roster was listed again");
    assert.ok(
      fake.requests.some((r) => r.method === "sessions.list" && r.params.hasBoard === true),
      "and the boards",
    );
  });
});

describe("participation (P4)", () => {
  test("a denied session hides its card until a later read succeeds", async () => {
    let deny = false;
    const { fake, d } = await setup({
      handle: (req) => {
        if (req.method !== "progressCard.get") return undefined;
        if (deny)
          return {
            ok: false,
            error: { code: "INVALID_REQUEST", message: "participation required", details: { code: "SESSION_PARTICIPATION_REQUIRED" } },
          };
        return { ok: true, payload: { card: card(KEY, 2) } };
      },
    });
    await d.waitForState("connected", 10_000);
    const s = fake.socket()!;
    s.event("progressCard.changed", { sessionKey: KEY, revision: 2 });
    await d.waitForCard(KEY, (x) => x.card?.revision === 2 && !x.hidden);
    deny = true;
    s.event("progressCard.changed", { sessionKey: KEY, revision: 3 });
    const hidden = await d.waitForCard(KEY, (x) => x.hidden);
    assert.equal(hidden.error, null, "no error is shown for a denied session");
    deny = false;
    s.event("sessions.changed", { sessionKey: KEY, reason: "update", ts: Date.now() });
    await d.waitForCard(KEY, (x) => !x.hidden && x.card?.revision === 2);
  });

  test("a transient read failure keeps the last card, marks it stale, and retries", async () => {
    let fail = false;
    const { fake, d } = await setup({
      handle: (req) => {
        if (req.method !== "progressCard.get") return undefined;
        return fail
          ? { ok: false, error: { code: "UNAVAILABLE", message: "database is busy", retryable: true } }
          : { ok: true, payload: { card: card(KEY, 4) } };
      },
    });
    await d.waitForState("connected", 10_000);
    fake.socket()!.event("progressCard.changed", { sessionKey: KEY, revision: 4 });
    await d.waitForCard(KEY, (x) => x.card?.revision === 4);
    fail = true;
    fake.socket()!.event("progressCard.changed", { sessionKey: KEY, revision: 5 });
    const stale = await d.waitForCard(KEY, (x) => x.freshness === "stale");
    assert.equal(stale.card?.revision, 4);
    assert.equal(stale.error?.code, "UNAVAILABLE");
    fail = false;
    await d.waitForCard(KEY, (x) => x.freshness === "live" && x.error === null, 10_000);
  });
});

describe("connection failures a local Gateway never sends", () => {
  test("pairing required: the request id and the exact approve command, and no retries", async () => {
    const fake = await startFakeGateway({
      onConnect: () => ({
        ok: false,
        error: {
          code: "NOT_PAIRED",
          message: "pairing required",
          details: { code: "PAIRING_REQUIRED", reason: "not-paired", requestId: "req-7f3a", deviceId: "d" },
        },
      }),
    });
    cleanups.push(() => fake.close());
    const { d, timers, handled } = await watchedDesk(fake.url);
    const st = await d.waitForState("pairing_required", 10_000);
    assert.ok(st.state === "pairing_required");
    assert.equal(st.requestId, "req-7f3a");
    assert.equal(st.command, "openclaw devices approve req-7f3a");
    assert.match(st.advice, /openclaw devices approve req-7f3a/);
    await until("the refused socket's close to be handled", () => closedAfterPause(handled));
    assert.equal(timers.pending(), 0, "pairing stops retrying until something changes");
    assert.equal(fake.connections, 1);
    // Approved on the host: the person retries.
    d.desk.retry(d.gatewayId);
    await until("the person's retry to connect", () => fake.connections === 2);
  });

  test("watch exits 4 on pairing_required and prints the approve command", async () => {
    const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "progress-desk.js");
    if (!existsSync(bin)) throw new Error("run `npm run build` first (npm test does)");
    const fake = await startFakeGateway({
      onConnect: () => ({
        ok: false,
        error: { code: "NOT_PAIRED", message: "pairing required", details: { code: "PAIRING_REQUIRED", requestId: "req-99" } },
      }),
    });
    cleanups.push(() => fake.close());
    const home = mkdtempSync(join(tmpdir(), "pd-fault-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    // Asynchronous spawn: the fake Gateway lives in this process's event loop.
    const child = spawn(process.execPath, [bin, "watch", "--json", "--url", fake.url, "--token", "t".repeat(64)], {
      env: { PATH: process.env.PATH, HOME: home, PROGRESS_DESK_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const status = await new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    clearTimeout(timer);
    const r = { status, stderr };
    assert.equal(r.status, 4);
    assert.match(r.stderr, /openclaw devices approve req-99/);
  });

  for (const [name, hello, reason] of [
    ["protocol 3", helloOk({ protocol: 3 }), /protocol 3/],
    ["no progress cards", helloOk({ features: { methods: ["sessions.subscribe"], events: [], capabilities: [] } }), /progressCard\.get/],
  ] as const) {
    test(`a Gateway with ${name} is "update required", with no retries`, async () => {
      const fake = await startFakeGateway({ onConnect: () => ({ ok: true, payload: hello }) });
      cleanups.push(() => fake.close());
      const { d, timers } = await watchedDesk(fake.url);
      const st = await d.waitForState("update_required", 10_000);
      assert.ok(st.state === "update_required");
      assert.match(st.reason, reason);
      // The hello is judged and the client dropped in one go, before the state is shown.
      assert.equal(timers.pending(), 0, "no retry is due");
      assert.equal(fake.connections, 1);
    });
  }

  test("an announced restart shows as restarting and reconnects", async () => {
    const { fake, d } = await setup();
    await d.waitForState("connected", 10_000);
    const since = d.changes.length;
    fake.socket()!.event("shutdown", { reason: "update", restartExpectedMs: 500 });
    fake.socket()!.close(1012, "service restart");
    const off = await d.waitForState("offline", 5000, since);
    assert.ok(off.state === "offline" && off.restarting);
    assert.match(off.advice, /restarting/);
    await d.waitForState("connected", 10_000, since);
  });

  test("a plain ws:// URL to a remote host is refused with advice, not left connecting", async () => {
    const d = await startDesk({ url: "ws://192.0.2.10:18789", token: "t".repeat(64) });
    cleanups.push(() => d.stop());
    const st = await d.waitForState("auth_failed", 5000);
    assert.ok(st.state === "auth_failed");
    assert.equal(st.setting, "url");
    assert.match(st.advice, /wss:\/\//);
  });
});

describe("agent scope (G4)", () => {
  test("a bare key is read with its agentId where the capability exists, and marked update-required where not", async () => {
    const { fake, d } = await setup({
      handle: (req) =>
        req.method === "progressCard.get" && req.params.sessionKey === "global"
          ? { ok: true, payload: { card: card("agent:research:global", 1) } }
          : undefined,
    });
    await d.waitForState("connected", 10_000);
    d.desk.track(d.gatewayId, "global", "research");
    await until("the bare key's read", () => gets(fake).some((r) => r.params.sessionKey === "global"));
    const read = gets(fake).find((r) => r.params.sessionKey === "global");
    assert.deepEqual(read?.params, { sessionKey: "global", agentId: "research" });
    // Events name the key agent-qualified; the hint reaches the bare-key card.
    fake.socket()!.event("progressCard.changed", { sessionKey: "agent:research:global", revision: 2 });
    await until("the hinted re-read", () => gets(fake).filter((r) => r.params.sessionKey === "global").length === 2);
    // An agent: key never carries agentId.
    fake.socket()!.event("progressCard.changed", { sessionKey: KEY, revision: 1 });
    await until("the agent key's read", () => gets(fake).some((r) => r.params.sessionKey === KEY));
    assert.deepEqual(gets(fake).find((r) => r.params.sessionKey === KEY)?.params, { sessionKey: KEY });

    const old = await startFakeGateway({
      onConnect: () => ({
        ok: true,
        payload: helloOk({ features: { methods: ["progressCard.get", "sessions.subscribe"], events: [], capabilities: [] } }),
      }),
    });
    cleanups.push(() => old.close());
    const d2 = await startDesk({ url: old.url, token: "t".repeat(64) });
    cleanups.push(() => d2.stop());
    await d2.waitForState("connected", 10_000);
    d2.desk.track(d2.gatewayId, "global", "research");
    const e = await d2.waitForCard("global", (x) => x.updateRequired);
    assert.equal(e.card, null);
    assert.ok(!gets(old).some((r) => r.params.sessionKey === "global"), "no read the Gateway would reject");
  });
});
