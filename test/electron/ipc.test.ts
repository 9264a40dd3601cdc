// The contract over Electron IPC (main/electron/ipc.ts): who may call (top frame of our window on app://desk), one handler per verb, calls forwarded to the desk service, own actions noted first, events broadcast to live windows. A FAKE ipcMain, FAKE webContents and FAKE frames stand in for Electron.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { IpcMain, WebContents } from "electron";
import { broadcast, isTrustedSender, pageOfSender, registerIpc, type SenderEvent } from "../../main/electron/ipc.ts";
import { channelFor, DESK_METHODS, EVENT_CHANNEL, type CardRef, type DeskEvent, type DeskMethod } from "../../common/contract.ts";
import { FakeIpcMain } from "./fake-electron.ts";
import { isDeskError } from "../../common/errors.ts";

type FakeFrame = { url: string; parent: FakeFrame | null };

const ours = { id: 1, name: "our popover" } as unknown as WebContents;
const other = { id: 2, name: "someone else's contents" } as unknown as WebContents;
const isOurContents = (c: WebContents): boolean => c === ours;

function topFrame(url: string): FakeFrame {
  return { url, parent: null };
}

function eventFrom(sender: WebContents, frame: FakeFrame | null): SenderEvent {
  return { sender, senderFrame: frame } as unknown as SenderEvent;
}

const trusted = (): SenderEvent => eventFrom(ours, topFrame("app://desk/popover.html"));
const card: CardRef = { gatewayId: "home", sessionKey: "agent:main:main", agentId: "main" };

describe("isTrustedSender", () => {
  test("the top frame of our window on app://desk is trusted", () => {
    assert.equal(isTrustedSender(trusted(), isOurContents), true);
    assert.equal(isTrustedSender(eventFrom(ours, topFrame("app://desk/settings.html#card=%7B%7D")), isOurContents), true);
    assert.equal(isTrustedSender(eventFrom(ours, topFrame("app://desk/")), isOurContents), true);
  });

  test("a subframe is not, even on our origin inside our window", () => {
    const sub: FakeFrame = { url: "app://desk/popover.html", parent: topFrame("app://desk/popover.html") };
    assert.equal(isTrustedSender(eventFrom(ours, sub), isOurContents), false);
  });

  test("no frame (navigated away or destroyed) is not", () => {
    assert.equal(isTrustedSender(eventFrom(ours, null), isOurContents), false);
    assert.equal(isTrustedSender({ sender: ours } as unknown as SenderEvent, isOurContents), false);
  });

  test("another origin in our window is not", () => {
    for (const url of [
      "https://evil.example/",
      "app://other/popover.html",
      "app://desk.evil/",
      "file:///tmp/popover.html",
      "about:blank",
      "devtools://devtools/",
    ]) {
      assert.equal(isTrustedSender(eventFrom(ours, topFrame(url)), isOurContents), false, url);
    }
  });

  test("a webContents that is not one of our windows is not, whatever its URL", () => {
    const seen: WebContents[] = [];
    const check = (c: WebContents): boolean => {
      seen.push(c);
      return c === ours;
    };
    assert.equal(isTrustedSender(eventFrom(other, topFrame("app://desk/popover.html")), check), false);
    assert.deepEqual(seen, [other], "asked about the sender itself");
  });
});

type ServiceCall = { method: string; args: unknown; caller?: string };

function setup(result: (method: string, args: unknown) => Promise<unknown> = async (m) => ({ answered: m })) {
  const ipcMain = new FakeIpcMain();
  const log: string[] = [];
  const calls: ServiceCall[] = [];
  const ownActions: CardRef[] = [];
  const warnings: string[] = [];
  const callers: string[] = [];
  const dispose = registerIpc({
    ipcMain: ipcMain as unknown as Pick<IpcMain, "handle" | "removeHandler">,
    service: {
      call: async (method, args, caller) => {
        log.push(`call:${method}`);
        calls.push({ method, args });
        callers.push(caller);
        return result(method, args);
      },
    },
    isOurContents,
    onOwnAction: (c) => {
      log.push("own");
      ownActions.push(c);
    },
    warn: (m) => warnings.push(m),
  });
  return { ipcMain, log, calls, callers, ownActions, warnings, dispose };
}

/** Example arguments for each verb (validation is the service's job; these are just forwarded). */
const ARGS: Record<DeskMethod, unknown[]> = {
  snapshot: [],
  dismiss: [card, 3, true],
  refresh: [card, false],
  retryConnection: ["home"],
  getSettings: [],
  updateSettings: [{ trayTitle: false }],
  saveGateway: [{ label: "Home", color: "#0a84ff", url: "ws://127.0.0.1:18789" }],
  removeGateway: ["home"],
  openExternal: ["https://example.com/"],
  openPage: ["popover", card],
  copyDiagnostics: [],
  openSession: [card],
  openNeed: [{ gatewayId: "home", id: "appr-1" }],
  answerNeed: [
    { gatewayId: "home", id: "appr-1" },
    { kind: "exec", decision: "deny" },
  ],
  closePopover: [],
  checkForUpdates: [],
  installUpdate: [],
};

