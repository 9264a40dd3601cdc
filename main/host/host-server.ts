// The browser host: the built pages and the page contract over a loopback WebSocket, for
// machines without Electron and for tests. Everything sits under a per-launch secret path
// (`/<secret>/…`), so relative asset URLs carry it without cookies; Host and Origin are
// checked on every request and socket, so a DNS-rebinding page cannot talk to it.
//
// Two origins. Pages of one origin can read each other (same-origin fetch), so Settings —
// the only page allowed to change Gateways and login items — is served from a second
// loopback listener with its own port and secret. A socket's caller is decided by the
// listener it reached (and its Origin header, which a browser page cannot forge), never by
// anything the page says.
//
// Anything a local client sends is answered or dropped, never fatal: every server, socket
// and WebSocket error has a handler; headers and requests have timeouts; sockets, message
// size, message rate, calls in flight and unread output are capped per listener or socket,
// and unread output also for the host as a whole (unread-budget.ts).
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream";
import type { WebSocket } from "ws";
import type { DeskEvent } from "../../common/contract.ts";
import { cardSlotKey } from "../../common/keys.ts";
import { isPage, pageOfPath, pagePath, ROOT_PAGE, type Page } from "../../common/pages.ts";
import type { DeskService } from "../core/desk-service.ts";
import { pageContentSecurityPolicy, pageHeaders, replyHeaders, resolvePageFile } from "../core/page-files.ts";
import { TokenBucket } from "../core/cards/token-bucket.ts";
import { silentLogger, type Logger } from "../core/logger.ts";
import { EventPacer } from "./event-pacing.ts";
import { closeListener, DEFAULT_HOST_LIMITS, listen, rawReply, type HostLimits, type Listener } from "./host-listener.ts";
import { UnreadBudget } from "./unread-budget.ts";

export { DEFAULT_HOST_LIMITS, type HostLimits } from "./host-listener.ts";

export type HostOptions = {
  service: DeskService;
  pagesDir: string;
  /** The main origin's port (popover, dashboard); Settings always gets a free port. */
  port?: number;
  /** For tests: fixed secrets instead of random ones. */
  secret?: string;
  settingsSecret?: string;
  limits?: Partial<HostLimits>;
  /** Where unexpected server errors are told (they never stop the host); default stderr, or the logger's warnings. */
  log?: (line: string) => void;
  /** Debug lines (requests, sockets); the host's URL secrets are registered with it as they are made. */
  logger?: Logger;
};

export type Host = {
  /** The popover page's full URL, secret included. */
  url: string;
  origin: string;
  port: number;
  secret: string;
  /** The Settings page's full URL: its own origin, port and secret. */
  settingsUrl: string;
  settingsOrigin: string;
  settingsPort: number;
  settingsSecret: string;
  /** A page's full URL on the origin that serves it. */
  pageUrl(page: Page): string;
  close(): Promise<void>;
};

/** The CSP for a page loaded from `origin` (http://host:port): its own socket only. */
export function contentSecurityPolicy(origin: string): string {
  return pageContentSecurityPolicy(origin.replace(/^http/, "ws"));
}

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;

