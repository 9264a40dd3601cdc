// Fuzzing the built `progress-desk host` (its own process, against a real Gateway) with what
// a local process could send: thousands of malformed HTTP requests and WebSocket frames —
// random bytes, truncated requests and frames, bad opcodes, lying lengths, invalid UTF-8,
// resets at every step of the handshake, garbage JSON, prototype-named methods and wrong
// argument types for every verb. Afterwards the host is alive, serves the page, delivers a
// card written to the Gateway, and its memory is back near where it started.
// Seeded: the seed is printed; FUZZ_SEED=<n> replays a run.
import assert from "node:assert/strict";
import { seededRandom } from "../harness/seeded-random.ts";
import { randomBytes } from "node:crypto";
import type net from "node:net";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { DESK_METHODS } from "../../common/contract.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { until } from "../harness/until.ts";
import {
  connect,
  frame,
  httpGet,
  rawBridge,
  ServerFrames,
  startHostProcess,
  textFrame,
  upgradeRequest,
  type HostProcess,
} from "./host-process.ts";

const HTTP_CASES = 2000;
const WS_CONNECTIONS = 300;
const CONCURRENCY = 12;
/** How long a fuzz client lingers for the host's answer before it hangs up itself (bounds the run, decides nothing). */
const LINGER_MS = 250;

const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) >>> 0 : randomBytes(4).readUInt32BE(0);

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(s: number) {
  const next = seededRandom(s);
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { next, int, pick, bytes, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

let gw: TestGateway;
let agent: BareClient;
let host: HostProcess;
let framesSent = 0;

before(async () => {
  gw = await startGateway();
  agent = await connectBareClient(gw);
  host = await startHostProcess(gw);
});

after(async () => {
  await host?.stop();
  await agent?.close();
  await gw?.dispose();
});

/** Runs `count` cases, `CONCURRENCY` at a time. */
async function pool(count: number, run: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

/** Ends a fuzz connection one of the ways a client can: reset, half-close, or wait for the host then hang up. */
async function hangUp(rng: Rng, s: net.Socket, frames: ServerFrames): Promise<void> {
  const how = rng.int(3);
  if (how === 0) s.resetAndDestroy();
  else {
    if (how === 1) s.end();
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, LINGER_MS);
      s.once("close", () => {
        clearTimeout(t);
        resolve();
      });
    });
    if (!frames.closed) {
      if (rng.chance(0.5)) s.resetAndDestroy();
      else s.destroy();
    }
  }
}

// ——— HTTP: requests and handshakes ———

function junkHeaderValue(rng: Rng): string {
  return rng.pick([
    () => rng.bytes(rng.int(40)).toString("latin1"),
    () => "x".repeat(rng.pick([10, 9_000, 20_000])),
    () => "\u0000\u0001\u007f",
    () => "ä€😀",
    () => "",
  ])();
}

