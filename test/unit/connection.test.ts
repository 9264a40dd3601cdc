// G2/G3: the connection lifecycle around the official client, with a FAKE client factory
// (`createClient`). It is a fake on purpose: the real Gateway cannot be made to send
// arbitrary close codes, auth failures on demand or a malformed hello.
import { test, describe, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { GatewayClientRequestError, type GatewayClientOptions } from "@openclaw/gateway-client";
import { GatewayConnection, type ClientLike, type ConnectionOptions } from "../../main/core/connection.ts";
import type { Hello } from "../../main/core/handshake.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { createDeviceIdentity } from "../../main/core/identity.ts";
import type { BackoffPolicy } from "../../main/core/backoff.ts";
import type { ConnectionState } from "../../common/model.ts";
import { until as waitUntil } from "../harness/until.ts";
import { settle } from "./fake-transport.ts";
import { ManualTimers } from "./manual-timers.ts";
import { FakeClock } from "./fake-clock.ts";
import type { ProbeConnect } from "../../main/core/listener-probe.ts";

/** A hang (an awaited reply that never comes) fails fast instead of stalling the run. */
const T = { timeout: 5_000 };

const URL_ = "ws://127.0.0.1:18789";
const REMOTE = "wss://gateway.example.test:18789";
const IDENTITY = createDeviceIdentity();
const TINY: BackoffPolicy = { initialMs: 10, maxMs: 80, multiplier: 2, jitter: 0.2 };

const HELLO: Hello = {
  protocol: 4,
  server: { version: "2026.9.6" },
  features: {
    methods: ["progressCard.get", "progressCard.put", "progressCard.refresh", "sessions.subscribe", "sessions.list"],
    events: ["progressCard.changed", "sessions.changed"],
    capabilities: ["progress-card-agent-scope-v1"],
  },
  auth: { role: "operator", scopes: ["operator.read", "operator.write"] },
  policy: { tickIntervalMs: 30000 },
};

/** One fake GatewayClient: the test (or a script) drives its callbacks like the real one would. */
type FakeClient = ClientLike & {
  opts: GatewayClientOptions;
  index: number;
  started: boolean;
  stopped: boolean;
  requests: Array<{ method: string; params: unknown }>;
  hello(h?: Hello): void;
  connectError(err: Error): void;
  paused(detailCode: string | null, code?: number): void;
  close(code: number, reason?: string): void;
  event(event: string, payload?: unknown): void;
};

type Script = (client: FakeClient) => void;

/** A fake client factory; `script` runs on a later tick after start(), like a socket would. */
function fakeClients(script: Script = () => {}) {
  const clients: FakeClient[] = [];
  const createClient = (opts: GatewayClientOptions): ClientLike => {
    const c: FakeClient = {
      opts,
      index: clients.length,
      started: false,
      stopped: false,
      requests: [],
      start() {
        c.started = true;
        setImmediate(() => {
          if (!c.stopped) script(c);
        });
      },
      stop() {
        c.stopped = true;
      },
      request<T>(method: string, params?: unknown): Promise<T> {
        c.requests.push({ method, params });
        return Promise.resolve({ ok: method } as T);
      },
      hello: (h = HELLO) => opts.onHelloOk?.(h as never),
      connectError: (err) => opts.onConnectError?.(err),
      paused: (detailCode, code = 1008) => opts.onReconnectPaused?.({ code, reason: "paused", detailCode }),
      close: (code, reason = "") => opts.onClose?.(code, reason),
      event: (event, payload) => opts.onEvent?.({ type: "event", event, payload } as never),
    };
    clients.push(c);
    return c;
  };
  return { clients, createClient, last: () => clients.at(-1)! };
}

type Rig = {
  conn: GatewayConnection;
  states: ConnectionState[];
  ready: Hello[];
  events: Array<{ event: string; payload?: unknown }>;
  gaps: number;
  vault: CredentialVault;
  fake: ReturnType<typeof fakeClients>;
  /** The retry timers: none fires until the test fires it. */
  timers: ManualTimers;
};

async function rig(tc: TestContext, script: Script, extra: Partial<ConnectionOptions> = {}): Promise<Rig> {
  const fake = fakeClients(script);
  const vault = await CredentialVault.open(memoryStorage());
  const timers = new ManualTimers();
  const r: Rig = { conn: undefined as never, states: [], ready: [], events: [], gaps: 0, vault, fake, timers };
  r.conn = new GatewayConnection({
    url: URL_,
    token: "shared-token",
    vault,
    identity: IDENTITY,
    clientName: "openclaw-linux",
    platform: "linux",
    clientVersion: "0.0.0-test",
    backoff: TINY,
    random: () => 0.5, // centred jitter: exact delays
    now: () => 1_000_000,
    createClient: fake.createClient,
    schedule: timers.schedule,
    onState: (s) => r.states.push(s),
    onReady: (h) => r.ready.push(h),
    onEvent: (e) => r.events.push(e),
    onGap: () => r.gaps++,
    ...extra,
  });
  tc.after(() => r.conn.stop());
  return r;
}

/** The fake clients act on later ticks: poll for what they lead to. */
const until = (cond: () => boolean): Promise<true> => waitUntil("the connection to get there", cond, 4_000, 2);

/** Offline states so far, in order. */
const offlineStates = (r: Rig) => r.states.filter((s): s is Extract<ConnectionState, { state: "offline" }> => s.state === "offline");

/** Goes through `count` failures, checking that each one schedules exactly the retry it shows, then firing it. */
async function throughFailures(r: Rig, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) {
    await until(() => offlineStates(r).length === n);
    assert.deepEqual(r.timers.pending(), [offlineStates(r).at(-1)!.retryInMs], `failure ${n}: one retry, after the delay shown`);
    if (n < count) r.timers.fireNext();
  }
}

