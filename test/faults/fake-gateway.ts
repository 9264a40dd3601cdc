// FAKE Gateway — for faults the real Gateway cannot be made to produce on demand:
// malformed frames, sequence gaps, malformed cards, pairing for a "remote" device,
// participation denial, old protocols, restarts announced by a shutdown event, floods of
// change events and frames over the client's size limit.
// It speaks just enough of protocol 4 for the official client to connect.
import { WebSocketServer, type WebSocket } from "ws";
import type { AddressInfo } from "node:net";

export type FakeRequest = { id: string; method: string; params: Record<string, unknown> };
export type FakeReply = { ok: true; payload: unknown } | { ok: false; error: Record<string, unknown> };
export type Handler = (req: FakeRequest, socket: FakeSocket) => FakeReply | Promise<FakeReply> | undefined;

export type FakeSocket = {
  /** 1 for the first connection, then 2, 3 … (fake.connections at the time it opened). */
  id: number;
  /** The connect request was answered with hello-ok: events may flow. */
  ready: boolean;
  /** Bytes queued in this process for the client (a slow consumer makes it grow). */
  bufferedAmount(): number;
  /** The socket is open (frames sent now reach the client). */
  isOpen(): boolean;
  send(frame: unknown): void;
  raw(data: string | Buffer): void;
  event(event: string, payload: unknown, seq?: number): void;
  close(code?: number, reason?: string): void;
};

export type FakeGateway = {
  url: string;
  requests: FakeRequest[];
  connections: number;
  /** progressCard.get bookkeeping per connection: a read is in flight from its request to its reply. */
  reads: ReadLedger;
  /** The open socket of the latest connection. */
  socket(): FakeSocket | null;
  close(): Promise<void>;
};

export type ReadLedger = {
  total: number;
  /** The most reads of one session ever in flight at once on one connection. */
  maxInFlightPerSession: number;
  /** Session keys that ever had two reads in flight at once. */
  overlapped: Set<string>;
  /** Reads in flight now, over all connections. */
  inFlight: number;
};

export const FAKE_METHODS = [
  "progressCard.get",
  "progressCard.put",
  "progressCard.refresh",
  "sessions.subscribe",
  "sessions.list",
  "board.get",
];

export function helloOk(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "hello-ok",
    protocol: 4,
    server: { version: "fake" },
    features: {
      methods: FAKE_METHODS,
      events: ["progressCard.changed", "sessions.changed"],
      capabilities: ["progress-card-agent-scope-v1"],
    },
    auth: { role: "operator", scopes: ["operator.read", "operator.write"] },
    policy: { tickIntervalMs: 30_000 },
    ...overrides,
  };
}

/**
 * `onConnect` answers the connect request (default: hello-ok). `handle` answers every
 * other request; unhandled sessions.subscribe/list get an empty roster, progressCard.get null.
 */
export async function startFakeGateway(opts: { onConnect?: (req: FakeRequest) => FakeReply; handle?: Handler } = {}): Promise<FakeGateway> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const requests: FakeRequest[] = [];
  let latest: FakeSocket | null = null;
  const state = { connections: 0 };
  const reads: ReadLedger = { total: 0, maxInFlightPerSession: 0, overlapped: new Set(), inFlight: 0 };
  const readsBySession = new Map<string, number>();

  wss.on("connection", (ws: WebSocket) => {
    state.connections += 1;
    // A client that drops the socket mid-send (e.g. over its size limit) is not the fake's failure.
    ws.on("error", () => undefined);
    const sock: FakeSocket = {
      id: state.connections,
      ready: false,
      bufferedAmount: () => ws.bufferedAmount,
      isOpen: () => ws.readyState === ws.OPEN,
      send: (frame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame)),
      raw: (data) => ws.readyState === ws.OPEN && ws.send(data),
      event: (event, payload, seq) => sock.send({ type: "event", event, payload, ...(seq !== undefined ? { seq } : {}) }),
      close: (code = 1000, reason = "") => ws.close(code, reason),
    };
    latest = sock;
    sock.event("connect.challenge", { nonce: `nonce-${state.connections}`, ts: Date.now() });
    ws.on("message", async (data) => {
      let frame: { type?: string; id?: string; method?: string; params?: Record<string, unknown> };
      try {
        frame = JSON.parse(String(data));
      } catch {
        return;
      }
      if (frame.type !== "req" || !frame.id || !frame.method) return;
      const req: FakeRequest = { id: frame.id, method: frame.method, params: frame.params ?? {} };
      requests.push(req);
      const readKey = req.method === "progressCard.get" ? `${sock.id}\u0000${String(req.params.sessionKey)}` : null;
      if (readKey) {
        const n = (readsBySession.get(readKey) ?? 0) + 1;
        readsBySession.set(readKey, n);
        reads.total += 1;
        reads.inFlight += 1;
        reads.maxInFlightPerSession = Math.max(reads.maxInFlightPerSession, n);
        if (n > 1) reads.overlapped.add(String(req.params.sessionKey));
      }
      try {
        let reply: FakeReply | undefined;
        if (req.method === "connect") reply = opts.onConnect ? opts.onConnect(req) : { ok: true, payload: helloOk() };
        else reply = (await opts.handle?.(req, sock)) ?? defaultReply(req);
        if (!reply) return;
        if (reply.ok) sock.send({ type: "res", id: req.id, ok: true, payload: reply.payload });
        else sock.send({ type: "res", id: req.id, ok: false, error: reply.error });
        if (req.method === "connect" && reply.ok) sock.ready = true;
      } finally {
        if (readKey) {
          const n = readsBySession.get(readKey)! - 1;
          if (n === 0) readsBySession.delete(readKey);
          else readsBySession.set(readKey, n);
          reads.inFlight -= 1;
        }
      }
    });
  });

  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    requests,
    reads,
    get connections() {
      return state.connections;
    },
    socket: () => latest,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}

function defaultReply(req: FakeRequest): FakeReply {
  if (req.method === "sessions.subscribe") return { ok: true, payload: { subscribed: true, list: { sessions: [] } } };
  if (req.method === "sessions.list") return { ok: true, payload: { sessions: [] } };
  if (req.method === "progressCard.get") return { ok: true, payload: { card: null } };
  return { ok: false, error: { code: "INVALID_REQUEST", message: `fake gateway: ${req.method} not scripted` } };
}

export function card(sessionKey: string, revision: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sessionKey,
    revision,
    updatedAt: Date.now(),
    markdown: `Revision ${revision}`,
    steps: [{ step: "Work", status: "in_progress" }],
    ...extra,
  };
}