describe("registerIpc", () => {
  test("registers exactly one handler per verb, on progress-desk:<verb>", () => {
    const { ipcMain } = setup();
    assert.deepEqual(
      [...ipcMain.handlers.keys()],
      DESK_METHODS.map((m) => `progress-desk:${m}`),
    );
    assert.deepEqual([...ipcMain.handlers.keys()], DESK_METHODS.map(channelFor));
  });

  test("a trusted call is forwarded as (method, args) and answered with the service's result", async () => {
    const { ipcMain, calls } = setup();
    for (const method of DESK_METHODS) {
      assert.deepEqual(await ipcMain.invoke(channelFor(method), trusted(), ...ARGS[method]), { answered: method }, method);
    }
    assert.deepEqual(
      calls,
      DESK_METHODS.map((method) => ({ method, args: ARGS[method] })),
    );
  });

  test("the service's failure reaches the caller unchanged", async () => {
    const failure = new Error("BAD_REQUEST: dismiss(card, revision, confirmed)");
    const { ipcMain } = setup(async () => {
      throw failure;
    });
    await assert.rejects(ipcMain.invoke(channelFor("dismiss"), trusted(), "nonsense"), (err) => err === failure);
  });

  test("an untrusted sender is refused on every verb; the service is never called", async () => {
    const { ipcMain, calls, ownActions, warnings } = setup();
    const untrusted: [string, SenderEvent][] = [
      ["https://evil.example/", eventFrom(ours, topFrame("https://evil.example/"))],
      ["app://other/popover.html", eventFrom(other, topFrame("app://other/popover.html"))],
      ["no frame", eventFrom(ours, null)],
      ["app://desk/popover.html", eventFrom(ours, { url: "app://desk/popover.html", parent: topFrame("app://desk/popover.html") })],
      ["app://desk/popover.html", eventFrom(other, topFrame("app://desk/popover.html"))],
    ];
    for (const method of DESK_METHODS) {
      for (const [, event] of untrusted) {
        await assert.rejects(ipcMain.invoke(channelFor(method), event, ...ARGS[method]), (err: unknown) => {
          assert.ok(isDeskError(err, "UNTRUSTED_SENDER"));
          assert.equal(err.code, "UNTRUSTED_SENDER");
          assert.equal(err.message, "Refused: this frame may not talk to Progress Desk.");
          return true;
        });
      }
    }
    assert.deepEqual(calls, []);
    assert.deepEqual(ownActions, []);
    assert.equal(warnings.length, DESK_METHODS.length * untrusted.length);
    assert.equal(warnings[0], 'Progress Desk refused "snapshot" from an untrusted frame (https://evil.example/).');
    assert.equal(warnings[2], 'Progress Desk refused "snapshot" from an untrusted frame (no frame).');
  });

  test("trust is checked on every call: a window that navigated away is refused", async () => {
    const { ipcMain, calls } = setup();
    const frame = topFrame("app://desk/popover.html");
    const event = eventFrom(ours, frame);
    assert.deepEqual(await ipcMain.invoke(channelFor("snapshot"), event), { answered: "snapshot" });
    frame.url = "https://evil.example/";
    await assert.rejects(ipcMain.invoke(channelFor("snapshot"), event), (e: unknown) => isDeskError(e, "UNTRUSTED_SENDER"));
    assert.equal(calls.length, 1);
  });

  test("dismiss and refresh note the card as the person's own action, before the service runs", async () => {
    const { ipcMain, log, ownActions } = setup();
    await ipcMain.invoke(channelFor("dismiss"), trusted(), card, 3, true);
    await ipcMain.invoke(channelFor("refresh"), trusted(), card, true);
    assert.deepEqual(log, ["own", "call:dismiss", "own", "call:refresh"]);
    assert.deepEqual(ownActions, [card, card]);
    assert.equal(ownActions[0], card, "the card as sent");
  });

  test("other verbs, even with a card argument, are not own actions", async () => {
    const { ipcMain, log, ownActions } = setup();
    for (const method of DESK_METHODS) {
      if (method === "dismiss" || method === "refresh") continue;
      await ipcMain.invoke(channelFor(method), trusted(), ...ARGS[method]);
    }
    await ipcMain.invoke(channelFor("openPage"), trusted(), card);
    assert.deepEqual(ownActions, []);
    assert.equal(log.filter((l) => l === "own").length, 0);
  });

  test("dismiss without a card-shaped first argument notes nothing (the service rejects it)", async () => {
    const { ipcMain, ownActions, calls } = setup();
    for (const bad of [null, "home", { gatewayId: "home" }, { gatewayId: 1, sessionKey: "k" }, { sessionKey: "k" }]) {
      await ipcMain.invoke(channelFor("dismiss"), trusted(), bad, 1, false);
    }
    await ipcMain.invoke(channelFor("refresh"), trusted());
    assert.deepEqual(ownActions, []);
    assert.equal(calls.length, 6);
  });

  test("without onOwnAction or warn, calls still work and refusals still reject", async () => {
    const ipcMain = new FakeIpcMain();
    const calls: ServiceCall[] = [];
    registerIpc({
      ipcMain: ipcMain as unknown as Pick<IpcMain, "handle" | "removeHandler">,
      service: { call: async (method, args) => void calls.push({ method, args }) },
      isOurContents,
    });
    await ipcMain.invoke(channelFor("dismiss"), trusted(), card, 1, true);
    await assert.rejects(ipcMain.invoke(channelFor("dismiss"), eventFrom(other, topFrame("app://desk/")), card, 1, true), (e: unknown) =>
      isDeskError(e, "UNTRUSTED_SENDER"),
    );
    assert.deepEqual(calls, [{ method: "dismiss", args: [card, 1, true] }]);
  });

  test("the returned function removes every handler, so registering again works", async () => {
    const first = setup();
    first.dispose();
    assert.deepEqual(first.ipcMain.removed, DESK_METHODS.map(channelFor));
    assert.equal(first.ipcMain.handlers.size, 0);
    await assert.rejects(first.ipcMain.invoke(channelFor("snapshot"), trusted()), /No handler registered/);
    assert.deepEqual(first.calls, []);
    // A fresh registration on the same ipcMain does not collide.
    registerIpc({
      ipcMain: first.ipcMain as unknown as Pick<IpcMain, "handle" | "removeHandler">,
      service: { call: async () => 1 },
      isOurContents,
    });
    assert.equal(first.ipcMain.handlers.size, DESK_METHODS.length);
  });
});