/** The current state, un-narrowed (the state changes behind TypeScript's back). */
function stateOf(conn: GatewayConnection): ConnectionState {
  return conn.state;
}

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:18789"), { code: "ECONNREFUSED" });

describe("GatewayConnection: connecting", () => {
  test("hello with protocol 4 and the methods → connected, onReady once; client options as the protocol needs", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello());
    assert.equal(r.conn.state.state, "connecting");
    r.conn.start();
    await until(() => r.ready.length === 1);
    const s = stateOf(r.conn);
    assert.ok(s.state === "connected");
    assert.equal(s.serverVersion, "2026.9.6");
    assert.equal(s.limited, false);
    assert.deepEqual(s.scopes, ["operator.read", "operator.write"]);
    assert.equal(s.since, 1_000_000);
    assert.deepEqual(
      r.states.map((x) => x.state),
      ["connecting", "connected"],
    );
    assert.equal(r.ready[0], HELLO);
    assert.equal(r.conn.attempts, 1);
    // §1.1 options
    const o = r.fake.last().opts;
    assert.equal(o.url, URL_);
    assert.equal(o.clientName, "openclaw-linux");
    assert.equal(o.mode, "ui");
    assert.equal(o.role, "operator");
    assert.deepEqual(o.scopes, ["operator.read", "operator.write"]);
    assert.equal(o.minProtocol, 4);
    assert.equal(o.maxProtocol, 4);
    assert.equal(o.token, "shared-token");
    assert.equal(o.origin, undefined, "no Origin header from the main process");
    assert.equal(o.deviceIdentity?.deviceId, IDENTITY.deviceId);
    // features from the hello
    assert.equal(r.conn.hasMethod("progressCard.refresh"), true);
    assert.equal(r.conn.hasMethod("nope"), false);
    assert.equal(r.conn.hasCapability("progress-card-agent-scope-v1"), true);
    assert.equal(r.conn.hello, HELLO);
    // requests go through the current client
    assert.deepEqual(await r.conn.request("progressCard.get", { sessionKey: "k" }), { ok: "progressCard.get" });
    assert.deepEqual(r.fake.last().requests, [{ method: "progressCard.get", params: { sessionKey: "k" } }]);
  });

  test("device tokens are kept in the vault through hostDeps, keyed by the Gateway URL", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello());
    r.conn.start();
    await until(() => r.ready.length === 1);
    const deps = r.fake.last().opts.hostDeps!;
    assert.equal(deps.loadDeviceAuthToken!({ deviceId: IDENTITY.deviceId, role: "operator" }), null);
    deps.storeDeviceAuthToken!({ deviceId: IDENTITY.deviceId, role: "operator", token: "dev-tok", scopes: ["operator.read"] });
    assert.deepEqual(deps.loadDeviceAuthToken!({ deviceId: IDENTITY.deviceId, role: "operator" }), {
      token: "dev-tok",
      scopes: ["operator.read"],
    });
    assert.ok(r.vault.get(`device-token|${URL_}|${IDENTITY.deviceId}|operator`));
    deps.clearDeviceAuthToken!({ deviceId: IDENTITY.deviceId, role: "operator" });
    assert.equal(deps.loadDeviceAuthToken!({ deviceId: IDENTITY.deviceId, role: "operator" }), null);
  });

  test("missing read/write scopes → connected but limited", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello({ ...HELLO, auth: { scopes: [] } }));
    r.conn.start();
    await until(() => r.ready.length === 1);
    const s = r.conn.state;
    assert.ok(s.state === "connected");
    assert.equal(s.limited, true);
    assert.match(s.advice, /Limited access/);
  });

  test("a hello lacking progressCard.get → update_required, and no retry", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello({ ...HELLO, features: { methods: ["sessions.subscribe"] } }));
    r.conn.start();
    await until(() => r.conn.state.state === "update_required");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    assert.equal(r.conn.attempts, 1);
    assert.equal(r.ready.length, 0);
    assert.equal(r.fake.last().stopped, true);
    assert.equal(r.conn.hello, null);
    await assert.rejects(r.conn.request("progressCard.get", {}), (e: { code?: string }) => e.code === "NOT_CONNECTED");
  });

  test("a hello with another protocol → update_required, and no retry", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello({ ...HELLO, protocol: 3 }));
    r.conn.start();
    await until(() => r.conn.state.state === "update_required");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    assert.equal(r.conn.attempts, 1);
  });

  test("events and gaps of the current client are forwarded", T, async (tc) => {
    const r = await rig(tc, (c) => {
      c.hello();
      c.event("progressCard.changed", { sessionKey: "k", revision: 2 });
      c.opts.onGap?.({ expected: 3, received: 5 });
    });
    r.conn.start();
    await until(() => r.gaps === 1);
    assert.deepEqual(
      r.events.map((e) => e.event),
      ["progressCard.changed"],
    );
  });
});

