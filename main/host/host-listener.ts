// One loopback listener of the browser host: its HTTP server with the request timeouts, its
// WebSocket server (upgrades are the host's to accept), the per-listener connection cap, and
// the raw replies for sockets no response owns. What is served on it is host-server.ts's.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import { replyHeaders } from "../core/page-files.ts";
import { ConnectionSlots } from "./connection-slots.ts";

export type HostLimits = {
  /**
   * Open TCP connections per listener, HTTP and WebSocket together. At the cap a new one takes
   * the place of the oldest connection still waiting for its request; with none waiting, it is
   * dropped on accept.
   */
  maxSockets: number;
  /** Open bridge WebSockets per listener; more are refused with 503. */
  maxBridgeSockets: number;
  /** Largest message a page may send; larger ones close the socket with 1009. */
  maxMessageBytes: number;
  /** Sustained messages per second per socket, and the burst allowed above it; beyond closes with 1008. */
  messagesPerSecond: number;
  messageBurst: number;
  /** Requests of one socket still being answered; more are answered BUSY. */
  maxCallsInFlight: number;
  /** Output a socket has not read yet; beyond it the socket is dropped (the page reconnects and reloads). */
  maxUnreadBytes: number;
  /** Output all bridge sockets of the host (both listeners) have not read; over it, those holding the most are dropped. */
  maxUnreadBytesTotal: number;
  /** A request's headers, and the whole request, must arrive within these (slow clients are dropped). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
};

export const DEFAULT_HOST_LIMITS: Readonly<HostLimits> = Object.freeze({
  maxSockets: 128,
  maxBridgeSockets: 64,
  maxMessageBytes: 256 * 1024,
  messagesPerSecond: 100,
  messageBurst: 200,
  maxCallsInFlight: 32,
  maxUnreadBytes: 16 * 1024 * 1024,
  maxUnreadBytesTotal: 64 * 1024 * 1024,
  // Loopback clients send their headers at once; more time only helps one holding slots.
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 30_000,
});

/** A raw HTTP reply on a socket that no ServerResponse owns (upgrade refusals, parse errors). */
export function rawReply(socket: Socket, status: number, extra: Record<string, string> = {}): void {
  const body = `${STATUS_CODES[status] ?? "Error"}\n`;
  const headers = {
    ...replyHeaders(),
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
    ...extra,
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  // A client that never reads or closes must not hold the socket: end, then drop it soon.
  socket.setTimeout(2_000, () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n${head}\r\n${body}`);
}

export type Listener = { server: Server; wss: WebSocketServer; port: number; slots: ConnectionSlots<Socket> };

export async function listen(port: number, limits: HostLimits, log: (line: string) => void): Promise<Listener> {
  // connectionsCheckingInterval: how often the timeouts are enforced (default 30 s would let a slow client linger).
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 4),
    keepAliveTimeout: 5_000,
    maxHeaderSize: 16 * 1024,
  });
  // The socket cap is the slots' (not server.maxConnections, which turns newcomers away first-come).
  const slots = new ConnectionSlots<Socket>(limits.maxSockets);
  server.on("connection", (socket: Socket) => {
    socket.once("close", () => slots.closed(socket));
    slots.accept(socket);
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    slots.busy(req.socket);
    res.once("close", () => slots.idle(req.socket));
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, an accept error (EMFILE, say) is told, not thrown.
  server.on("error", (err) => log(`host server error: ${err.message}`));
  wss.on("error", (err) => log(`host socket server error: ${err.message}`));
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    socket.on("error", () => socket.destroy());
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (err.code === "ECONNRESET" || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const status = err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    rawReply(socket, status);
  });
  return { server, wss, slots, port: (server.address() as AddressInfo).port };
}

/** Ends every socket and stops listening. */
export function closeListener({ server, wss }: Listener): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