function httpCase(rng: Rng): string | Buffer {
  const secret = rng.pick([host.secret, host.settingsSecret, "", host.secret.slice(1), "%2e%2e", "x".repeat(host.secret.length)]);
  const port = host.port;
  const path = rng.pick([
    `/${secret}/popover.html`,
    `/${secret}/settings.html`,
    `/${secret}/dashboard.html`,
    `/${secret}/assets/../../../etc/passwd`,
    `/${secret}/%2e%2e/%2e%2e/x`,
    `/${secret}/%E0%A4%A`,
    `/${secret}/bridge/popover`,
    `/${secret}/bridge/settings`,
    `/${secret}/bridge/__proto__`,
    `/${secret}/\u0000`,
    "*",
    `http://127.0.0.1:${port}/${secret}/popover.html`,
    "/" + "a/".repeat(rng.int(3000)),
  ]);
  const method = rng.pick(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PRI", "G\u0000T", "get", ""]);
  const hostHeader = rng.pick([`127.0.0.1:${port}`, `localhost:${port}`, "evil.example", "", `127.0.0.1:${port}, evil.example`]);
  const kind = rng.int(10);
  switch (kind) {
    case 0:
      return rng.bytes(rng.int(2048));
    case 1: {
      // An upgrade with something wrong (or right) in it.
      return upgradeRequest(port, path, {
        origin: rng.pick([host.origin, host.settingsOrigin, "http://evil.example", "null", ""]),
        host: hostHeader,
        key: rng.pick([undefined, "short", "", "A".repeat(22) + "=="]),
        version: rng.pick(["13", "8", "7", "", "13, 8"]),
        method: rng.pick(["GET", "POST", "OPTIONS"]),
      });
    }
    case 2: {
      // A body that never arrives in full, or lies about its framing.
      const te = rng.chance(0.5) ? "Transfer-Encoding: chunked\r\n" : "";
      const cl = rng.chance(0.7) ? `Content-Length: ${rng.pick(["10", "99999999999", "-1", "abc", "5, 6"])}\r\n` : "";
      return `${method} ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${te}${cl}\r\n${rng.pick(["", "zz\r\n", "5\r\nabc", "0\r\n\r\n"])}`;
    }
    case 3: {
      // Pipelined requests, some cut short.
      const one = `GET /${host.secret}/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
      const many = one.repeat(1 + rng.int(6));
      return many.slice(0, rng.chance(0.5) ? many.length : rng.int(many.length));
    }
    case 4: {
      const version = rng.pick(["1.1", "1.0", "2.0", "0.9", "9"]);
      const name = rng.pick(["Origin", "X-Junk", "Host", "Connection", "Upgrade"]);
      return `${method} ${path} HTTP/${version}\r\nHost: ${hostHeader}\r\n${name}: ${junkHeaderValue(rng)}\r\n\r\n`;
    }
    default: {
      // A plausible request, truncated anywhere.
      const full = `${method} ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nOrigin: ${rng.pick([host.origin, "http://evil.example"])}\r\n\r\n`;
      return full.slice(0, rng.chance(0.5) ? full.length : rng.int(full.length));
    }
  }
}

async function runHttpCase(rng: Rng): Promise<void> {
  const port = rng.chance(0.75) ? host.port : host.settingsPort;
  const s = await connect(port);
  s.on("error", () => {});
  const frames = new ServerFrames(s);
  const data = httpCase(rng);
  if (rng.chance(0.1)) {
    // Reset before sending anything, or in the middle of the bytes.
    if (rng.chance(0.5)) s.write(data.slice(0, rng.int(data.length + 1)));
    s.resetAndDestroy();
    return;
  }
  await new Promise<void>((resolve) => s.write(data, () => resolve()));
  await hangUp(rng, s, frames);
}

// ——— WebSocket: frames after a good handshake ———

const FIELD_NAMES = ["gatewayId", "sessionKey", "agentId", "url", "label", "color", "token", "showCards", "detector", "activity", "pinned"];
const PROTO_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype", "__defineGetter__", "isPrototypeOf"];

function junkValue(rng: Rng, depth = 0): unknown {
  const leaf = rng.pick([
    () => null,
    () => rng.chance(0.5),
    () => rng.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE]),
    () =>
      rng.pick([
        "",
        "x".repeat(rng.int(5000)),
        "ws://127.0.0.1:1",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "settings",
        ...PROTO_NAMES,
      ]),
  ]);
  if (depth > 2 || rng.chance(0.5)) return leaf();
  if (rng.chance(0.5)) return Array.from({ length: rng.int(5) }, () => junkValue(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(5); i > 0; i -= 1) {
    const key = rng.pick([...PROTO_NAMES, ...FIELD_NAMES]);
    o[key] = junkValue(rng, depth + 1);
  }
  return o;
}

/** A request text: known verbs with wrong arguments, prototype names, junk ids, or raw junk JSON. */
function requestText(rng: Rng): string {
  if (rng.chance(0.15)) {
    return rng.pick([
      "",
      "{",
      "null",
      "[]",
      "1e309",
      '{"id":1,"method":"snapshot","args":[]',
      '{"__proto__":{"method":"snapshot"},"id":2}',
      '{"id":{"toString":1},"method":"getSettings"}',
      '"'.repeat(rng.int(100)),
      "[".repeat(5000),
    ]);
  }
  const method = rng.chance(0.7) ? rng.pick(DESK_METHODS) : rng.pick([...PROTO_NAMES, "", "SNAPSHOT", "snapshot ", "call"]);
  const args = rng.chance(0.8) ? Array.from({ length: rng.int(5) }, () => junkValue(rng)) : junkValue(rng);
  const id = rng.pick([rng.int(1e6), String(rng.int(100)), null, undefined, {}, [], -0.5]);
  // Raw text keeps a literal "__proto__" key (JSON.stringify of an object would not).
  const body = JSON.stringify({ id, method, args });
  return rng.chance(0.1) ? body.replace(/^\{/, '{"__proto__":{"isAdmin":true},') : body;
}

function wsFrame(rng: Rng): Buffer {
  const kind = rng.int(14);
  switch (kind) {
    case 0:
      return rng.bytes(1 + rng.int(64)); // random bytes
    case 1: {
      // invalid UTF-8: a stray byte, a bad continuation, an encoded surrogate
      const bad = rng.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80]]);
      return textFrame(Buffer.concat([Buffer.from('{"id":1,"method":"'), Buffer.from(bad)]));
    }
    case 2:
      return frame(rng.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf]), rng.bytes(rng.int(20))); // reserved opcodes
    case 3:
      // lying lengths, far beyond the payload
      return frame(0x1, Buffer.from("{}"), { declaredLength: rng.pick([2n ** 40n, 2n ** 63n - 1n, 2n ** 64n - 1n, 300_000n, 70_000n]) });
    case 4:
      return frame(0x1, Buffer.from(requestText(rng)), { rsv: 1 + rng.int(7) }); // RSV bits without an extension
    case 5:
      return frame(0x1, Buffer.from(requestText(rng)), { mask: false }); // unmasked client frame
    case 6:
      return frame(0x0, Buffer.from("continued")); // continuation with nothing to continue
    case 7:
      // control frames, some too long or fragmented
      return frame(rng.pick([0x8, 0x9, 0xa]), rng.bytes(rng.pick([0, 1, 2, 126, 200])), { fin: rng.chance(0.7) });
    case 8: {
      const text = Buffer.from(requestText(rng));
      const cut = rng.int(text.length + 1);
      // fragmented, a ping between the fragments
      return Buffer.concat([
        frame(0x1, text.subarray(0, cut), { fin: false }),
        frame(0x9, Buffer.alloc(0)),
        frame(0x0, text.subarray(cut)),
      ]);
    }
    case 9: {
      const f = textFrame(requestText(rng));
      return f.subarray(0, rng.int(f.length)); // truncated frame
    }
    case 10:
      return frame(0x2, rng.bytes(rng.int(100))); // binary
    default:
      return textFrame(requestText(rng)); // well-formed frame, junk request
  }
}

async function runWsCase(rng: Rng): Promise<void> {
  const side = rng.pick([
    { port: host.port, path: `/${host.secret}/bridge/popover`, origin: host.origin },
    { port: host.port, path: `/${host.secret}/bridge/dashboard`, origin: host.origin.replace("127.0.0.1", "localhost"), host: "localhost" },
    { port: host.settingsPort, path: `/${host.settingsSecret}/bridge/settings`, origin: host.settingsOrigin },
  ]);
  const { socket, frames } = await rawBridge(side.port, side.path, side.origin);
  const count = 5 + rng.int(30);
  for (let i = 0; i < count && !frames.closed && !socket.destroyed; i += 1) {
    const f = wsFrame(rng);
    await new Promise<void>((resolve) => socket.write(f, () => resolve()));
    framesSent += 1;
    if (rng.chance(0.03)) {
      socket.resetAndDestroy(); // reset mid-conversation
      return;
    }
  }
  if (!socket.destroyed && rng.chance(0.3)) socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
  await hangUp(rng, socket, frames);
}

// ——— the check afterwards ———

async function bridgeClient(): Promise<{ ws: WebSocket; events: any[] }> {
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const w = new WebSocket(`ws://127.0.0.1:${host.port}/${host.secret}/bridge/popover`, { headers: { origin: host.origin } });
    w.once("open", () => resolve(w));
    w.once("error", reject);
  });
  const events: any[] = [];
  ws.on("message", (d) => {
    const m = JSON.parse(String(d));
    if (m.event) events.push(m.event);
    else if (m.events) events.push(...m.events);
  });
  return { ws, events };
}

test("the host survives thousands of malformed requests and frames, and still delivers cards", { timeout: 110_000 }, async (t) => {
  t.diagnostic(`FUZZ_SEED=${seed}`);
  console.log(`host fuzz: FUZZ_SEED=${seed} (set it to replay this run)`);
  // Warm up the paths the fuzz will use, so the memory baseline includes their one-time costs.
  for (let i = 0; i < 20; i += 1) assert.equal((await httpGet(host.port, `/${host.secret}/popover.html`)).status, 200);
  const warm = await bridgeClient();
  warm.ws.close();
  const baselineKiB = host.rssKiB();

  const rng = prng(seed);
  // Each case gets its own generator from the main one, so a case reproduces whatever ran beside it.
  const seeds = Array.from({ length: HTTP_CASES + WS_CONNECTIONS }, () => rng.int(2 ** 32));
  let failedConnects = 0;
  await pool(HTTP_CASES, (i) => runHttpCase(prng(seeds[i]!)).catch(() => void (failedConnects += 1)));
  assert.equal(host.alive(), true, `alive after the HTTP cases (seed ${seed}); stderr: ${host.stderr()}`);
  await pool(WS_CONNECTIONS, (i) => runWsCase(prng(seeds[HTTP_CASES + i]!)).catch(() => void (failedConnects += 1)));
  assert.equal(host.alive(), true, `alive after the WebSocket cases (seed ${seed}); stderr: ${host.stderr()}`);
  assert.ok(failedConnects < (HTTP_CASES + WS_CONNECTIONS) / 20, `few cases could not even connect (${failedConnects}, seed ${seed})`);
  t.diagnostic(`${HTTP_CASES} HTTP cases, ${WS_CONNECTIONS} WebSocket connections, ${framesSent} frames`);

  // Still serving: the page, and a card written to the real Gateway reaches a bridge client.
  assert.equal((await httpGet(host.port, `/${host.secret}/popover.html`)).status, 200);
  assert.equal((await httpGet(host.settingsPort, `/${host.settingsSecret}/settings.html`)).status, 200);
  const { ws, events } = await bridgeClient();
  try {
    const key = await agent.createSession();
    await agent.put(key, { markdown: "after the fuzz" });
    await until(
      "the card to reach the bridge client",
      () => events.some((e) => e.type === "change" && e.change.type === "card" && e.change.entry.sessionKey === key && e.change.entry.card),
      30_000,
    );
  } finally {
    ws.close();
  }

  // Memory comes back near where it started: garbage is collected, nothing per connection is kept.
  const boundKiB = baselineKiB + 64 * 1024;
  const settled = await until(
    "the host's memory to settle",
    () => {
      const rss = host.rssKiB();
      return rss <= boundKiB ? rss : null;
    },
    30_000,
    250,
  ).catch(() => host.rssKiB());
  t.diagnostic(`RSS: ${baselineKiB} KiB before, ${settled} KiB after`);
  assert.ok(settled <= boundKiB, `RSS ${settled} KiB after the fuzz, ${baselineKiB} KiB before (seed ${seed})`);
  assert.equal(host.alive(), true);
});