describe("GatewayConnection: reconnecting (G3)", () => {
  test("a close after connect → offline with nextRetryAt; retryInMs grows and is capped over repeated failures", T, async (tc) => {
    const r = await rig(
      tc,
      (c) => {
        if (c.index === 0) {
          c.hello();
          setImmediate(() => c.close(1006, ""));
        } else {
          c.connectError(refused());
          c.close(1006, "");
        }
      },
      { url: REMOTE },
    ); // backoff alone: a loopback URL is also probed (below)
    r.conn.start();
    await throughFailures(r, 6);
    r.conn.stop();
    const offline = offlineStates(r);
    assert.equal(offline[0]!.reason, "connection lost");
    assert.equal(offline[0]!.lastConnectedAt, 1_000_000);
    assert.equal(offline[1]!.reason, "connection refused");
    assert.deepEqual(
      offline.slice(0, 6).map((s) => s.retryInMs),
      [10, 20, 40, 80, 80, 80],
    );
    assert.deepEqual(
      offline.slice(0, 6).map((s) => s.attempt),
      [1, 2, 3, 4, 5, 6],
    );
    for (const s of offline) {
      assert.equal(s.nextRetryAt, 1_000_000 + s.retryInMs);
      assert.equal(s.restarting, false);
      assert.match(s.advice, /Retrying in 1 s/);
    }
    // each failure is one attempt: no storms
    assert.equal(r.conn.attempts, offline.length);
  });

  test("jitter comes from the injected random", T, async (tc) => {
    const r = await rig(tc, (c) => c.close(1006), { random: () => 0 });
    r.conn.start();
    await until(() => r.states.some((s) => s.state === "offline"));
    const s = r.states.find((x) => x.state === "offline");
    assert.ok(s && s.state === "offline");
    assert.equal(s.retryInMs, 8, "10 ms − 20 %");
  });

  test("retryAfterMs from the Gateway wins (clamped 100–2000 ms)", T, async (tc) => {
    const r = await rig(tc, (c) => {
      c.connectError(
        new GatewayClientRequestError({
          code: "UNAVAILABLE",
          message: "gateway starting; retry shortly",
          retryable: true,
          retryAfterMs: 500,
          details: { reason: "startup-sidecars" },
        }),
      );
      c.close(1013, "starting");
    });
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    const s = r.conn.state;
    assert.ok(s.state === "offline");
    assert.equal(s.retryInMs, 500);
    r.conn.stop();
    const r2 = await rig(tc, (c) => {
      c.connectError(new GatewayClientRequestError({ code: "UNAVAILABLE", message: "busy", retryAfterMs: 5 }));
      c.close(1013, "");
    });
    r2.conn.start();
    await until(() => r2.conn.state.state === "offline");
    assert.equal((r2.conn.state as { retryInMs: number }).retryInMs, 100);
  });

  test("a shutdown with restartExpectedMs then close 1012 → offline, restarting", T, async (tc) => {
    const r = await rig(tc, (c) => {
      if (c.index > 0) return;
      c.hello();
      c.event("shutdown", { reason: "restart", restartExpectedMs: 30 });
      c.close(1012, "service restart");
    });
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    const s = r.conn.state;
    assert.ok(s.state === "offline");
    assert.equal(s.restarting, true);
    assert.equal(s.reason, "Gateway restarting");
    assert.equal(s.retryInMs, 30);
    assert.match(s.advice, /restarting/);
  });

  test("a client that fails synchronously in start() is retried with backoff", T, async (tc) => {
    const fake = fakeClients();
    let made = 0;
    const r = await rig(tc, () => {}, {
      createClient: (opts) => {
        made++;
        const c = fake.createClient(opts);
        return {
          ...c,
          start: () => {
            throw new Error("socket could not be created");
          },
        };
      },
    });
    r.conn.start();
    await throughFailures(r, 3);
    r.conn.stop();
    const offline = offlineStates(r);
    assert.deepEqual(
      offline.slice(0, 3).map((s) => s.retryInMs),
      [10, 20, 40],
    );
    assert.equal(offline[0]!.reason, "socket could not be created");
    assert.equal(made, r.conn.attempts);
  });

  test("wake() reconnects immediately, ignoring the old client", T, async (tc) => {
    const r = await rig(
      tc,
      (c) => {
        if (c.index === 0) c.close(1006);
        else c.hello();
      },
      { backoff: { initialMs: 60_000, maxMs: 60_000, multiplier: 2, jitter: 0 } },
    );
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    assert.equal((r.conn.state as { retryInMs: number }).retryInMs, 60_000);
    const old = r.fake.last();
    r.conn.wake();
    assert.equal(r.conn.attempts, 2, "at once, not after 60 s");
    assert.equal(r.conn.state.state, "connecting");
    await until(() => r.conn.state.state === "connected");
    // a late close from the old client changes nothing
    old.close(1006);
    await settle();
    assert.equal(r.conn.state.state, "connected");
    assert.equal(r.ready.length, 1);
  });

  test("wake() while connected starts over (the socket may be dead)", T, async (tc) => {
    const r = await rig(tc, (c) => c.hello());
    r.conn.start();
    await until(() => r.ready.length === 1);
    const first = r.fake.last();
    r.conn.wake();
    assert.equal(first.stopped, true);
    await until(() => r.ready.length === 2);
    assert.equal(r.conn.attempts, 2);
  });

  test("stop() stops everything: no attempts, no timers left", T, async (tc) => {
    const r = await rig(tc, (c) => c.close(1006), { backoff: { initialMs: 30, maxMs: 30, multiplier: 1, jitter: 0 } });
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    assert.deepEqual(r.timers.pending(), [30], "a retry is pending");
    r.conn.stop();
    assert.deepEqual(r.timers.pending(), [], "the retry is cancelled");
    assert.equal(r.conn.attempts, 1);
    assert.equal(
      r.fake.clients.every((c) => c.stopped),
      true,
    );
    // the same with the real setTimeout (no scheduler injected)
    const timers = () => process.getActiveResourcesInfo().filter((x) => x === "Timeout").length;
    const before = timers();
    const real = await rig(tc, (c) => c.close(1006), {
      schedule: undefined,
      backoff: { initialMs: 60_000, maxMs: 60_000, multiplier: 1, jitter: 0 },
    });
    real.conn.start();
    await until(() => real.conn.state.state === "offline");
    assert.equal(timers(), before + 1, "a retry timer is pending");
    real.conn.stop();
    assert.equal(timers(), before, "the retry timer is gone");
    // stop while connected too
    const r2 = await rig(tc, (c) => c.hello());
    r2.conn.start();
    await until(() => r2.ready.length === 1);
    r2.conn.stop();
    assert.equal(r2.fake.last().stopped, true);
    r2.conn.wake();
    assert.equal(r2.conn.attempts, 1, "wake after stop does nothing");
    assert.equal(timers(), before);
  });
});

