// The page contract's transport over the browser host's loopback WebSocket. The socket
// lives under the same per-launch secret path as the page itself. Free of DOM-only types,
// so tests run it in Node against the real host.
import type { DeskEvent, DeskMethod, Page } from "../../common/contract.ts";
import type { DeskTransport } from "../../common/desk-proxy.ts";
import { DeskError, ERROR_CODES } from "../../common/errors.ts";
import { pageOfPath, ROOT_PAGE } from "../../common/pages.ts";

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/** The page a host path names (`/<secret>/<page>.html`; `/<secret>/` is the origin's first page). */
function pageOf(pathname: string): Page {
  return pageOfPath(pathname.slice(pathname.lastIndexOf("/"))) ?? ROOT_PAGE;
}

/** The parts of the page's location the socket address comes from. */
export type LocationLike = { pathname: string; protocol: string; host: string };

/** The host socket as a contract transport; `close` ends it for good (no reconnect). */
export function hostTransport(loc: LocationLike, Socket: typeof WebSocket = WebSocket): DeskTransport & { close(): void } {
  const secret = loc.pathname.split("/")[1] ?? "";
  // The host decides what a socket may do by the origin it reached (Settings has its own);
  // the page name in the path only says which page of that origin it is.
  const url = `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/${secret}/bridge/${pageOf(loc.pathname)}`;
  const listeners = new Set<(event: DeskEvent) => void>();
  const pending = new Map<number, Pending>();
  let queue: string[] = [];
  let nextId = 1;
  let socket: WebSocket | null = null;
  let retryMs = 500;
  let closed = false;

  const open = (): void => {
    if (closed) return;
    const ws = new Socket(url);
    socket = ws;
    ws.addEventListener("open", () => {
      retryMs = 500;
      for (const m of queue) ws.send(m);
      queue = [];
      // After a reconnect the page may have missed changes: tell it to reload its state.
      for (const l of listeners) l({ type: "change", change: { type: "gateways", gateways: [] } });
    });
    ws.addEventListener("message", (ev) => {
      let msg: {
        id?: number;
        ok?: boolean;
        result?: unknown;
        error?: { code: string; message: string };
        event?: DeskEvent;
        events?: DeskEvent[];
      };
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      // Events come one to a message, or several the core emitted together (applied in order,
      // in one task: the page renders them in one update).
      const events = msg.event ? [msg.event] : Array.isArray(msg.events) ? msg.events : null;
      if (events) {
        for (const event of events) for (const l of listeners) l(event);
        return;
      }
      if (typeof msg.id !== "number") return;
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new DeskError(msg.error?.code ?? ERROR_CODES.failed, msg.error?.message ?? "request failed"));
    });
    ws.addEventListener("close", () => {
      socket = null;
      for (const [, p] of pending) p.reject(new DeskError(ERROR_CODES.disconnected, "The Progress Desk host stopped."));
      pending.clear();
      if (closed) return;
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 10_000);
    });
  };
  open();

  const invoke = (method: DeskMethod, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      const msg = JSON.stringify({ id, method, args });
      if (socket?.readyState === Socket.OPEN) socket.send(msg);
      else queue.push(msg);
    });

  return {
    invoke,
    listen(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close() {
      closed = true;
      socket?.close();
    },
  };
}