describe("the calling page, from the checked frame", () => {
  test("pageOfSender maps our three pages (and app://desk/, which serves the popover), nothing else", () => {
    const page = (url: string) => pageOfSender(eventFrom(ours, topFrame(url)));
    assert.equal(page("app://desk/popover.html"), "popover");
    assert.equal(page("app://desk/"), "popover");
    assert.equal(page("app://desk/dashboard.html"), "dashboard");
    assert.equal(page("app://desk/settings.html"), "settings");
    assert.equal(page("app://desk/settings.html#card=%7B%7D"), "settings", "the fragment does not matter");
    assert.equal(page("app://desk/settings.html?x=1"), "settings");
    for (const url of [
      "app://desk/Settings.html",
      "app://desk/settings.htm",
      "app://desk/x/settings.html",
      "app://desk/assets/app.js",
      "not a url",
    ]) {
      assert.equal(page(url), null, url);
    }
    assert.equal(pageOfSender(eventFrom(ours, null)), null);
  });

  test("each call reaches the service with the page of the frame that sent it", async () => {
    const { ipcMain, callers } = setup();
    for (const [url, expected] of [
      ["app://desk/popover.html", "popover"],
      ["app://desk/dashboard.html", "dashboard"],
      ["app://desk/settings.html", "settings"],
      ["app://desk/", "popover"],
    ] as const) {
      await ipcMain.invoke(channelFor("saveGateway"), eventFrom(ours, topFrame(url)), ...ARGS.saveGateway);
      assert.equal(callers.at(-1), expected, url);
    }
  });

  test("a page cannot name itself: arguments claiming to be Settings do not change the caller", async () => {
    const { ipcMain, callers } = setup();
    await ipcMain.invoke(channelFor("updateSettings"), trusted(), { launchAtLogin: true }, "settings");
    assert.deepEqual(callers, ["popover"]);
  });

  test("a trusted window on a path that is none of our pages is refused before the service", async () => {
    const { ipcMain, calls, warnings } = setup();
    await assert.rejects(ipcMain.invoke(channelFor("snapshot"), eventFrom(ours, topFrame("app://desk/assets/app.js"))), (e: unknown) =>
      isDeskError(e, "UNTRUSTED_SENDER"),
    );
    assert.deepEqual(calls, []);
    assert.equal(warnings.length, 1);
  });
});

describe("broadcast", () => {
  function contents(destroyed: boolean) {
    const sent: [string, unknown][] = [];
    return {
      sent,
      isDestroyed: () => destroyed,
      send: (channel: string, payload: unknown) => {
        if (destroyed) throw new Error("Object has been destroyed");
        sent.push([channel, payload]);
      },
    };
  }

  test("sends the event on progress-desk:event to every live window, skipping destroyed ones", () => {
    const a = contents(false);
    const dead = contents(true);
    const b = contents(false);
    const event: DeskEvent = { type: "change", change: { type: "sessions", gatewayId: "home", sessions: [] } as never };
    broadcast([a, dead, b], event);
    assert.equal(EVENT_CHANNEL, "progress-desk:event");
    assert.deepEqual(a.sent, [["progress-desk:event", event]]);
    assert.deepEqual(b.sent, [["progress-desk:event", event]]);
    assert.deepEqual(dead.sent, []);
    assert.equal(a.sent[0]?.[1], event, "the event object itself");
  });

  test("accepts any iterable and does nothing when there is no window", () => {
    const a = contents(false);
    const set = new Set([a]);
    const event: DeskEvent = { type: "settings", settings: { trayTitle: true } as never };
    broadcast(set.values(), event);
    broadcast([], event);
    assert.deepEqual(a.sent, [["progress-desk:event", event]]);
  });
});
