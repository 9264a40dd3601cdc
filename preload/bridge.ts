// The Electron preload's API, built from an ipcRenderer-like object so it can be tested
// without Electron. It exposes exactly the contract's verbs — one IPC channel each, named
// by the verb (common/desk-proxy.ts) — and the two events; a page never gets ipcRenderer
// or a generic send.
import type { DeskApi, DeskEvent } from "../common/contract.ts";
import { channelFor, EVENT_CHANNEL } from "../common/verbs.ts";
import { buildDeskApi } from "../common/desk-proxy.ts";

export type IpcRendererLike = {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
};

export function buildPreloadApi(ipc: IpcRendererLike): DeskApi {
  return buildDeskApi({
    invoke: (method, args) => ipc.invoke(channelFor(method), ...args),
    listen(listener) {
      const handler = (_event: unknown, payload: unknown): void => listener(payload as DeskEvent);
      ipc.on(EVENT_CHANNEL, handler);
      return () => void ipc.removeListener(EVENT_CHANNEL, handler);
    },
  });
}
