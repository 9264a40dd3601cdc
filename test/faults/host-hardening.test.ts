// The built `progress-desk host` against what any local process can send it: resets during
// a refused handshake, oversized and invalid frames, slow headers, socket floods (half-sent
// requests refilled as fast as they are dropped) and message floods. Each is answered (a
// reply, a close code, a dropped socket) and the host keeps serving; the host runs as its own
// process, so "still alive" is a real process check.
// No Gateway here: these defences sit in front of the core, so the host is pointed at a
// loopback port where nothing listens (the fuzz suite runs against a real Gateway).
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import net from "node:net";
import { request as httpRequest } from "node:http";
import { Worker } from "node:worker_threads";
import { until } from "../harness/until.ts";
import { DEFAULT_HOST_LIMITS } from "../../main/host/host-server.ts";
import {
  builtCli,
  connect,
  httpGet,
  rawBridge,
  ServerFrames,
  startHostProcess,
  textFrame,
  upgradeRequest,
  type HostProcess,
} from "./host-process.ts";

let host: HostProcess;

/** A loopback port with nothing listening on it (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  host = await startHostProcess({ url: `ws://127.0.0.1:${await deadPort()}`, token: "no-gateway-here" });
});

after(async () => {
  await host?.stop();
});

const bridgePath = (): string => `/${host.secret}/bridge/popover`;

/** The host is running, serves the page and answers a bridge call. */
async function assertServing(): Promise<void> {
  assert.equal(host.alive(), true, `the host process is alive (stderr: ${host.stderr()})`);
  assert.equal((await httpGet(host.port, `/${host.secret}/popover.html`)).status, 200);
  const ws = await openBridge();
  try {
    const reply = await new Promise<{ ok: boolean }>((resolve) => {
      ws.on("message", (d) => {
        const m = JSON.parse(String(d));
        if (m.id === 1) resolve(m);
      });
      ws.send(JSON.stringify({ id: 1, method: "getSettings", args: [] }));
    });
    assert.equal(reply.ok, true);
  } finally {
    ws.terminate();
  }
}

