import assert from "node:assert/strict";
import { test } from "node:test";
import { buildPreloadApi, type IpcRendererLike } from "../../preload/bridge.ts";
import { CHANNEL_PREFIX, DESK_METHODS, EVENT_CHANNEL } from "../../common/contract.ts";

// A FAKE ipcRenderer: no Electron binary exists where these tests run.
function fakeIpc() {
  const invoked: { channel: string; args: unknown[] }[] = [];
  const listeners = new Map<string, Set<(e: unknown, p: unknown) => void>>();
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      invoked.push({ channel, args });
      return { ok: channel };
    },
    on: (channel, l) => void (listeners.get(channel) ?? listeners.set(channel, new Set()).get(channel)!).add(l),
    removeListener: (channel, l) => void listeners.get(channel)?.delete(l),
  };
  const emit = (payload: unknown) => listeners.get(EVENT_CHANNEL)?.forEach((l) => l({}, payload));
  return { ipc, invoked, listeners, emit };
}

test("the preload exposes exactly the contract's verbs, one channel each", async () => {
  const f = fakeIpc();
  const api = buildPreloadApi(f.ipc);
  assert.deepEqual(Object.keys(api).sort(), [...DESK_METHODS, "onChange", "onSettings"].sort());
  assert.ok(Object.isFrozen(api));
  const card = { gatewayId: "g", sessionKey: "k", agentId: null };
  await api.dismiss(card, 3, true);
  await api.openPage("dashboard");
  await api.openExternal("https://example.com");
  assert.deepEqual(f.invoked, [
    { channel: `${CHANNEL_PREFIX}dismiss`, args: [card, 3, true] },
    { channel: `${CHANNEL_PREFIX}openPage`, args: ["dashboard"] },
    { channel: `${CHANNEL_PREFIX}openExternal`, args: ["https://example.com"] },
  ]);
  for (const v of Object.values(api)) assert.equal(typeof v, "function", "no object through which to reach ipcRenderer");
});

test("events reach only their own listeners, and unsubscribe works", () => {
  const f = fakeIpc();
  const api = buildPreloadApi(f.ipc);
  const changes: unknown[] = [];
  const settings: unknown[] = [];
  const off = api.onChange((c) => changes.push(c));
  api.onSettings((s) => settings.push(s));
  f.emit({ type: "change", change: { type: "sessions", gatewayId: "g", sessions: [] } });
  f.emit({ type: "settings", settings: { showCards: false } });
  f.emit(null);
  f.emit({ type: "bogus" });
  assert.equal(changes.length, 1);
  assert.equal(settings.length, 1);
  off();
  f.emit({ type: "change", change: { type: "sessions", gatewayId: "g", sessions: [] } });
  assert.equal(changes.length, 1);
});
