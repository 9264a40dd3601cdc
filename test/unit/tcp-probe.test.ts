// The real port probe against loopback sockets: it connects, sends nothing and closes at once.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { tcpProbe } from "../../main/core/tcp-probe.ts";
import { freePort } from "../harness/gateway.ts";

const T = { timeout: 5_000 };

const probe = (port: number) => new Promise<boolean>((resolve) => tcpProbe({ host: "127.0.0.1", port }, resolve));

/** A loopback server that reports each connection's bytes when it closes; torn down after the test, even a failed one. */
async function listen(tc: TestContext) {
  const sockets = new Set<net.Socket>();
  const closed: Array<Promise<number>> = [];
  let onConnection = () => {};
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let bytes = 0;
    socket.on("data", (d) => (bytes += d.length));
    socket.on("error", () => {});
    closed.push(new Promise((resolve) => socket.on("close", () => resolve(bytes))));
    onConnection();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  tc.after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const firstConnection = new Promise<void>((resolve) => (onConnection = resolve));
  return { port: (server.address() as net.AddressInfo).port, closed, firstConnection };
}

test("a listening port answers true; the server sees a connection that sends nothing and is closed", T, async (tc) => {
  const server = await listen(tc);
  assert.equal(await probe(server.port), true);
  await server.firstConnection;
  assert.equal(await server.closed[0], 0, "closed by the probe without a byte");
});

test("a port nobody listens on answers false", T, async () => {
  assert.equal(await probe(await freePort()), false);
});

test("cancel destroys the socket: the server sees it closed, and no answer comes", T, async (tc) => {
  const server = await listen(tc);
  let answers = 0;
  const cancel = tcpProbe({ host: "127.0.0.1", port: server.port }, () => answers++);
  cancel();
  // The connect may still reach the server before the cancel lands: then its close is seen too.
  const other = await probe(server.port);
  assert.equal(other, true);
  await server.firstConnection;
  await Promise.all(server.closed);
  assert.equal(answers, 0);
});
