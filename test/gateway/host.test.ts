// The browser host against a real Gateway: the first stdout line, the secret, Host/Origin
// checks (no DNS rebinding), the CSP, the page contract over its WebSocket, and Settings on
// its own origin (the only socket that may change Gateways).
import { once } from "node:events";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import type { DeskService } from "../../main/core/desk-service.ts";
import type { DeskEvent, Page } from "../../common/contract.ts";
import type { ProgressDesk } from "../../main/core/desk.ts";
import type { SettingsStore } from "../../main/core/settings.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { until } from "../harness/until.ts";
import { wireCore } from "../harness/wired-core.ts";
import { plan } from "./support.ts";

const root = join(import.meta.dirname, "..", "..");
let gw: TestGateway;
let agent: BareClient;
let host: Host;
let desk: ProgressDesk;
let settings: SettingsStore;
const callers: { method: string; caller: Page | undefined }[] = [];
/** The listener of every socket the host subscribed, so a test can emit events as the core does. */
const subscribers = new Set<(event: DeskEvent) => void>();
/** Runs inside the next calls the host makes to the service (a test's events emitted while a call is answered). */
let duringCall: (() => void) | null = null;
const pages = mkdtempSync(join(tmpdir(), "pd-pages-"));

before(async () => {
  // A minimal page tree: this suite tests the host, not the pages.
  mkdirSync(join(pages, "assets"));
  for (const page of ["popover", "dashboard", "settings"]) {
    writeFileSync(join(pages, `${page}.html`), `<!doctype html><title>${page}</title><script type=module src=./assets/app.js></script>`);
  }
  writeFileSync(join(pages, "assets", "app.js"), "export {};");
  writeFileSync(join(tmpdir(), "pd-outside.txt"), "outside");
  gw = await startGateway();
  agent = await connectBareClient(gw);
  let real: DeskService;
  ({ settings, desk, service: real } = await wireCore(gw));
  // Records which caller the host names for each call (the service itself decides what a caller may do).
  const service: DeskService = {
    ...real,
    call: (method, args, caller) => {
      callers.push({ method, caller });
      duringCall?.();
      return real.call(method, args, caller);
    },
    subscribe: (listener) => {
      subscribers.add(listener);
      const off = real.subscribe(listener);
      return () => {
        subscribers.delete(listener);
        off();
      };
    },
  };
  desk.configure(service.gateways());
  desk.start();
  host = await startHost({ service, pagesDir: pages });
});

after(async () => {
  await host?.close();
  desk?.stop();
  await agent?.close();
  await gw?.dispose();
  rmSync(pages, { recursive: true, force: true });
});

type Reply = { status: number; headers: Record<string, unknown>; body: string };

function get(path: string, headers: Record<string, string> = {}, opts: { method?: string; port?: number } = {}): Promise<Reply> {
  const port = opts.port ?? host.port;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function openSocket(headers: Record<string, string>, path = `/${host.secret}/bridge/popover`, port = host.port): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function rpc(ws: WebSocket) {
  let id = 0;
  const events: any[] = [];
  const waiting = new Map<number, (m: any) => void>();
  ws.on("message", (d) => {
    const m = JSON.parse(String(d));
    if (m.event) events.push(m.event);
    else if (m.events) events.push(...m.events);
    else waiting.get(m.id)?.(m);
  });
  return {
    events,
    call: (method: string, ...args: unknown[]) =>
      new Promise<any>((resolve) => {
        id += 1;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method, args }));
      }),
  };
}

