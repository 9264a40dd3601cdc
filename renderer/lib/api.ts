// The page contract, wherever the page runs: the Electron preload exposes it as
// `window.progressDesk`; in a browser the host serves it over its loopback WebSocket.
import type { DeskApi } from "../../common/contract.ts";
import { connectHostBridge } from "./host-bridge.ts";

declare global {
  interface Window {
    progressDesk?: DeskApi;
  }
}

let api: DeskApi | null = null;

/** One DeskApi per page; the first call picks the transport. */
export function getDeskApi(): DeskApi {
  api ??= window.progressDesk ?? connectHostBridge();
  return api;
}
