// The browser host: the built pages and the page contract over a loopback WebSocket, for
// machines without Electron and for tests. Everything sits under a per-launch secret path
// (`/<secret>/…`), so relative asset URLs carry it without cookies; Host and Origin are
// checked on every request and socket, so a DNS-rebinding page cannot talk to it.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import type { DeskService } from "../core/desk-service.ts";
import { pageContentSecurityPolicy, pageHeaders, resolvePageFile } from "../core/page-files.ts";

export type HostOptions = {
  service: DeskService;
  pagesDir: string;
  port?: number;
  /** For tests: a fixed secret instead of a random one. */
  secret?: string;
};

export type Host = {
  /** The popover page's full URL, secret included. */
  url: string;
  origin: string;
  port: number;
  secret: string;
  close(): Promise<void>;
};

const MAX_MESSAGE_BYTES = 256 * 1024;

export function contentSecurityPolicy(origin: string): string {
  return pageContentSecurityPolicy(origin.replace(/^http/, "ws"));
}

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startHost(opts: HostOptions): Promise<Host> {
  if (!existsSync(join(opts.pagesDir, "popover.html"))) {
    throw new Error(`The pages are not built (${join(opts.pagesDir, "popover.html")} is missing): run \`npm run build\`.`);
  }
  const secret = opts.secret ?? randomBytes(24).toString("base64url");
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const csp = contentSecurityPolicy(origin);

  /** The path below the secret, or null when the request must be refused. */
  const admit = (req: IncomingMessage, needOrigin: boolean): string | null => {
    if (!allowedHosts.has(req.headers.host ?? "")) return null;
    const o = req.headers.origin;
    if (o !== undefined ? !allowedOrigins.has(o) : needOrigin) return null;
    const path = (req.url ?? "/").split("?")[0]!;
    const m = /^\/([^/]+)(\/.*)?$/.exec(path);
    if (!m || !sameSecret(m[1]!, secret)) return null;
    return m[2] ?? "/";
  };

  const refuse = (res: ServerResponse, status = 403): void => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(status === 404 ? "Not found\n" : "Forbidden\n");
  };

  server.on("request", (req, res) => {
    const rest = admit(req, false);
    if (rest === null) return refuse(res);
    if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405);
    const file = resolvePageFile(opts.pagesDir, rest);
    if (file === null) return refuse(res, 404);
    res.writeHead(200, pageHeaders(file, csp));
    if (req.method === "HEAD") return res.end();
    createReadStream(file).pipe(res);
  });

  server.on("upgrade", (req, socket: Socket, head) => {
    // A socket needs the secret, an allowed Host and our own Origin (browsers always send it).
    if (admit(req, true) !== "/bridge") {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => bridge(ws));
  });

  const bridge = (ws: WebSocket): void => {
    const send = (msg: unknown): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
    };
    const off = opts.service.subscribe((event) => send({ event }));
    ws.on("close", off);
    ws.on("message", async (data, isBinary) => {
      let msg: { id?: unknown; method?: unknown; args?: unknown };
      try {
        if (isBinary) throw new Error("binary");
        msg = JSON.parse(String(data));
      } catch {
        send({ id: null, ok: false, error: { code: "BAD_REQUEST", message: "messages are JSON text" } });
        return;
      }
      const id = typeof msg.id === "number" || typeof msg.id === "string" ? msg.id : null;
      if (id === null || typeof msg.method !== "string") {
        send({ id, ok: false, error: { code: "BAD_REQUEST", message: "a request is {id, method, args}" } });
        return;
      }
      try {
        // Least privilege until each socket knows its page: the Settings-only verbs are refused here.
        const result = await opts.service.call(msg.method, msg.args ?? [], "popover");
        send({ id, ok: true, result });
      } catch (err) {
        const e = err as { code?: string; message?: string };
        send({ id, ok: false, error: { code: e.code ?? "FAILED", message: e.message ?? String(err) } });
      }
    });
  };

  return {
    url: `${origin}/${secret}/popover.html`,
    origin,
    port,
    secret,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