describe("requests", () => {
  test("the page is served under the secret with a strict CSP", async () => {
    const r = await get(`/${host.secret}/popover.html`);
    assert.equal(r.status, 200);
    const csp = String(r.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, new RegExp(`connect-src ws://127\\.0\\.0\\.1:${host.port}`));
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(r.headers["x-content-type-options"], "nosniff");
    assert.equal((await get(`/${host.secret}/assets/app.js`)).status, 200, "relative assets carry the secret in their path");
  });

  test("without the secret, with a wrong one, or outside the pages: refused", async () => {
    assert.equal((await get("/popover.html")).status, 403);
    assert.equal((await get("/")).status, 403);
    assert.equal((await get(`/${"x".repeat(host.secret.length)}/popover.html`)).status, 403);
    assert.equal((await get(`/${host.secret}/../../pd-outside.txt`)).status, 404);
    assert.equal((await get(`/${host.secret}/%2e%2e/%2e%2e/pd-outside.txt`)).status, 404);
    assert.equal((await get(`/${host.secret}/nothing.html`)).status, 404);
  });

  test("a foreign Host header (DNS rebinding) or Origin is refused even with the secret", async () => {
    assert.equal((await get(`/${host.secret}/popover.html`, { host: `evil.example:${host.port}` })).status, 403);
    assert.equal((await get(`/${host.secret}/popover.html`, { host: "127.0.0.1:1" })).status, 403);
    assert.equal((await get(`/${host.secret}/popover.html`, { origin: "http://evil.example" })).status, 403);
    assert.equal((await get(`/${host.secret}/popover.html`, { host: `localhost:${host.port}` })).status, 200);
  });

  test("every reply says nosniff and no-store, refusals included; 405 names the methods allowed", async () => {
    const replies: [string, Reply][] = [
      ["200", await get(`/${host.secret}/popover.html`)],
      ["403", await get("/popover.html")],
      ["404", await get(`/${host.secret}/nothing.html`)],
      ["405", await get(`/${host.secret}/popover.html`, {}, { method: "POST" })],
      ["303", await get(`/${host.secret}/settings.html`)],
      ["settings 403", await get("/settings.html", {}, { port: host.settingsPort })],
      ["settings 405", await get(`/${host.settingsSecret}/settings.html`, {}, { method: "DELETE", port: host.settingsPort })],
    ];
    for (const [name, r] of replies) {
      assert.equal(String(r.status), name.replace(/^settings /, ""), name);
      assert.equal(r.headers["x-content-type-options"], "nosniff", `${name}: nosniff`);
      assert.equal(r.headers["cache-control"], "no-store", `${name}: no-store`);
    }
    assert.equal(replies[3]![1].headers["allow"], "GET, HEAD");
    assert.equal(replies[6]![1].headers["allow"], "GET, HEAD");
  });

  test("the CSP lets the page reach the socket of the origin it was loaded from: 127.0.0.1 or localhost", async () => {
    for (const [hostname, port, path] of [
      ["127.0.0.1", host.port, `/${host.secret}/popover.html`],
      ["localhost", host.port, `/${host.secret}/popover.html`],
      ["localhost", host.settingsPort, `/${host.settingsSecret}/settings.html`],
    ] as const) {
      const r = await get(path, { host: `${hostname}:${port}` }, { port });
      assert.equal(r.status, 200);
      const connect = /connect-src ([^;]+)/.exec(String(r.headers["content-security-policy"]))?.[1];
      assert.equal(connect, `ws://${hostname}:${port}`, `${hostname}:${port}`);
    }
  });
});

