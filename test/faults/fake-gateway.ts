// FAKE Gateway — for faults the real Gateway cannot be made to produce on demand:
// malformed frames, sequence gaps, malformed cards, pairing for a "remote" device,
// participation denial, old protocols, restarts announced by a shutdown event.
// It speaks just enough of protocol 4 for the official client to connect.
import { WebSocketServer, type WebSocket } from "ws";
import type { AddressInfo } from "node:net";

export type FakeRequest = { id: string; method: string; params: Record<string, unknown> };
export type FakeReply = { ok: true; payload: unknown } | { ok: false; error: Record<string, unknown> };
export type Handler = (req: FakeRequest, socket: FakeSocket) => FakeReply | Promise<FakeReply> | undefined;

export type FakeSocket = {
  send(frame: unknown): void;
  raw(data: string | Buffer): void;
  event(event: string, payload: unknown, seq?: number): void;
  close(code?: number, reason?: string): void;
};

export type FakeGateway = {
  url: string;
  requests: FakeRequest[];
  connections: number;
  /** The open socket of the latest connection. */
  socket(): FakeSocket | null;
  close(): Promise<void>;
};

export const FAKE_METHODS = ["progressCard.get", "progressCard.put", "progressCard.refresh", "sessions.subscribe", "sessions.list", "board.get"];

export function helloOk(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "hello-ok",
    protocol: 4,
    server: { version: "fake" },
    features: { methods: FAKE_METHODS, events: ["progressCard.changed", "sessions.changed"], capabilities: ["progress-card-agent-scope-v1"] },
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

  wss.on("connection", (ws: WebSocket) => {
    state.connections += 1;
    const sock: FakeSocket = {
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
      let reply: FakeReply | undefined;
      if (req.method === "connect") reply = opts.onConnect ? opts.onConnect(req) : { ok: true, payload: helloOk() };
      else reply = (await opts.handle?.(req, sock)) ?? defaultReply(req);
      if (!reply) return;
      if (reply.ok) sock.send({ type: "res", id: req.id, ok: true, payload: reply.payload });
      else sock.send({ type: "res", id: req.id, ok: false, error: reply.error });
    });
  });

  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    requests,
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
  return { sessionKey, revision, updatedAt: Date.now(), markdown: `Revision ${revision}`, steps: [{ step: "Work", status: "in_progress" }], ...extra };
}
