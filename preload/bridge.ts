// The Electron preload's API, built from an ipcRenderer-like object so it can be tested
// without Electron. It exposes exactly the contract's verbs — one IPC channel each — and
// the two events; a page never gets ipcRenderer or a generic send.
import { channelFor, EVENT_CHANNEL, type DeskApi, type DeskEvent, type DeskMethod } from "./contract.ts";
import type { DeskChange } from "../main/core/types.ts";
import type { Settings } from "./contract.ts";

export type IpcRendererLike = {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
};

export function buildPreloadApi(ipc: IpcRendererLike): DeskApi {
  const call = <T>(method: DeskMethod, ...args: unknown[]): Promise<T> => ipc.invoke(channelFor(method), ...args) as Promise<T>;
  const subscribe = <T>(type: DeskEvent["type"], listener: (value: T) => void): (() => void) => {
    const handler = (_event: unknown, payload: unknown): void => {
      const e = payload as DeskEvent | null;
      if (!e || e.type !== type) return;
      listener((e.type === "change" ? e.change : e.settings) as T);
    };
    ipc.on(EVENT_CHANNEL, handler);
    return () => void ipc.removeListener(EVENT_CHANNEL, handler);
  };
  // Frozen plain functions: nothing the page can walk back to ipcRenderer through.
  return Object.freeze({
    snapshot: () => call("snapshot"),
    dismiss: (card, revision, confirmed) => call("dismiss", card, revision, confirmed),
    refresh: (card, retry) => call("refresh", card, retry),
    retryConnection: (gatewayId) => call("retryConnection", gatewayId),
    getSettings: () => call("getSettings"),
    updateSettings: (patch) => call("updateSettings", patch),
    saveGateway: (input) => call("saveGateway", input),
    removeGateway: (gatewayId) => call("removeGateway", gatewayId),
    openExternal: (url) => call("openExternal", url),
    openPage: (page, card) => (card === undefined ? call("openPage", page) : call("openPage", page, card)),
    copyDiagnostics: () => call("copyDiagnostics"),
    onChange: (listener: (c: DeskChange) => void) => subscribe<DeskChange>("change", listener),
    onSettings: (listener: (s: Settings) => void) => subscribe<Settings>("settings", listener),
  } satisfies DeskApi);
}