describe("Settings on its own origin", () => {
  test("settings.html is served only there; each origin sends the other's pages there", async () => {
    assert.notEqual(host.settingsPort, host.port);
    assert.notEqual(host.settingsSecret, host.secret);
    assert.equal(host.settingsUrl, `http://127.0.0.1:${host.settingsPort}/${host.settingsSecret}/settings.html`);
    const moved = await get(`/${host.secret}/settings.html`);
    assert.equal(moved.status, 303);
    assert.equal(moved.headers.location, host.settingsUrl);
    const movedLocal = await get(`/${host.secret}/settings.html`, { host: `localhost:${host.port}` });
    assert.equal(movedLocal.headers.location, host.settingsUrl.replace("127.0.0.1", "localhost"), "the host name the person uses is kept");
    const served = await get(`/${host.settingsSecret}/settings.html`, {}, { port: host.settingsPort });
    assert.equal(served.status, 200);
    assert.match(served.body, /<title>settings<\/title>/);
    assert.match(
      String(served.headers["content-security-policy"]),
      new RegExp(`connect-src ws://127\\.0\\.0\\.1:${host.settingsPort}(;|$)`),
    );
    assert.equal((await get(`/${host.settingsSecret}/assets/app.js`, {}, { port: host.settingsPort })).status, 200);
    const back = await get(`/${host.settingsSecret}/dashboard.html`, {}, { port: host.settingsPort });
    assert.equal(back.status, 303);
    assert.equal(back.headers.location, host.url.replace("popover.html", "dashboard.html"));
    // Each origin knows only its own secret.
    assert.equal((await get(`/${host.secret}/settings.html`, {}, { port: host.settingsPort })).status, 403);
    assert.equal((await get(`/${host.settingsSecret}/popover.html`)).status, 403);
  });

  test("a socket's caller is fixed by the origin it reached, not by what the page claims", async () => {
    const mainOrigin = { origin: host.origin };
    const settingsOrigin = { origin: host.settingsOrigin };
    const settingsPath = `/${host.settingsSecret}/bridge/settings`;
    // A popover or dashboard page (even a compromised one) cannot get a Settings socket.
    await assert.rejects(openSocket(mainOrigin, `/${host.secret}/bridge/settings`), /403/);
    await assert.rejects(openSocket(mainOrigin, settingsPath, host.settingsPort), /403/, "its Origin is not the Settings origin");
    await assert.rejects(openSocket(settingsOrigin, `/${host.settingsSecret}/bridge/popover`, host.settingsPort), /403/);
    await assert.rejects(openSocket(mainOrigin, `/${host.secret}/bridge`), /403/, "a socket names its page");
    for (const [headers, path, port, caller] of [
      [mainOrigin, `/${host.secret}/bridge/popover`, host.port, "popover"],
      [mainOrigin, `/${host.secret}/bridge/dashboard`, host.port, "dashboard"],
      [settingsOrigin, settingsPath, host.settingsPort, "settings"],
    ] as const) {
      const ws = await openSocket(headers, path, port);
      try {
        const r = await rpc(ws).call("getSettings");
        assert.equal(r.ok, true);
        assert.deepEqual(callers.at(-1), { method: "getSettings", caller }, path);
      } finally {
        ws.close();
      }
    }
  });

  test("a popover or dashboard socket may not change Gateways or login items; the Settings socket may", async () => {
    const ws = await openSocket({ origin: host.origin }, `/${host.secret}/bridge/dashboard`);
    try {
      const c = rpc(ws);
      for (const [method, args] of [
        ["saveGateway", [{ label: "Sneaky", color: "#000000", url: "ws://127.0.0.1:1" }]],
        ["removeGateway", ["any-id"]],
        ["updateSettings", [{ launchAtLogin: true }]],
        ["updateSettings", [{ popoverShortcut: "CommandOrControl+Shift+P" }]],
      ] as const) {
        const r = await c.call(method, ...args);
        assert.equal(r.ok, false, `${method} from the dashboard must be refused`);
        assert.equal(r.error.code, "FORBIDDEN", `${method}: ${r.error.message}`);
      }
      assert.equal(settings.view().launchAtLogin, false);
    } finally {
      ws.close();
    }
    const sws = await openSocket({ origin: host.settingsOrigin }, `/${host.settingsSecret}/bridge/settings`, host.settingsPort);
    try {
      const r = await rpc(sws).call("updateSettings", { popoverShortcut: "" });
      assert.equal(r.ok, true, "Settings itself may");
    } finally {
      sws.close();
    }
  });
});

