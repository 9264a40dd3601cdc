// A loopback TCP relay in front of a real Gateway, for link faults the Gateway cannot make
// by itself: cut every connection and refuse new ones while the Gateway stays up. It
// forwards bytes only; everything the client sees is the real Gateway's.
import net from "node:net";

export type TcpRelay = {
  url: string;
  port: number;
  /** Drop every open connection and refuse new ones until resume(). */
  cut(): void;
  resume(): void;
  close(): Promise<void>;
};

export async function startTcpRelay(targetPort: number): Promise<TcpRelay> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    resume() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        refusing = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
