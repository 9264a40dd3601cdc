// TRAP Gateway (a FAKE): a loopback server that answers the handshake just far enough to
// receive `connect` (docs/gateway.md §2.1), and records every frame and every auth field
// the client sends. Used to prove that no secret saved for another Gateway reaches it.
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { helloOk } from "./fake-gateway.ts";

export type TrappedConnect = {
  /** `params.auth` exactly as sent (token, password, bootstrapToken, deviceToken …). */
  auth: Record<string, unknown> | null;
  /** `params.device`: the identity proof (public key and signature, never a secret). */
  device: Record<string, unknown> | null;
};

export type TrapGateway = {
  url: string;
  connects: TrappedConnect[];
  /** Every text frame received, raw: searched for secrets as plain substrings. */
  frames: string[];
  close(): Promise<void>;
};

export async function startTrapGateway(): Promise<TrapGateway> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const connects: TrappedConnect[] = [];
  const frames: string[] = [];
  wss.on("connection", (ws: WebSocket) => {
    const send = (frame: unknown): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    send({ type: "event", event: "connect.challenge", payload: { nonce: `trap-${connects.length + 1}`, ts: Date.now() } });
    ws.on("message", (data) => {
      const text = String(data);
      frames.push(text);
      let frame: { type?: string; id?: string; method?: string; params?: Record<string, unknown> };
      try {
        frame = JSON.parse(text);
      } catch {
        return;
      }
      if (frame.type !== "req" || !frame.id) return;
      if (frame.method === "connect") {
        const p = frame.params ?? {};
        connects.push({ auth: (p.auth as Record<string, unknown>) ?? null, device: (p.device as Record<string, unknown>) ?? null });
        send({ type: "res", id: frame.id, ok: true, payload: helloOk() });
        return;
      }
      // Enough for the client to settle: an empty roster, no cards.
      const payload =
        frame.method === "sessions.subscribe"
          ? { subscribed: true, list: { sessions: [] } }
          : frame.method === "sessions.list"
            ? { sessions: [] }
            : { card: null };
      send({ type: "res", id: frame.id, ok: true, payload });
    });
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    connects,
    frames,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