describe("GatewayConnection: terminal failures (G2)", () => {
  /** The real client's order: onConnectError → onReconnectPaused → onClose. */
  function failWith(err: Error, detailCode: string | null): Script {
    return (c) => {
      c.connectError(err);
      c.paused(detailCode);
      c.close(1008, "auth failed");
    };
  }

  test("AUTH_TOKEN_MISMATCH (after its one retry) → auth_failed (token), and no further attempts", T, async (tc) => {
    const err = new GatewayClientRequestError({
      code: "INVALID_REQUEST",
      message: "unauthorized",
      details: { code: "AUTH_TOKEN_MISMATCH", canRetryWithDeviceToken: false },
    });
    const r = await rig(tc, failWith(err, "AUTH_TOKEN_MISMATCH"));
    r.conn.start();
    await until(() => r.conn.state.state === "auth_failed");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    const s = r.conn.state;
    assert.ok(s.state === "auth_failed");
    assert.equal(s.code, "AUTH_TOKEN_MISMATCH");
    assert.equal(s.setting, "token");
    assert.equal(r.conn.attempts, 1);
    assert.equal(
      r.states.some((x) => x.state === "offline"),
      false,
      "never shown as a passing disconnect",
    );
    // wake does not retry a terminal failure; retryNow (after the person fixed it) does
    r.conn.wake();
    assert.equal(r.conn.attempts, 1);
    r.conn.retryNow();
    assert.equal(r.conn.attempts, 2);
  });

  test("the pause detail code alone is enough", T, async (tc) => {
    const r = await rig(tc, (c) => {
      c.paused("AUTH_PASSWORD_MISMATCH");
      c.close(1008);
    });
    r.conn.start();
    await until(() => r.conn.state.state === "auth_failed");
    assert.equal((r.conn.state as { setting: string }).setting, "password");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    assert.equal(r.conn.attempts, 1);
  });

  test("PAIRING_REQUIRED with a requestId → pairing_required with the approve command", T, async (tc) => {
    const err = new GatewayClientRequestError({
      code: "NOT_PAIRED",
      message: "pairing required",
      details: { code: "PAIRING_REQUIRED", reason: "not-paired", requestId: "req-7", deviceId: IDENTITY.deviceId },
    });
    const r = await rig(tc, failWith(err, "PAIRING_REQUIRED"));
    r.conn.start();
    await until(() => r.conn.state.state === "pairing_required");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    const s = r.conn.state;
    assert.ok(s.state === "pairing_required");
    assert.equal(s.requestId, "req-7");
    assert.equal(s.command, "openclaw devices approve req-7");
    assert.equal(s.deviceId, IDENTITY.deviceId);
    assert.equal(r.conn.attempts, 1);
  });

  test("AUTH_DEVICE_TOKEN_MISMATCH with a shared token: forget the device token and reconnect once, at once", T, async (tc) => {
    const err = new GatewayClientRequestError({
      code: "INVALID_REQUEST",
      message: "device token mismatch",
      details: { code: "AUTH_DEVICE_TOKEN_MISMATCH" },
    });
    const r = await rig(tc, (c) => {
      if (c.index === 0) failWith(err, "AUTH_DEVICE_TOKEN_MISMATCH")(c);
      else c.hello();
    });
    const key = `device-token|${URL_}|${IDENTITY.deviceId}|operator`;
    r.vault.set(key, JSON.stringify({ token: "stale" }));
    r.conn.start();
    await until(() => r.conn.state.state === "connected");
    assert.equal(r.vault.get(key), null, "the stale device token is gone");
    assert.equal(r.conn.attempts, 2);
    assert.equal(
      r.states.some((s) => s.state === "offline" || s.state === "auth_failed"),
      false,
    );
  });

  test("AUTH_DEVICE_TOKEN_MISMATCH twice → auth_failed (device token), no loop", T, async (tc) => {
    const err = new GatewayClientRequestError({
      code: "INVALID_REQUEST",
      message: "device token mismatch",
      details: { code: "AUTH_DEVICE_TOKEN_MISMATCH" },
    });
    const r = await rig(tc, failWith(err, "AUTH_DEVICE_TOKEN_MISMATCH"));
    r.conn.start();
    await until(() => r.conn.state.state === "auth_failed");
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    assert.equal((r.conn.state as { setting: string }).setting, "device token");
    assert.equal(r.conn.attempts, 2);
  });

  test("after the device-token retry, a later close without an error backs off (no reconnect storm)", async (tc) => {
    const err = new GatewayClientRequestError({
      code: "INVALID_REQUEST",
      message: "device token mismatch",
      details: { code: "AUTH_DEVICE_TOKEN_MISMATCH" },
    });
    const r = await rig(
      tc,
      (c) => {
        if (c.index === 0) failWith(err, "AUTH_DEVICE_TOKEN_MISMATCH")(c);
        else if (c.index < 30) c.close(1000, "handshake timeout"); // a pre-hello close with no connect error
      },
      { backoff: { initialMs: 100, maxMs: 100, multiplier: 1, jitter: 0 } },
    );
    r.conn.start();
    // the device-token retry comes at once; the handshake timeout after it waits its backoff
    await until(() => r.conn.state.state === "offline");
    await settle();
    assert.equal(r.conn.attempts, 2);
    assert.deepEqual(r.timers.pending(), [100], "a backoff, not an immediate reconnect");
    r.timers.fireNext();
    await until(() => r.conn.attempts === 3 && r.conn.state.state === "offline");
    await settle();
    assert.deepEqual(r.timers.pending(), [100], "again a backoff");
    assert.equal(r.conn.attempts, 3);
    r.conn.stop();
  });

  test("a plaintext remote URL refused by the client → terminal, says to use wss:// or a tunnel", T, async (tc) => {
    const fake = fakeClients();
    const r = await rig(tc, () => {}, {
      url: "ws://gw.example.com:18789",
      createClient: (opts) => {
        const c = fake.createClient(opts);
        return {
          ...c,
          start: () => {
            throw new Error("SECURITY ERROR: refusing plaintext ws:// to a non-loopback host");
          },
        };
      },
    });
    r.conn.start();
    const s = r.conn.state;
    assert.ok(s.state === "auth_failed", s.state);
    assert.equal(s.code, "INSECURE_URL");
    assert.match(s.advice, /wss:\/\//);
    await settle();
    assert.deepEqual(r.timers.pending(), [], "no retry scheduled");
    assert.equal(r.conn.attempts, 1);
  });
});

/**
 * A FAKE port probe (the real one is tcp-probe.ts): answers each probe from `answers` in turn
 * (the last one repeats), or leaves it open when the answer is "silent".
 */
function fakeProbes(...answers: Array<boolean | "silent">) {
  const made: Array<{ host: string; port: number; at: number; cancelled: boolean }> = [];
  const connect =
    (clock: FakeClock): ProbeConnect =>
    (target, done) => {
      const p = { ...target, at: clock.now, cancelled: false };
      made.push(p);
      const answer = answers[Math.min(made.length, answers.length) - 1]!;
      if (answer !== "silent") done(answer);
      return () => {
        p.cancelled = true;
      };
    };
  return { made, connect };
}

describe("GatewayConnection: a loopback Gateway coming back (port probe)", () => {
  const SLOW: BackoffPolicy = { initialMs: 10_000, maxMs: 30_000, multiplier: 2, jitter: 0 };

  async function probed(tc: TestContext, script: Script, probes: ReturnType<typeof fakeProbes>, extra: Partial<ConnectionOptions> = {}) {
    const clock = new FakeClock();
    const r = await rig(tc, script, {
      backoff: SLOW,
      now: () => clock.now,
      schedule: clock.schedule,
      probeConnect: probes.connect(clock),
      ...extra,
    });
    return { ...r, clock };
  }

  test("refused: the port is probed every 500–1000 ms; once it listens, one attempt at once replaces the backoff timer", T, async (tc) => {
    const probes = fakeProbes(false, false, false, true);
    const r = await probed(
      tc,
      (c) => {
        if (c.index === 0) {
          c.connectError(refused());
          c.close(1006, "");
        } else c.hello();
      },
      probes,
    );
    const t0 = r.clock.now;
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    const off = offlineStates(r)[0]!;
    assert.equal(off.reason, "connection refused");
    assert.equal(off.retryInMs, 10_000, "the state shows the backoff attempt: the probe is not an attempt");
    assert.equal(off.nextRetryAt, t0 + 10_000);
    r.clock.advance(3_000); // random 0.5: a probe every 750 ms, the fourth one finds the port listening
    assert.deepEqual(
      probes.made.map((p) => [p.host, p.port, p.at - t0]),
      [
        ["127.0.0.1", 18789, 750],
        ["127.0.0.1", 18789, 1500],
        ["127.0.0.1", 18789, 2250],
        ["127.0.0.1", 18789, 3000],
      ],
    );
    assert.equal(r.conn.attempts, 2, "the attempt came at 3 s, not at the 10 s backoff");
    await until(() => r.conn.state.state === "connected");
    assert.equal((r.conn.state as { since: number }).since, t0 + 3_000);
    assert.equal(r.clock.pending, 0, "the backoff timer was replaced and probing stopped");
    r.clock.advance(60_000);
    assert.equal(r.conn.attempts, 2);
    assert.equal(probes.made.length, 4, "no probe while connected");
  });

  test("a port that listens while the handshake still fails: plain backoff until the next attempt, no storm", T, async (tc) => {
    // The port accepts, the Gateway closes before hello (probe-led attempt), the next scheduled
    // attempt is refused again (probing resumes), then the Gateway is back.
    const probes = fakeProbes(true);
    const r = await probed(
      tc,
      (c) => {
        if (c.index === 0 || c.index === 2) {
          c.connectError(refused());
          c.close(1006, "");
        } else if (c.index === 1) c.close(1006, "");
        else c.hello();
      },
      probes,
    );
    const t0 = r.clock.now;
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    r.clock.advance(750);
    await until(() => offlineStates(r).length === 2);
    assert.equal(r.conn.attempts, 2, "the probe brought one attempt forward");
    const second = offlineStates(r)[1]!;
    assert.equal(second.reason, "connection lost");
    assert.equal(second.retryInMs, 20_000, "the failed attempt counts: backoff grows");
    assert.equal(second.nextRetryAt, t0 + 750 + 20_000, "the state shows when the next attempt really is");
    r.clock.advance(19_999);
    assert.equal(r.conn.attempts, 2, "no probe-led attempt after one failed: the port listening proves nothing");
    assert.equal(probes.made.length, 1);
    r.clock.advance(1);
    assert.equal(r.conn.attempts, 3, "the scheduled attempt, when the state said");
    await until(() => offlineStates(r).length === 3);
    assert.equal(offlineStates(r)[2]!.reason, "connection refused");
    r.clock.advance(750);
    assert.equal(probes.made.length, 2, "refused again: probing resumed");
    assert.equal(r.conn.attempts, 4);
    await until(() => r.conn.state.state === "connected");
    assert.equal(r.clock.pending, 0);
  });

  test("a listener the attempt still cannot reach (refused anyway): one probe-led attempt per backoff step, no storm", T, async (tc) => {
    // E.g. `localhost` resolving to another address for the probe than for the socket.
    const probes = fakeProbes(true);
    const attemptTimes: number[] = [];
    // The rig makes the clock; onState, made before it, reads it through this holder.
    const held: { clock?: FakeClock } = {};
    const r = await probed(
      tc,
      (c) => {
        c.connectError(refused());
        c.close(1006, "");
      },
      probes,
      { onState: (s) => void (s.state === "connecting" && attemptTimes.push(held.clock!.now)) },
    );
    const clock = (held.clock = r.clock);
    const t0 = clock.now;
    r.conn.start();
    while (clock.now - t0 < 60_000) {
      await until(() => r.conn.state.state === "offline");
      clock.advance(250);
    }
    // Refused at 0; the probe-led attempt at 0.75 s; the 20 s backoff step at 20.75 s; its probe-led one …
    assert.deepEqual(
      attemptTimes.map((t) => t - t0),
      [0, 750, 20_750, 21_500, 51_500, 52_250],
    );
    assert.equal(probes.made.length, 3, "a probe only after a scheduled attempt was refused");
  });

  test("a remote Gateway is never probed: plain backoff", T, async (tc) => {
    const probes = fakeProbes(true);
    const r = await probed(
      tc,
      (c) => {
        c.connectError(refused());
        c.close(1006, "");
      },
      probes,
      { url: REMOTE },
    );
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    r.clock.advance(9_999);
    assert.equal(r.conn.attempts, 1);
    assert.equal(r.clock.pending, 1, "only the backoff timer");
    assert.equal(probes.made.length, 0);
    assert.equal(r.conn.probes, 0);
  });

  test("a close that was not a refusal starts no probe (the port may well be listening)", T, async (tc) => {
    const probes = fakeProbes(true);
    const r = await probed(tc, (c) => c.close(1006, ""), probes);
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    r.clock.advance(9_999);
    assert.equal(probes.made.length, 0);
    assert.equal(r.conn.attempts, 1);
  });

  test("stop() while probing: the probe in flight is destroyed, no timer is left", T, async (tc) => {
    const probes = fakeProbes("silent");
    const r = await probed(
      tc,
      (c) => {
        c.connectError(refused());
        c.close(1006, "");
      },
      probes,
    );
    r.conn.start();
    await until(() => r.conn.state.state === "offline");
    r.clock.advance(750);
    assert.equal(probes.made.length, 1);
    r.conn.stop();
    assert.equal(probes.made[0]!.cancelled, true);
    assert.equal(r.clock.pending, 0);
    r.clock.advance(60_000);
    assert.equal(r.conn.attempts, 1);
  });
});
