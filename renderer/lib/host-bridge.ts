// The page contract over the browser host's loopback WebSocket. The socket lives under
// the same per-launch secret path as the page itself. Pages in a browser are already in
// the system browser, so links open in a new tab (noopener) and pages switch in place.
import { isSafeExternalUrl, type CardRef, type DeskApi, type DeskEvent, type DeskMethod, type Page, type Settings } from "../../preload/contract.ts";
import type { DeskChange } from "../../main/core/types.ts";
import { DeskError, ERROR_CODES } from "../../main/core/errors.ts";

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/** The page a host path names (`/<secret>/<page>.html`; `/<secret>/` is the origin's first page). */
function pageOf(pathname: string): Page {
  const name = /\/([a-z]+)\.html$/.exec(pathname)?.[1];
  return name === "dashboard" || name === "settings" ? name : "popover";
}

export function connectHostBridge(loc: Location = window.location): DeskApi {
  const secret = loc.pathname.split("/")[1] ?? "";
  // The host decides what a socket may do by the origin it reached (Settings has its own);
  // the page name in the path only says which page of that origin it is.
  const url = `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/${secret}/bridge/${pageOf(loc.pathname)}`;
  const changeListeners = new Set<(c: DeskChange) => void>();
  const settingsListeners = new Set<(s: Settings) => void>();
  const pending = new Map<number, Pending>();
  let queue: string[] = [];
  let nextId = 1;
  let socket: WebSocket | null = null;
  let retryMs = 500;

  const open = (): void => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.addEventListener("open", () => {
      retryMs = 500;
      for (const m of queue) ws.send(m);
      queue = [];
      // After a reconnect the page may have missed changes: tell it to reload its state.
      for (const l of changeListeners) l({ type: "gateways", gateways: [] });
    });
    ws.addEventListener("message", (ev) => {
      let msg: { id?: number; ok?: boolean; result?: unknown; error?: { code: string; message: string }; event?: DeskEvent };
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (msg.event) {
        if (msg.event.type === "change") for (const l of changeListeners) l(msg.event.change);
        else if (msg.event.type === "settings") for (const l of settingsListeners) l(msg.event.settings);
        return;
      }
      const p = typeof msg.id === "number" ? pending.get(msg.id) : undefined;
      if (!p) return;
      pending.delete(msg.id!);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new DeskError(msg.error?.code ?? ERROR_CODES.failed, msg.error?.message ?? "request failed"));
    });
    ws.addEventListener("close", () => {
      socket = null;
      for (const [, p] of pending) p.reject(new DeskError(ERROR_CODES.disconnected, "The Progress Desk host stopped."));
      pending.clear();
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 10_000);
    });
  };
  open();

  const call = <T>(method: DeskMethod, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const msg = JSON.stringify({ id, method, args });
      if (socket?.readyState === WebSocket.OPEN) socket.send(msg);
      else queue.push(msg);
    });

  return {
    snapshot: () => call("snapshot"),
    dismiss: (card, revision, confirmed) => call("dismiss", card, revision, confirmed),
    refresh: (card, retry) => call("refresh", card, retry),
    retryConnection: (id) => call("retryConnection", id),
    getSettings: () => call("getSettings"),
    updateSettings: (patch) => call("updateSettings", patch),
    saveGateway: (input) => call("saveGateway", input),
    removeGateway: (id) => call("removeGateway", id),
    copyDiagnostics: () => call("copyDiagnostics"),
    async openExternal(href) {
      if (!isSafeExternalUrl(href)) return false;
      window.open(href, "_blank", "noopener,noreferrer");
      return true;
    },
    async openPage(page: Page, card?: CardRef) {
      // A page of the other origin is answered with a redirect there (Settings has its own origin).
      const hash = card ? `#card=${encodeURIComponent(JSON.stringify(card))}` : "";
      loc.assign(`./${page}.html${hash}`);
    },
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    onSettings(listener) {
      settingsListeners.add(listener);
      return () => settingsListeners.delete(listener);
    },
  };
}
