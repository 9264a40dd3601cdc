// The preload of every Progress Desk window (context isolation and sandbox on). It is
// bundled into one file for the sandbox; all it does is expose the contract's verbs.
import { contextBridge, ipcRenderer } from "electron";
import { buildPreloadApi } from "./bridge.ts";

contextBridge.exposeInMainWorld("progressDesk", buildPreloadApi(ipcRenderer));
