// The real port probe against loopback sockets: it connects, sends nothing and closes at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { tcpProbe } from "../../main/core/tcp-probe.ts";
import { freePort } from "../harness/gateway.ts";

const T = { timeout: 5_000 };

const probe = (port: number) => new Promise<boolean>((resolve) => tcpProbe({ host: "127.0.0.1", port }, resolve));

test("a listening port answers true; the server sees a connection that sends nothing and closes", T, async () => {
  const seen: Array<Promise<number>> = [];
  const server = net.createServer((socket) => {
    seen.push(
      new Promise((resolve) => {
        let bytes = 0;
        socket.on("data", (d) => (bytes += d.length));
        socket.on("error", () => {});
        socket.on("close", () => resolve(bytes));
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as net.AddressInfo;
    assert.equal(await probe(port), true);
    await new Promise<void>((resolve) => (seen.length ? resolve() : server.once("connection", () => resolve())));
    assert.equal(await seen[0], 0, "closed by the probe without a byte");
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("a port nobody listens on answers false", T, async () => {
  assert.equal(await probe(await freePort()), false);
});

test("cancel destroys the socket and no answer follows", T, async () => {
  const server = net.createServer((socket) => socket.on("error", () => {}));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as net.AddressInfo;
    const closed = new Promise<void>((resolve) => server.once("connection", (s) => s.once("close", () => resolve())));
    let answers = 0;
    const cancel = tcpProbe({ host: "127.0.0.1", port }, () => answers++);
    cancel();
    // If the connect got through before the cancel, its close is seen; either way no answer comes.
    await Promise.race([closed, new Promise((r) => setImmediate(r))]);
    await new Promise((r) => setImmediate(r));
    assert.equal(answers, 0);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
