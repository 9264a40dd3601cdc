// The built `progress-desk host` against what any local process can send it: resets during
// a refused handshake, oversized and invalid frames, slow headers, socket floods and message
// floods. Each is answered (a reply, a close code, a dropped socket) and the host keeps
// serving; the host runs as its own process, so "still alive" is a real process check.
// No Gateway here: these defences sit in front of the core, so the host is pointed at a
// loopback port where nothing listens (the fuzz suite runs against a real Gateway).
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import net from "node:net";
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

  test("connections beyond the socket cap are dropped on arrival; freed slots serve again", async () => {
    const held: net.Socket[] = [];
    try {
      for (let i = 0; i < DEFAULT_HOST_LIMITS.maxSockets; i += 1) {
        const s = await connect(host.port);
        s.on("error", () => {});
        held.push(s);
      }
      // The host accepts connections in arrival order, so this one finds the cap reached.
      const extra = await connect(host.port);
      extra.on("error", () => {});
      const frames = new ServerFrames(extra);
      extra.write(`GET /${host.secret}/popover.html HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n\r\n`);
      await until("the extra connection to be closed", () => frames.closed);
      assert.equal(frames.handshakeStatus, null, "no reply: the connection was dropped on arrival");
    } finally {
      for (const s of held) s.destroy();
    }
    await until(
      "a free slot",
      async () => (await httpGet(host.port, `/${host.secret}/popover.html`).catch(() => ({ status: 0 }))).status === 200,
    );
    assert.equal(host.alive(), true);
  });
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

describe("what a client with the secret can do", () => {
  test("a path with a dot segment is 404 on each origin: assets/../settings.html does not serve Settings on the main origin, nor the reverse", async () => {
    const asset = readdirSync(join(builtCli, "..", "..", "..", "renderer", "assets")).find((n) => n.endsWith(".js"));
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
