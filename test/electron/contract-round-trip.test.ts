// Every verb of the contract table, through both transports a page has: Electron IPC (the
// preload's API over a FAKE ipcRenderer wired to the FAKE ipcMain of test/electron's kit, the
// real registerIpc behind it) and the browser host's WebSocket bridge (the page's transport
// from renderer/lib/host-bridge.ts against the real host server on loopback). Behind both is the
// real call pipeline (serveContract: argument checks, caller rule) with RECORDING handlers, so
// each call shows which verb ran with which arguments. Valid arguments arrive as sent and the
// result comes back; invalid ones are refused with BAD_REQUEST before any handler; the two
// events reach the page. Needs the built pages (`npm run build`).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { WebSocket as NodeWebSocket } from "ws";
import { ANSWER_PAGE_METHODS, DESK_METHODS, channelFor } from "../../common/contract.ts";
import type { CardRef, DeskApi, DeskEvent, DeskHandlers, DeskMethod, VerbArgs } from "../../common/contract.ts";
import { buildDeskApi, type DeskTransport } from "../../common/desk-proxy.ts";
import type { DeskChange } from "../../common/model.ts";
import { defaultSettings } from "../../common/settings-schema.ts";
import type { Settings } from "../../common/settings-schema.ts";
import { serveContract, type DeskService } from "../../main/core/desk-service.ts";
import { broadcast, registerIpc } from "../../main/electron/ipc.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { buildPreloadApi, type IpcRendererLike } from "../../preload/bridge.ts";
import { hostTransport } from "../../renderer/lib/host-transport.ts";
import { until } from "../harness/until.ts";
import { FakeWebContents, fakeElectron } from "./fake-electron.ts";

const card: CardRef = { gatewayId: "home", sessionKey: "agent:main:main", agentId: null };
const SETTINGS: Settings = { ...defaultSettings(), gateways: [], credentialStorage: "os-keychain" };

/** Valid arguments for every verb (typed by the table: a new verb needs its line here). */
const VALID: { [M in DeskMethod]: VerbArgs<M> } = {
  snapshot: [],
  dismiss: [card, 7, true],
  refresh: [{ ...card, agentId: "main" }, false],
  retryConnection: ["home"],
  getSettings: [],
  updateSettings: [{ trayTitle: false, detector: { silentMinutes: 3 }, notifications: { quietHours: { start: "21:15" } } }],
  saveGateway: [{ label: "Home", color: "#0a84ff", url: "wss://gw.example", token: "t" }],
  removeGateway: ["home"],
  openExternal: ["https://example.com/a?b=c"],
  openPage: ["dashboard", card],
  copyDiagnostics: [],
  openSession: [card],
  openNeed: [{ gatewayId: "home", id: "appr-1" }],
  answerNeed: [
    { gatewayId: "home", id: "appr-1" },
    { kind: "exec", decision: "allow-once" },
  ],
  closePopover: [],
  checkForUpdates: [],
  installUpdate: [],
};

/** Arguments each verb must refuse (at least one list per verb). */
const INVALID: Record<DeskMethod, unknown[][]> = {
  snapshot: [["extra"]],
  dismiss: [
    [card, 0, true],
    [card, 1.5, true],
    [{ gatewayId: "home" }, 1, true],
    [card, 1],
  ],
  refresh: [
    [card, "yes"],
    [null, true],
  ],
  retryConnection: [[7], ["g".repeat(201)]],
  getSettings: [[1]],
  updateSettings: [
    [null],
    [{ detector: { pollingRepeats: 1 } }],
    [{ popoverShortcut: "P" }],
    [{ notifications: { quietHours: { end: "7:30" } } }],
  ],
  saveGateway: [[{ label: "x", color: "#000000", url: "http://gw" }], [{ label: "x", color: "#000000", url: "ws://gw", token: 5 }]],
  removeGateway: [[{ id: "home" }]],
  openExternal: [[{ href: "https://example.com" }]],
  openPage: [["about"], ["dashboard", { gatewayId: "home" }]],
  copyDiagnostics: [["extra"]],
  openSession: [[], [{ gatewayId: "home" }], [{ ...card, sessionKey: 7 }], [card, "extra"]],
  openNeed: [[], [{ gatewayId: "home" }], [{ gatewayId: "home", id: 7 }], [{ gatewayId: "home", id: "x".repeat(513) }]],
  answerNeed: [
    [{ gatewayId: "home", id: "appr-1" }],
    [
      { gatewayId: "home", id: "appr-1" },
      { kind: "exec", decision: "allow-forever" },
    ],
    [
      { gatewayId: "home", id: "appr-1" },
      { kind: "waiting", decision: "deny" },
    ],
    [
      { gatewayId: "home", id: "appr-1" },
      { kind: "exec", decision: "deny", confirmed: true },
    ],
    [
      { gatewayId: "home", id: "ask-1" },
      { kind: "question", cancel: false },
    ],
    [
      { gatewayId: "home", id: "ask-1" },
      { kind: "question", answers: { colour: "Red" } },
    ],
    [
      { gatewayId: "home", id: "appr-1", decision: "deny" },
      { kind: "exec", decision: "deny" },
    ],
  ],
  closePopover: [["now"]],
  checkForUpdates: [["now"]],
  installUpdate: [["1.2.3"]],
};