function openBridge(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${bridgePath()}`, { headers: { origin: host.origin } });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/** The socket's close code, once it closes (bounded: a host that never closes it fails the wait). */
function closeOf(ws: WebSocket): Promise<number> {
  let code: number | null = null;
  ws.once("close", (c) => (code = c));
  return until("the socket to be closed", () => code);
}

describe("what a client without the secret can do", () => {
  test("a refused upgrade that the client resets does not stop the host", async () => {
    // Reset at each moment around the refusal: right after asking, and after the reply began.
    for (let i = 0; i < 30; i += 1) {
      const s = await connect(host.port);
      s.on("error", () => {});
      const frames = new ServerFrames(s);
      s.write(upgradeRequest(host.port, "/not-the-secret/bridge/popover", { origin: host.origin }));
      if (i % 2 === 1) await until("the refusal", () => frames.handshakeStatus ?? frames.closed);
      s.resetAndDestroy();
    }
    // Many at once, so some resets land while the host is still writing its refusal.
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const s = await connect(host.port);
        s.on("error", () => {});
        s.write(upgradeRequest(host.port, bridgePath(), { origin: "http://evil.example" }), () => s.resetAndDestroy());
      }),
    );
    await assertServing();
  });

  test("a request the HTTP parser rejects gets a plain 400 with nosniff; the host stays", async () => {
    const s = await connect(host.port);
    s.on("error", () => {});
    let reply = "";
    s.setEncoding("latin1").on("data", (d: string) => (reply += d));
    const closed = new Promise((resolve) => s.once("close", resolve));
    s.write("NOT A REQUEST\u0000\r\n\r\n");
    await closed;
    assert.match(reply, /^HTTP\/1\.1 400 /);
    assert.match(reply, /\r\nx-content-type-options: nosniff\r\n/i);
    await assertServing();
  });

  test("slow headers (one byte a second) are dropped with 408", async () => {
    const s = await connect(host.port);
    s.on("error", () => {});
    const frames = new ServerFrames(s);
    const request = `GET /${host.secret}/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nX-Slow: ${"a".repeat(200)}\r\n\r\n`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!s.destroyed && sent < request.length) s.write(request[sent++]!);
    }, 1_000);
    try {
      await until("the host to drop the slow client", () => frames.closed, DEFAULT_HOST_LIMITS.headersTimeoutMs + 15_000, 100);
    } finally {
      clearInterval(drip);
      s.destroy();
    }
    assert.ok(sent < request.length, "dropped before its headers were complete");
    assert.equal(frames.handshakeStatus, 408);
    await assertServing();
  });

  test("a request without the secret is answered 403 and its connection closed at once", async () => {
    const s = await connect(host.port);
    s.on("error", () => {});
    let reply = "";
    let ended = false;
    s.setEncoding("latin1").on("data", (d: string) => (reply += d));
    s.once("end", () => (ended = true));
    try {
      s.write(`GET /not-the-secret/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: keep-alive\r\n\r\n`);
      await until("the host to end the connection", () => ended);
    } finally {
      s.destroy();
    }
    assert.match(reply, /^HTTP\/1\.1 403 /);
    assert.match(reply, /\r\nconnection: close\r\n/i, "not kept alive");
  });

  test("headers must arrive within 2 s: a half-sent request is answered 408 and dropped", async (t) => {
    const s = await connect(host.port);
    s.on("error", () => {});
    const frames = new ServerFrames(s);
    const started = performance.now();
    try {
      s.write(`GET /${host.secret}/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n`);
      // A generous deadline for the 2 s limit (the host checks its timeouts every half second);
      // a limit of 10 s, as before, misses it.
      await until("the host to drop the half-sent request", () => frames.closed, 6_000, 50);
    } finally {
      s.destroy();
    }
    t.diagnostic(`dropped after ${Math.round(performance.now() - started)} ms`);
    assert.equal(frames.handshakeStatus, 408);
  });

  test("at the socket cap, a newcomer takes the place of the oldest connection still waiting for its request", async () => {
    // Connected in order, so the host accepts them in that order: the first is the oldest.
    const held = await Promise.all(Array.from({ length: DEFAULT_HOST_LIMITS.maxSockets }, () => connect(host.port)));
    const frames = held.map((s) => {
      s.on("error", () => {});
      return new ServerFrames(s);
    });
    const newcomer = await connect(host.port);
    newcomer.on("error", () => {});
    const answer = new ServerFrames(newcomer);
    try {
      // Kept alive after its answer, so it keeps its slot and the host must make room.
      newcomer.write(`GET /${host.secret}/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: keep-alive\r\n\r\n`);
      await until("the newcomer's answer", () => answer.handshakeStatus ?? (answer.closed ? -1 : null));
      assert.equal(answer.handshakeStatus, 200);
      await until("the oldest held connection to be dropped", () => frames[0]!.closed);
      assert.equal(frames[0]!.handshakeStatus, null, "dropped to make room, not answered (a timeout answers 408)");
      assert.equal(answer.closed, false, "the newcomer keeps its slot");
    } finally {
      for (const s of [...held, newcomer]) s.destroy();
    }
    await assertServing();
  });

  test(
    "hundreds of half-sent requests, refilled as the host drops them, do not keep the page from loading",
    { timeout: 120_000 },
    async (t) => {
      const LOADS = 20;
      /** Fails a load that takes longer (generous: a page load on loopback takes milliseconds). */
      const LOAD_DEADLINE_MS = 2_000;
      // The holder runs on its own thread, as another process would, so its callbacks do not delay the loads'.
      const holder = new Worker(HOLDER_SOURCE, { eval: true, workerData: { port: host.port, held: 300, maxOpened: 40_000 } });
      let holderOpened = 0;
      holder.on("message", (m: { opened: number }) => (holderOpened = m.opened));
      const load = (): Promise<number> =>
        new Promise((resolve, reject) => {
          const started = performance.now();
          const req = httpRequest(
            {
              host: "127.0.0.1",
              port: host.port,
              path: `/${host.secret}/popover.html`,
              agent: false,
              headers: { host: `127.0.0.1:${host.port}` },
            },
            (res) => {
              res.resume();
              res.once("end", () =>
                res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`HTTP ${res.statusCode}`)),
              );
            },
          );
          const deadline = setTimeout(() => req.destroy(new Error(`no page within ${LOAD_DEADLINE_MS} ms`)), LOAD_DEADLINE_MS);
          req.once("close", () => clearTimeout(deadline));
          req.once("error", reject);
          req.end();
        });

      const loaded: number[] = [];
      const failed: string[] = [];
      try {
        // The host is turning connections away once more have been opened than it holds.
        await until("the host to drop held connections", () => holderOpened > 300 + DEFAULT_HOST_LIMITS.maxSockets, 30_000);
        for (let i = 0; i < LOADS; i += 1) {
          await load().then(
            (ms) => loaded.push(ms),
            (e: Error) => failed.push(e.message),
          );
        }
        assert.ok(holderOpened < 40_000, "the holder was still refilling when the last load finished");
      } finally {
        const stopped = new Promise((resolve) => holder.once("exit", resolve));
        holder.postMessage("stop");
        await stopped;
      }
      const slowest = Math.round(Math.max(0, ...loaded));
      t.diagnostic(`${loaded.length} of ${LOADS} loads, slowest ${slowest} ms; the holder opened ${holderOpened} connections`);
      console.log(`host slots: ${loaded.length} of ${LOADS} loads, slowest ${slowest} ms, ${holderOpened} connections held and refilled`);
      assert.deepEqual(failed, [], "every load succeeded");
      await assertServing();
    },
  );
});

/** The status of a GET sent as raw bytes: the path reaches the host exactly as written (no client normalises `..`). */
async function rawStatus(port: number, path: string): Promise<number> {
  const socket = await connect(port);
  socket.on("error", () => {});
  let reply = "";
  socket.setEncoding("latin1").on("data", (d: string) => (reply += d));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  const status = await until("the reply's status line", () => /^HTTP\/1\.1 (\d{3}) /.exec(reply)?.[1], 10_000);
  socket.destroy();
  return Number(status);
}

/**
 * The holder (a worker thread): keeps `held` half-sent requests open, opening a new one as
 * each is dropped, at most `maxOpened` in all; reports its count; stops when told.
 */
const HOLDER_SOURCE = `
const net = require("node:net");
const { parentPort, workerData } = require("node:worker_threads");
const { port, held, maxOpened } = workerData;
const open = new Set();
let opened = 0;
let stopping = false;
function hold() {
  if (stopping || opened >= maxOpened) return;
  opened += 1;
  const s = net.connect({ host: "127.0.0.1", port });
  open.add(s);
  s.on("error", () => {});
  s.once("connect", () => s.write("GET /not-the-secret/popover.html HTTP/1.1\\r\\nHost: 127.0.0.1:" + port + "\\r\\nX-Held: "));
  s.once("close", () => {
    open.delete(s);
    hold();
  });
}
for (let i = 0; i < held; i += 1) hold();
const report = setInterval(() => parentPort.postMessage({ opened }), 50);
parentPort.on("message", () => {
  stopping = true;
  clearInterval(report);
  for (const s of open) s.destroy();
  parentPort.close();
});
`;

describe("what a client with the secret can do", () => {
  test("a path with a dot segment is 404 on each origin: assets/../settings.html does not serve Settings on the main origin, nor the reverse", async () => {
    const asset = readdirSync(join(builtCli, "..", "..", "renderer", "assets")).find((n) => n.endsWith(".js"));
    assert.ok(asset, "the built pages have a script asset");
    const main = (rest: string): string => `/${host.secret}${rest}`;
    const settings = (rest: string): string => `/${host.settingsSecret}${rest}`;
    // Controls: the same files by their names are served (or redirected) as usual.
    assert.equal(await rawStatus(host.port, main(`/assets/${asset}`)), 200);
    assert.equal(await rawStatus(host.settingsPort, settings("/settings.html")), 200);
    assert.equal(await rawStatus(host.port, main("/settings.html")), 303, "Settings by name: sent to its own origin");
    const climbing = [
      "/assets/../settings.html",
      "/assets/%2e%2e/settings.html",
      "/assets/%2E%2E%2Fsettings.html",
      "/assets/..%2fsettings.html",
      "/assets/..%5csettings.html",
      "/assets/./../popover.html",
      "/assets/../popover.html",
      "/assets/../dashboard.html",
      `/assets/./${asset}`,
      `/assets/%2e/${asset}`,
    ];
    for (const rest of climbing) {
      assert.equal(await rawStatus(host.port, main(rest)), 404, `main origin: ${rest}`);
      assert.equal(await rawStatus(host.settingsPort, settings(rest)), 404, `Settings origin: ${rest}`);
    }
    await assertServing();
  });

  test("a message over the size limit closes that socket with 1009; the host stays", async () => {
    const ws = await openBridge();
    ws.on("error", () => {});
    const closed = closeOf(ws);
    ws.send("x".repeat(DEFAULT_HOST_LIMITS.maxMessageBytes + 1));
    assert.equal(await closed, 1009);
    await assertServing();
  });

  test("a text frame that is not UTF-8 closes that socket with 1007; the host stays", async () => {
    const { socket, frames } = await rawBridge(host.port, bridgePath(), host.origin);
    socket.write(textFrame(Buffer.from([0x7b, 0xc3, 0x28, 0xff, 0x7d])));
    await until("the close frame", () => frames.closeCode);
    assert.equal(frames.closeCode, 1007);
    socket.destroy();
    await assertServing();
  });

  test("bridge sockets beyond the cap are refused with 503; closing one makes room", async () => {
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < DEFAULT_HOST_LIMITS.maxBridgeSockets; i += 1) open.push(await openBridge());
      await assert.rejects(openBridge(), /HTTP 503/);
      const one = open.pop()!;
      const closed = closeOf(one);
      one.close();
      await closed;
      await until("room for one more socket", async () => {
        const ws = await openBridge().catch(() => null);
        if (ws) open.push(ws);
        return ws !== null;
      });
    } finally {
      for (const ws of open) ws.terminate();
    }
    await assertServing();
  });

  test("a flood of messages on one socket closes it with 1008; the host stays", async () => {
    const ws = await openBridge();
    ws.on("error", () => {});
    const closed = closeOf(ws);
    const total = DEFAULT_HOST_LIMITS.messageBurst * 5;
    for (let id = 1; id <= total; id += 1) ws.send(JSON.stringify({ id, method: "getSettings", args: [] }));
    assert.equal(await closed, 1008);
    await assertServing();
  });
});
