// The built preload bundle (dist/preload/preload.cjs, from preload/vite.config.ts), run in a fresh node:vm context the way a sandboxed renderer would: it may require only `electron` (a FAKE contextBridge and ipcRenderer) and must expose exactly the contract's verbs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import vm from "node:vm";
import { DESK_METHODS, EVENT_CHANNEL, type CardRef, type DeskApi } from "../../common/contract.ts";

const root = join(import.meta.dirname, "..", "..");
const bundlePath = join(root, "dist", "preload", "preload.cjs");
const sources = [
  ...["preload.ts", "bridge.ts", "vite.config.ts"].map((f) => join(root, "preload", f)),
  ...["contract.ts", "model.ts"].map((f) => join(root, "common", f)),
];

/** Missing, or older than a source it is built from. */
function needsBuild(): boolean {
  if (!existsSync(bundlePath)) return true;
  const built = statSync(bundlePath).mtimeMs;
  return sources.some((s) => statSync(s).mtimeMs > built);
}

before(() => {
  if (!needsBuild()) return;
  const vite = join(root, "node_modules", "vite", "bin", "vite.js");
  const r = spawnSync(process.execPath, [vite, "build", "--config", join("preload", "vite.config.ts")], { cwd: root, encoding: "utf8" });
  assert.equal(r.status, 0, `preload build failed:\n${r.stdout}\n${r.stderr}`);
  assert.ok(existsSync(bundlePath), "the build wrote dist/preload/preload.cjs");
});

type Listener = (event: unknown, payload: unknown) => void;

/** Runs the bundle in a fresh context with a FAKE `electron`; anything else it requires throws. */
function load() {
  const source = readFileSync(bundlePath, "utf8");
  const required: string[] = [];
  const exposed: [string, unknown][] = [];
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<Listener>>();
  const ipcRenderer = {
    invoke: (channel: string, ...args: unknown[]) => {
      invoked.push([channel, ...args]);
      return Promise.resolve({ from: channel });
    },
    on: (channel: string, l: Listener) => {
      (listeners.get(channel) ?? listeners.set(channel, new Set()).get(channel)!).add(l);
      return ipcRenderer;
    },
    removeListener: (channel: string, l: Listener) => {
      listeners.get(channel)?.delete(l);
      return ipcRenderer;
    },
    send: () => assert.fail("the bundle must not send"),
    sendSync: () => assert.fail("the bundle must not sendSync"),
  };
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.push([key, api]) },
    ipcRenderer,
  };
  const fakeRequire = (name: string): unknown => {
    required.push(name);
    if (name === "electron") return electron;
    throw new Error(`module not found in the sandbox: ${name}`);
  };
  // No process, Buffer, module or Node globals: a sandboxed preload has almost none.
  const context = vm.createContext({});
  const run = vm.compileFunction(source, ["require"], { parsingContext: context, filename: "preload.cjs" });
  run(fakeRequire);
  const emit = (payload: unknown): void => listeners.get(EVENT_CHANNEL)?.forEach((l) => l({ sender: "ipc" }, payload));
  return { required, exposed, invoked, listeners, emit, source };
}

function api(): { api: DeskApi; loaded: ReturnType<typeof load> } {
  const loaded = load();
  assert.equal(loaded.exposed.length, 1);
  return { api: loaded.exposed[0]![1] as DeskApi, loaded };
}

const card: CardRef = { gatewayId: "home", sessionKey: "agent:main:main", agentId: null };

describe("the preload bundle", () => {
  test("is one CommonJS file that requires only electron", () => {
    const { required, source } = load();
    assert.deepEqual(required, ["electron"]);
    assert.equal(/^\s*import\s/m.test(source), false, "no ES import left");
    assert.equal(/require\(\s*["'](?!electron["'])/.test(source), false, "no other require");
  });

  test("exposes exactly one object, as progressDesk", () => {
    const { exposed } = load();
    assert.equal(exposed.length, 1);
    assert.equal(exposed[0]?.[0], "progressDesk");
  });

  test("the object has exactly the contract's verbs plus onChange and onSettings, all functions, frozen", () => {
    const { api: desk } = api();
    assert.deepEqual(Object.keys(desk).sort(), [...DESK_METHODS, "onChange", "onSettings"].sort());
    assert.equal(Object.keys(desk).length, DESK_METHODS.length + 2);
    assert.equal(Object.isFrozen(desk), true);
    for (const [k, v] of Object.entries(desk)) assert.equal(typeof v, "function", k);
    assert.throws(() => {
      (desk as unknown as Record<string, unknown>).invoke = () => undefined;
    }, TypeError);
  });

  test("it offers no way to ipcRenderer or a generic send", () => {
    const { api: desk } = api();
    for (const k of ["ipcRenderer", "send", "sendSync", "invoke", "on", "removeListener", "postMessage", "emit"]) {
      assert.equal(k in desk, false, k);
    }
    assert.equal(Object.getOwnPropertySymbols(desk).length, 0);
  });

  test("dismiss(...) invokes progress-desk:dismiss with the same arguments, and returns the answer", async () => {
    const { api: desk, loaded } = api();
    assert.deepEqual(await desk.dismiss(card, 3, true), { from: "progress-desk:dismiss" });
    assert.deepEqual(loaded.invoked, [["progress-desk:dismiss", card, 3, true]]);
    assert.equal(loaded.invoked[0]?.[1], card, "the card object itself, not a copy");
  });

  test("every verb invokes its own channel", async () => {
    const { api: desk, loaded } = api();
    await desk.snapshot();
    await desk.refresh(card, false);
    await desk.retryConnection("home");
    await desk.getSettings();
    await desk.updateSettings({ trayTitle: false });
    await desk.saveGateway({ label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" });
    await desk.removeGateway("work");
    await desk.openExternal("https://example.com/");
    await desk.openPage("dashboard");
    await desk.openPage("popover", card);
    assert.deepEqual(loaded.invoked, [
      ["progress-desk:snapshot"],
      ["progress-desk:refresh", card, false],
      ["progress-desk:retryConnection", "home"],
      ["progress-desk:getSettings"],
      ["progress-desk:updateSettings", { trayTitle: false }],
      ["progress-desk:saveGateway", { label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" }],
      ["progress-desk:removeGateway", "work"],
      ["progress-desk:openExternal", "https://example.com/"],
      ["progress-desk:openPage", "dashboard"],
      ["progress-desk:openPage", "popover", card],
    ]);
  });

  test("onChange and onSettings hear only their own events on progress-desk:event, and unsubscribe", () => {
    const { api: desk, loaded } = api();
    const changes: unknown[] = [];
    const settings: unknown[] = [];
    const offChange = desk.onChange((c) => changes.push(c));
    const offSettings = desk.onSettings((s) => settings.push(s));
    assert.deepEqual([...loaded.listeners.keys()], [EVENT_CHANNEL]);
    assert.equal(loaded.listeners.get(EVENT_CHANNEL)?.size, 2);
    const change = { type: "sessions", gatewayId: "home", sessions: [] };
    loaded.emit({ type: "change", change });
    loaded.emit({ type: "settings", settings: { trayTitle: true } });
    loaded.emit(null);
    loaded.emit({ type: "other" });
    assert.deepEqual(changes, [change]);
    assert.deepEqual(settings, [{ trayTitle: true }]);
    offChange();
    offSettings();
    assert.equal(loaded.listeners.get(EVENT_CHANNEL)?.size, 0);
    loaded.emit({ type: "change", change });
    assert.equal(changes.length, 1);
    assert.deepEqual(loaded.invoked, [], "listening sends nothing");
  });
});