/** What each recorded handler answers: distinct per verb, of the verb's result type. */
const RESULTS: { [M in DeskMethod]: Awaited<ReturnType<DeskApi[M]>> } = {
  snapshot: { gateways: [] },
  dismiss: { outcome: "confirm", question: "Clear it?" },
  refresh: { status: "pending", key: "agent:main:main", baseline: 3, startedAt: 1 },
  retryConnection: undefined,
  getSettings: SETTINGS,
  updateSettings: { ...SETTINGS, trayTitle: false },
  saveGateway: { ...SETTINGS, collapseByDefault: true },
  removeGateway: { ...SETTINGS, showCards: false },
  openExternal: true,
  openPage: undefined,
  copyDiagnostics: { text: "Progress Desk 1.2.3 on linux\n", copied: true },
  openSession: false,
  openNeed: true,
  answerNeed: {
    gatewayId: "home",
    id: "appr-1",
    kind: "exec",
    sessionKey: null,
    agentId: null,
    summary: "uname -s",
    arrivedAt: 1,
    endedAt: 2,
    outcome: "allowed-once",
    resolvedBy: "Progress Desk",
    text: "allowed once in Progress Desk",
  },
  closePopover: undefined,
  checkForUpdates: {
    state: "ready",
    version: "1.2.3",
    currentVersion: "1.0.0",
    channel: "stable",
    automatic: true,
    result: null,
    quietError: null,
  },
  installUpdate: true,
};

type Recorded = { method: DeskMethod; args: unknown[] };

/** The real call pipeline over RECORDING handlers, plus an event source the test drives. */
function recordingService(): { service: DeskService; calls: Recorded[]; emit(event: DeskEvent): void } {
  const calls: Recorded[] = [];
  const record =
    <M extends DeskMethod>(method: M) =>
    (...args: VerbArgs<M>) => {
      calls.push({ method, args });
      return RESULTS[method];
    };
  const handlers = Object.fromEntries(DESK_METHODS.map((m) => [m, record(m)])) as unknown as DeskHandlers;
  const listeners = new Set<(event: DeskEvent) => void>();
  const service: DeskService = {
    call: serveContract(handlers),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    gateways: () => [],
    openSession: async () => false,
    openNeed: async () => false,
  };
  return { service, calls, emit: (event) => listeners.forEach((l) => l(event)) };
}