describe("the bridge socket", () => {
  test("refused without the secret, without Origin, with a foreign Origin or Host", async () => {
    const good = { origin: host.origin };
    await assert.rejects(openSocket(good, "/bridge"), /403/);
    await assert.rejects(openSocket(good, `/${"y".repeat(host.secret.length)}/bridge`), /403/);
    await assert.rejects(openSocket({}), /403/);
    await assert.rejects(openSocket({ origin: "http://evil.example" }), /403/);
    await assert.rejects(openSocket({ origin: host.origin, host: `rebound.example:${host.port}` }), /403/);
  });

  test("carries the contract: snapshot, live changes, actions; bad requests get clear errors", async () => {
    const ws = await openSocket({ origin: host.origin });
    try {
      const c = rpc(ws);
      const snap = await c.call("snapshot");
      assert.equal(snap.ok, true);
      assert.equal(snap.result.gateways.length, 1);
      const gatewayId = snap.result.gateways[0].id;

      const key = await agent.createSession();
      await agent.put(key, { plan: plan("completed", "completed") });
      const change = await until("the put to reach the page as a change event", () =>
        c.events.find((e) => e.type === "change" && e.change.type === "card" && e.change.entry.sessionKey === key && e.change.entry.card),
      );
      assert.equal(change.change.entry.derived.state, "complete");
      assert.equal(JSON.stringify(c.events).includes(gw.token), false, "the token never reaches a page");

      const dismissed = await c.call("dismiss", { gatewayId, sessionKey: key, agentId: null }, 1, false);
      assert.deepEqual(dismissed, { id: dismissed.id, ok: true, result: { outcome: "cleared" } });

      for (const [method, args, code] of [
        ["nope", [], "BAD_REQUEST"],
        ["dismiss", [{ gatewayId }, 1, false], "BAD_REQUEST"],
        ["dismiss", [{ gatewayId, sessionKey: key, agentId: null }, 0, false], "BAD_REQUEST"],
        ["openPage", ["file:///etc/passwd"], "BAD_REQUEST"],
        ["saveGateway", [{ url: "http://x", label: "x", color: "#000000" }], "BAD_REQUEST"],
        ["refresh", [{ gatewayId: "no-such-gateway", sessionKey: key, agentId: null }, false], "FAILED"],
      ] as const) {
        const r = await c.call(method, ...args);
        assert.equal(r.ok, false, `${method} must fail`);
        assert.equal(r.error.code, code, `${method}: ${r.error.message}`);
      }
      const ext = await c.call("openExternal", "javascript:alert(1)");
      assert.equal(ext.result, false, "only http, https and mailto links open");

      ws.send("not json");
      ws.send(Buffer.from([1, 2, 3]));
      const still = await c.call("getSettings");
      assert.equal(still.ok, true, "garbage does not break the socket");
      assert.equal(still.result.showCards, true);
    } finally {
      ws.close();
    }
  });

  test("events the core emits in one turn: the first goes out at once, the rest follow in order as one message", async () => {
    const ws = await openSocket({ origin: host.origin });
    try {
      // Only messages of settings events: the core may emit a change of its own meanwhile.
      const raw: any[] = [];
      ws.on("message", (d) => {
        const m = JSON.parse(String(d));
        const events: any[] = m.event ? [m.event] : (m.events ?? []);
        if (events.length > 0 && events.every((e) => e.type === "settings")) raw.push(m);
      });
      // The host subscribes a socket when it opens; the newest listener is this socket's.
      const listener = [...subscribers].at(-1)!;
      const base = (await rpc(ws).call("getSettings")).result;
      const burst = [1, 2, 3].map((n): DeskEvent => ({ type: "settings", settings: { ...base, showCards: n % 2 === 1 } }));
      listener(burst[0]!);
      await new Promise<void>((resolve) => setImmediate(resolve)); // a later turn: on its own again
      for (const e of burst) listener(e);
      await until("the burst to arrive", () => raw.length >= 3);
      assert.deepEqual(raw, [{ event: burst[0] }, { event: burst[0] }, { events: [burst[1], burst[2]] }]);
    } finally {
      ws.close();
    }
  });

  test("card changes streaming in one per turn, as a start-up's reads finish, go out a few to a message, in order", async () => {
    const ws = await openSocket({ origin: host.origin });
    try {
      const raw: string[][] = [];
      ws.on("message", (d) => {
        const m = JSON.parse(String(d));
        const events: any[] = m.event ? [m.event] : (m.events ?? []);
        const ours = events.filter((e) => e.type === "change" && String(e.change.entry?.sessionKey).startsWith("pace-"));
        if (ours.length > 0) raw.push(ours.map((e) => e.change.entry.sessionKey));
      });
      const listener = [...subscribers].at(-1)!;
      const count = 60;
      for (let i = 0; i < count; i++) {
        listener({ type: "change", change: { type: "card", entry: { gatewayId: "g", agentId: null, sessionKey: `pace-${i}` } } } as never);
        await new Promise<void>((resolve) => setImmediate(resolve)); // each in its own turn
      }
      await until("every card change", () => raw.flat().length >= count);
      assert.deepEqual(
        raw.flat(),
        Array.from({ length: count }, (_, i) => `pace-${i}`),
      );
      assert.ok(raw.length <= count / 4, `${raw.length} messages for ${count} card changes`);
    } finally {
      ws.close();
    }
  });

  test("a reply never overtakes an event emitted before it: events held back for their turn go out first", async () => {
    const ws = await openSocket({ origin: host.origin });
    try {
      const order: string[] = [];
      ws.on("message", (d) => {
        const m = JSON.parse(String(d));
        const events: any[] = m.event ? [m.event] : (m.events ?? []);
        for (const e of events) if (e.type === "settings" && typeof e.settings.mark === "string") order.push(e.settings.mark);
        if (m.id === "marked") order.push("reply");
      });
      const listener = [...subscribers].at(-1)!;
      const mark = (name: string): DeskEvent => ({ type: "settings", settings: { mark: name } as never });
      // Two events while the call is answered: the first goes out at once, the second is held for the turn.
      duringCall = () => {
        duringCall = null;
        listener(mark("first"));
        listener(mark("second"));
      };
      ws.send(JSON.stringify({ id: "marked", method: "getSettings", args: [] }));
      await until("the reply", () => order.includes("reply"));
      assert.deepEqual(order, ["first", "second", "reply"]);
    } finally {
      duringCall = null;
      ws.close();
    }
  });

  test("settings changes reach every page, and secrets come back only as flags", async () => {
    const ws = await openSocket({ origin: host.origin });
    try {
      const c = rpc(ws);
      const r = await c.call("updateSettings", { collapseByDefault: true });
      assert.equal(r.result.collapseByDefault, true);
      await until("the settings event", () => c.events.some((e) => e.type === "settings" && e.settings.collapseByDefault === true));
      await c.call("updateSettings", { collapseByDefault: false });
    } finally {
      ws.close();
    }
  });
});

