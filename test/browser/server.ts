// A tiny static HTTP server for browser suites: fixed in-memory files, each with its own
// headers (a page's Content-Security-Policy is sent as an HTTP header, as the app's is).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type StaticFile = { type: string; body: string; headers?: Record<string, string> };

export type StaticServer = { origin: string; paths: ReadonlySet<string>; close(): Promise<void> };

export async function startStaticServer(files: Readonly<Record<string, StaticFile>>): Promise<StaticServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = Object.hasOwn(files, path) ? files[path] : undefined;
    if (req.method !== "GET" || file === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": file.type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      ...file.headers,
    });
    res.end(file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    paths: new Set(Object.keys(files)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