/** Electron: registerIpc on the kit's FAKE ipcMain; a FAKE ipcRenderer in the top frame of `page`'s window. */
function electronTransport(service: DeskService, page: "settings" | "popover" | "dashboard" = "settings") {
  const dataDir = mkdtempSync(join(tmpdir(), "pd-round-trip-"));
  const f = fakeElectron({ dataDir, env: {} });
  const contents = new FakeWebContents();
  registerIpc({ ipcMain: f.deps.ipcMain, service, isOurContents: (c) => c === (contents as unknown) });
  const eventListeners = new Set<(event: unknown, payload: unknown) => void>();
  const frame = { url: `app://desk/${page}.html`, parent: null };
  const ipcRenderer: IpcRendererLike = {
    async invoke(channel, ...args) {
      // Electron copies arguments and results with the structured clone algorithm.
      const event = { sender: contents, senderFrame: frame } as unknown as Parameters<typeof f.ipcMain.invoke>[1];
      return structuredClone(await f.ipcMain.invoke(channel, event, ...structuredClone(args)));
    },
    on: (_channel, l) => eventListeners.add(l),
    removeListener: (_channel, l) => eventListeners.delete(l),
  };
  const window = {
    send: (_channel: string, payload: unknown) => eventListeners.forEach((l) => l({}, structuredClone(payload))),
    isDestroyed: () => false,
  };
  return {
    api: buildPreloadApi(ipcRenderer),
    raw: (method: DeskMethod, args: unknown[]) => ipcRenderer.invoke(channelFor(method), ...args),
    deliver: (event: DeskEvent) => broadcast([window], event),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** The host's WebSocket, sending the Origin header a browser would send for the Settings page. */
function socketFrom(origin: string): typeof WebSocket {
  return class extends NodeWebSocket {
    constructor(url: string) {
      super(url, { headers: { origin } });
    }
  } as unknown as typeof WebSocket;
}

const pagesDir = join(import.meta.dirname, "..", "..", "dist", "renderer");

for (const transportName of ["Electron IPC", "host WebSocket"] as const) {
  describe(`the contract over ${transportName}`, () => {
    let recorder: ReturnType<typeof recordingService>;
    let api: DeskApi;
    let raw: (method: DeskMethod, args: unknown[]) => Promise<unknown>;
    let deliver: (event: DeskEvent) => void;
    let cleanup: () => void | Promise<void>;
    /** The popover's api: answering is its verb (and the dashboard's), not the Settings page's. */
    let popoverApi: DeskApi;
    let dashboardApi: DeskApi;

    before(async () => {
      recorder = recordingService();
      if (transportName === "Electron IPC") {
        const e = electronTransport(recorder.service);
        const popover = electronTransport(recorder.service, "popover");
        const dashboard = electronTransport(recorder.service, "dashboard");
        ({ api, raw } = e);
        popoverApi = popover.api;
        dashboardApi = dashboard.api;
        cleanup = () => {
          e.cleanup();
          popover.cleanup();
          dashboard.cleanup();
        };
        deliver = e.deliver;
      } else {
        const host: Host = await startHost({ service: recorder.service, pagesDir, log: () => {} });
        const transport = hostTransport(new URL(host.settingsUrl), socketFrom(host.settingsOrigin));
        const popoverTransport = hostTransport(new URL(host.url), socketFrom(host.origin));
        const dashboardTransport = hostTransport(new URL(host.pageUrl("dashboard")), socketFrom(host.origin));
        // No local verbs: every one goes over the socket (a browser page keeps two at home, below).
        api = buildDeskApi(transport);
        popoverApi = buildDeskApi(popoverTransport);
        dashboardApi = buildDeskApi(dashboardTransport);
        raw = (method, args) => (transport as DeskTransport).invoke(method, args);
        deliver = recorder.emit;
        cleanup = async () => {
          transport.close();
          popoverTransport.close();
          dashboardTransport.close();
          await host.close();
        };
      }
    });
    after(() => cleanup());

    test("every verb arrives at its own handler with the arguments sent, and its result comes back", async () => {
      for (const method of DESK_METHODS) {
        recorder.calls.length = 0;
        const caller = ANSWER_PAGE_METHODS.has(method) ? popoverApi : api;
        const result = await (caller[method] as (...args: unknown[]) => Promise<unknown>)(...VALID[method]);
        assert.deepEqual(recorder.calls, [{ method, args: VALID[method] }], method);
        assert.deepEqual(result, RESULTS[method] ?? null, `${method}: the handler's result (nothing comes back as null)`);
      }
    });

    test("answering from the Settings page is refused FORBIDDEN before any handler runs (Y14)", async () => {
      recorder.calls.length = 0;
      await assert.rejects(api.answerNeed(...VALID.answerNeed), (err: { code?: unknown; message?: unknown }) => {
        assert.equal(err.code, "FORBIDDEN");
        assert.match(String(err.message), /answerNeed is only accepted from the popover and the dashboard \(asked by the settings\)/);
        return true;
      });
      assert.deepEqual(recorder.calls, []);
    });

    test("the dashboard may answer too: its answer reaches the handler as sent (Y14)", async () => {
      recorder.calls.length = 0;
      assert.deepEqual(await dashboardApi.answerNeed(...VALID.answerNeed), RESULTS.answerNeed);
      assert.deepEqual(recorder.calls, [{ method: "answerNeed", args: VALID.answerNeed }]);
    });

    test("a left-out optional argument (undefined, as a page passes it on) stays left out", async () => {
      recorder.calls.length = 0;
      await api.openPage("popover", undefined);
      assert.deepEqual(recorder.calls, [{ method: "openPage", args: ["popover"] }]);
    });

    test("invalid arguments are refused with BAD_REQUEST before any handler runs", async () => {
      recorder.calls.length = 0;
      for (const method of DESK_METHODS) {
        for (const args of INVALID[method]) {
          await assert.rejects(raw(method, args), (err: { code?: unknown; message?: unknown }) => {
            assert.equal(err.code, "BAD_REQUEST", `${method} ${JSON.stringify(args)}: ${String(err.message)}`);
            return true;
          });
        }
      }
      assert.deepEqual(recorder.calls, []);
    });

    test("an unknown verb is refused", async () => {
      // Over IPC it has no channel at all; the host's socket names it in the refusal.
      const refusal =
        transportName === "Electron IPC"
          ? /No handler registered for 'progress-desk:format'/
          : { code: "BAD_REQUEST", message: 'unknown method "format"' };
      await assert.rejects(raw("format" as DeskMethod, []), refusal);
    });

    test("both events reach the page's listeners", async () => {
      const changes: DeskChange[] = [];
      const settings: Settings[] = [];
      const offChange = api.onChange((c) => changes.push(c));
      const offSettings = api.onSettings((s) => settings.push(s));
      const change: DeskChange = { type: "sessions", gatewayId: "home", sessions: [] };
      deliver({ type: "change", change });
      deliver({ type: "settings", settings: SETTINGS });
      await until("both events", () => changes.some((c) => c.type === "sessions") && settings.length === 1);
      assert.deepEqual([changes.find((c) => c.type === "sessions"), settings[0]], [change, SETTINGS]);
      offChange();
      offSettings();
    });
  });
}