describe("several Gateways (G5)", () => {
  test("Gateways saved in Settings replace the local default; each keys its own cards", async () => {
    const ws = await openSocket({ origin: host.settingsOrigin }, `/${host.settingsSecret}/bridge/settings`, host.settingsPort);
    try {
      const c = rpc(ws);
      const home = await c.call("saveGateway", { label: "Home", color: "#30d158", url: gw.url, token: gw.token });
      const work = await c.call("saveGateway", {
        label: "Work",
        color: "#ff9f0a",
        url: gw.url.replace("127.0.0.1", "localhost"),
        token: gw.token,
      });
      assert.equal(work.result.gateways.length, 2);
      assert.equal(JSON.stringify(work.result).includes(gw.token), false);
      const ids = work.result.gateways.map((g: { id: string }) => g.id);
      const key = await agent.createSession();
      await agent.put(key, { markdown: "seen by both" });
      let snap: any = await until("the card from both Gateways", async () => {
        const s = (await c.call("snapshot")).result;
        return s.gateways.length === 2 && s.gateways.every((g: any) => g.cards.some((e: any) => e.sessionKey === key)) && s;
      });
      assert.deepEqual(snap.gateways.map((g: any) => g.id).sort(), [...ids].sort());
      assert.deepEqual(snap.gateways.map((g: any) => g.label).sort(), ["Home", "Work"]);
      for (const g of snap.gateways) {
        const e = g.cards.find((x: any) => x.sessionKey === key);
        assert.equal(e.gatewayId, g.id, "every card is keyed by the Gateway it came from");
      }
      for (const id of ids) await c.call("removeGateway", id);
      void home;
      snap = await until("back to the zero-configuration Gateway", async () => {
        const s = (await c.call("snapshot")).result;
        return s.gateways.length === 1 && s.gateways[0].connection.state === "connected" && s;
      });
      assert.equal(snap.gateways[0].label, "Local");
    } finally {
      ws.close();
    }
  });
});

describe("progress-desk host", () => {
  test("prints the popover URL with its secret as the first stdout line, and serves it", async () => {
    const home = mkdtempSync(join(tmpdir(), "pd-host-cli-"));
    const child: ChildProcess = spawn(
      process.execPath,
      [join(root, "main", "cli", "progress-desk.ts"), "host", "--port", "0", "--url", gw.url, "--token", gw.token],
      {
        env: { PATH: process.env.PATH, HOME: home, PROGRESS_DESK_HOME: home },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let out = "";
      let err = "";
      child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
      const first = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no URL line; stderr: ${err}`)), 20_000);
        child.stdout!.setEncoding("utf8").on("data", (c: string) => {
          out += c;
          if (out.includes("\n")) {
            clearTimeout(t);
            resolve(out.split("\n")[0]!);
          }
        });
      });
      const m = /^http:\/\/127\.0\.0\.1:(\d+)\/([A-Za-z0-9_-]{20,})\/popover\.html$/.exec(first);
      assert.ok(m, `first line is the page URL: ${first}`);
      const page = await fetch(first);
      assert.equal(page.status, 200, "the built popover page is served (npm run build builds it)");
      assert.match(await page.text(), /<script type="module"[^>]* src="\.\/assets\//);
      assert.equal((await fetch(`http://127.0.0.1:${m[1]}/popover.html`)).status, 403);
      const settingsLine = await until(
        "the Settings address on stderr",
        () => /^progress-desk: settings: (http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{20,}\/settings\.html)$/m.exec(err)?.[1],
      );
      const settingsPage = await fetch(settingsLine);
      assert.equal(settingsPage.status, 200, "the Settings page is served on its own origin");
      assert.notEqual(new URL(settingsLine).port, m[1]);
      assert.equal(out.split("\n")[0], first, "the first line is still the popover's address");
    } finally {
      // The host writes its data folder on the way out: remove it only once the host has exited.
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, "exit");
      child.kill("SIGINT");
      await exited;
      rmSync(home, { recursive: true, force: true });
    }
  });
});