export async function startHost(opts: HostOptions): Promise<Host> {
  const first = join(opts.pagesDir, pagePath(ROOT_PAGE));
  if (!existsSync(first)) {
    throw new Error(`The pages are not built (${first} is missing): run \`npm run build\`.`);
  }
  const limits: HostLimits = { ...DEFAULT_HOST_LIMITS, ...opts.limits };
  const logger = opts.logger ?? silentLogger;
  const toStderr = (line: string): void => void process.stderr.write(`progress-desk: ${line}\n`);
  const log = opts.log ?? (opts.logger ? (line: string) => logger.warn(line) : toStderr);
  const secret = opts.secret ?? randomBytes(24).toString("base64url");
  const settingsSecret = opts.settingsSecret ?? randomBytes(24).toString("base64url");
  logger.protect(secret);
  logger.protect(settingsSecret);
  const main = await listen(opts.port ?? 0, limits, log);
  let settings: Listener;
  try {
    settings = await listen(0, limits, log);
  } catch (err) {
    main.server.close();
    throw err;
  }

  type Side = {
    name: "main" | "settings";
    listener: Listener;
    secret: string;
    hosts: Set<string>;
    origins: Set<string>;
    /** The page a path below the secret serves here, the other origin's page it redirects to, or the caller of a bridge path. */
    route(rest: string): { file: string } | { redirect: Page } | null;
    caller(rest: string): Page | null;
  };
  const sideFor = (name: Side["name"], listener: Listener, sideSecret: string): Omit<Side, "route" | "caller"> => ({
    name,
    listener,
    secret: sideSecret,
    hosts: new Set([`127.0.0.1:${listener.port}`, `localhost:${listener.port}`]),
    origins: new Set([`http://127.0.0.1:${listener.port}`, `http://localhost:${listener.port}`]),
  });
  /** A side serves its own pages (the first at its root) and its assets, and redirects to the other side's pages. */
  const sideServing = (name: Side["name"], listener: Listener, sideSecret: string, root: Page, own: readonly Page[]): Side => ({
    ...sideFor(name, listener, sideSecret),
    route(rest) {
      if (rest.startsWith("/assets/")) return { file: rest };
      const page = rest === "/" ? root : pageOfPath(rest);
      if (!page) return null;
      return own.includes(page) ? { file: pagePath(page) } : { redirect: page };
    },
    caller(rest) {
      const page = rest.startsWith("/bridge/") ? rest.slice("/bridge/".length) : null;
      return isPage(page) && own.includes(page) ? page : null;
    },
  });
  const mainSide = sideServing("main", main, secret, ROOT_PAGE, [ROOT_PAGE, "dashboard"]);
  const settingsSide = sideServing("settings", settings, settingsSecret, "settings", ["settings"]);
  const sides: Record<Page, Side> = { popover: mainSide, dashboard: mainSide, settings: settingsSide };
  /** A page's URL, on the host name the person already uses (127.0.0.1 or localhost). */
  const pageUrl = (page: Page, hostname = "127.0.0.1"): string => {
    const side = sides[page];
    return `http://${hostname}:${side.listener.port}/${side.secret}${pagePath(page)}`;
  };

  for (const side of [mainSide, settingsSide]) serve(side);

  function serve(side: Side): void {
    const { server, wss } = side.listener;

    /** The path below the secret, or null when the request must be refused. */
    const admit = (req: IncomingMessage, needOrigin: boolean): string | null => {
      if (!side.hosts.has(req.headers.host ?? "")) return null;
      const o = req.headers.origin;
      if (o !== undefined ? !side.origins.has(o) : needOrigin) return null;
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const [, secret, below] = /^\/([^/]+)(\/.*)?$/.exec(path) ?? [];
      if (secret === undefined || !sameSecret(secret, side.secret)) return null;
      return below ?? "/";
    };

    // A refused request closes its connection: a client without the secret cannot keep a slot
    // by keeping its connection alive.
    const refuse = (res: ServerResponse, status: 403 | 404 | 405): void => {
      res.writeHead(status, {
        ...replyHeaders(),
        "content-type": "text/plain; charset=utf-8",
        connection: "close",
        ...(status === 405 ? { allow: "GET, HEAD" } : {}),
      });
      res.end(`${STATUS_CODES[status]}\n`);
    };

    server.on("request", (req, res) => {
      logger.debug("http request", { side: side.name, method: req.method, url: req.url });
      const rest = admit(req, false);
      if (rest === null) return refuse(res, 403);
      if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405);
      const route = side.route(rest);
      if (route === null) return refuse(res, 404);
      const hostname = (req.headers.host ?? "").replace(/:\d+$/, "");
      if ("redirect" in route) {
        res.writeHead(303, { ...replyHeaders(), location: pageUrl(route.redirect, hostname) });
        return res.end();
      }
      const file = resolvePageFile(opts.pagesDir, route.file);
      if (file === null) return refuse(res, 404);
      // The socket the page opens is on the origin it was loaded from, in the form it was loaded with.
      res.writeHead(200, pageHeaders(file, contentSecurityPolicy(`http://${req.headers.host}`)));
      if (req.method === "HEAD") return res.end();
      // pipeline: a client that goes away mid-file closes the file too.
      pipeline(createReadStream(file), res, () => {});
    });

    server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // The HTTP server no longer watches this socket: a reset from here on is ours to handle.
      socket.on("error", () => socket.destroy());
      // A socket needs the secret, an allowed Host and our own Origin (browsers always send it).
      const rest = admit(req, true);
      const caller = rest === null ? null : side.caller(rest);
      logger.debug("bridge upgrade", { side: side.name, url: req.url, caller });
      if (caller === null) return rawReply(socket, 403);
      if (req.method !== "GET") return rawReply(socket, 405, { allow: "GET" });
      const key = req.headers["sec-websocket-key"];
      const version = req.headers["sec-websocket-version"];
      if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket" || !key || !WS_KEY.test(key) || (version !== "8" && version !== "13")) {
        return rawReply(socket, 400);
      }
      if (wss.clients.size >= limits.maxBridgeSockets) return rawReply(socket, 503);
      // Refused handshakes above stay pushable-out: only a bridge socket keeps its slot.
      side.listener.slots.busy(socket);
      wss.handleUpgrade(req, socket, head, (ws) => bridge(ws, caller));
    });
    // Handshakes ws itself finds wrong get the same plain refusal.
    wss.on("wsClientError", (_err, socket) => rawReply(socket as Socket, 400));
  }

  // One budget for the sockets of both listeners: it is the host's memory that must be bounded.
  const unreadBudget = new UnreadBudget(limits.maxUnreadBytesTotal);

  function bridge(ws: WebSocket, caller: Page): void {
    // ws answers bad frames itself (1009 too big, 1007 bad UTF-8, 1002 protocol) and then
    // reports them here; without a listener that report would end the process.
    ws.on("error", () => {});
    unreadBudget.add(ws);
    /** Whether more may be queued on this socket; a client that does not read is dropped instead. */
    const room = (): boolean => {
      if (ws.readyState !== ws.OPEN) return false;
      if (ws.bufferedAmount > limits.maxUnreadBytes) {
        ws.terminate();
        return false;
      }
      return unreadBudget.admit(ws);
    };
    // Sent as bytes (a text frame still): a socket's pending write of strings holds a second,
    // native copy of everything queued, which the budget would not see.
    const send = (msg: unknown, onWritten?: () => void): void => {
      if (room()) ws.send(Buffer.from(JSON.stringify(msg)), { binary: false }, onWritten);
    };
    // Events go out at once, or held back a little while a load's card changes stream in
    // (event-pacing.ts). A reply never overtakes an event held back: the page counts on events and
    // replies arriving in the order they were made.
    const pacer = new EventPacer<DeskEvent>((events) => send(events.length === 1 ? { event: events[0] } : { events }), {
      cardOf: (e) => (e.type === "change" && e.change.type === "card" ? cardSlotKey(e.change.entry) : null),
      endsLoad: (e) => e.type === "change" && e.change.type === "cardsKnown",
    });
    const reply = (msg: unknown, onWritten?: () => void): void => {
      pacer.flush();
      send(msg, onWritten);
    };
    const off = opts.service.subscribe((event) => pacer.push(event));
    // Snapshot replies go out one at a time: a request that comes while an earlier snapshot
    // reply is still queued here (the kernel has not taken it) waits until it has gone, then
    // gets a snapshot made at that moment. A socket that asks again and again without reading
    // holds one snapshot, not one per request; every request still gets its own reply, with
    // its id, in turn (and counts as in flight while it waits, so BUSY bounds the queue).
    const snapshotAsks: { id: number | string; args: unknown }[] = [];
    let snapshotQueued = false;
    const nextSnapshot = async (): Promise<void> => {
      const ask = snapshotAsks.shift();
      if (ask === undefined || ws.readyState !== ws.OPEN) return;
      snapshotQueued = true;
      const msg = await outcome(ask.id, "snapshot", ask.args);
      inFlight -= 1;
      reply(msg, () => {
        snapshotQueued = false;
        void nextSnapshot();
      });
    };
    ws.on("close", () => {
      off();
      pacer.close();
      snapshotAsks.length = 0;
      unreadBudget.delete(ws);
    });
    const messageBudget = new TokenBucket(limits.messagesPerSecond, limits.messageBurst, performance.now());
    let inFlight = 0;
    ws.on("message", (data, isBinary) => {
      if (ws.readyState !== ws.OPEN) return;
      if (!messageBudget.take(performance.now())) {
        ws.close(1008, "too many messages");
        return;
      }
      void answer(data, isBinary);
    });

    async function answer(data: WebSocket.RawData, isBinary: boolean): Promise<void> {
      let msg: unknown;
      try {
        if (isBinary) throw new Error("binary");
        msg = JSON.parse(String(data));
      } catch {
        reply({ id: null, ok: false, error: { code: "BAD_REQUEST", message: "messages are JSON text" } });
        return;
      }
      const m = (typeof msg === "object" && msg !== null && !Array.isArray(msg) ? msg : {}) as {
        id?: unknown;
        method?: unknown;
        args?: unknown;
      };
      const id = typeof m.id === "number" || typeof m.id === "string" ? m.id : null;
      if (id === null || typeof m.method !== "string") {
        reply({ id, ok: false, error: { code: "BAD_REQUEST", message: "a request is {id, method, args}" } });
        return;
      }
      if (inFlight >= limits.maxCallsInFlight) {
        reply({ id, ok: false, error: { code: "BUSY", message: "too many requests in flight on this socket" } });
        return;
      }
      inFlight += 1;
      if (m.method === "snapshot") {
        snapshotAsks.push({ id, args: m.args });
        if (!snapshotQueued) void nextSnapshot();
        return;
      }
      const answered = await outcome(id, m.method, m.args);
      inFlight -= 1;
      reply(answered);
    }

    /** The reply to one call: its result, or why it failed. */
    async function outcome(id: number | string, method: string, args: unknown): Promise<unknown> {
      // Arguments may hold secrets (saveGateway): the logger masks them.
      logger.debug("call", { caller, method, args });
      try {
        const result = await opts.service.call(method, args ?? [], caller);
        return { id, ok: true, result };
      } catch (err) {
        const e = (typeof err === "object" && err !== null ? err : {}) as { code?: unknown; message?: unknown };
        const code = typeof e.code === "string" ? e.code : "FAILED";
        logger.debug("call refused", { caller, method, code, error: e.message });
        return { id, ok: false, error: { code, message: typeof e.message === "string" ? e.message : String(err) } };
      }
    }
  }

  return {
    url: pageUrl("popover"),
    origin: `http://127.0.0.1:${main.port}`,
    port: main.port,
    secret,
    settingsUrl: pageUrl("settings"),
    settingsOrigin: `http://127.0.0.1:${settings.port}`,
    settingsPort: settings.port,
    settingsSecret,
    pageUrl: (page) => pageUrl(page),
    close: async () => {
      await Promise.all([closeListener(main), closeListener(settings)]);
    },
  };
}
