// The browser host against a real Gateway: the first stdout line, the secret, Host/Origin
// checks (no DNS rebinding), the CSP, and the page contract over its WebSocket.
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
import { createDeskService } from "../../main/core/desk-service.ts";
import { ProgressDesk } from "../../main/core/desk.ts";
import { discoverGateway } from "../../main/core/discovery.ts";
import { memoryBackend, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { until } from "../harness/until.ts";
import { plan } from "./support.ts";

const root = join(import.meta.dirname, "..", "..");
let gw: TestGateway;
let agent: BareClient;
let host: Host;
let desk: ProgressDesk;
let settings: SettingsStore;
const pages = mkdtempSync(join(tmpdir(), "pd-pages-"));

before(async () => {
  // A minimal page tree: this suite tests the host, not the pages.
  mkdirSync(join(pages, "assets"));
  writeFileSync(join(pages, "popover.html"), "<!doctype html><title>Progress Desk</title><script type=module src=./assets/app.js></script>");
  writeFileSync(join(pages, "assets", "app.js"), "export {};");
  writeFileSync(join(tmpdir(), "pd-outside.txt"), "outside");
  gw = await startGateway();
  agent = await connectBareClient(gw);
  const vault = await CredentialVault.open(memoryStorage());
  settings = new SettingsStore(memoryBackend(), vault);
  desk = new ProgressDesk({ gateways: [], vault, clientVersion: "0.0.0-test" });
  const discovered = discoverGateway({ env: {}, explicit: { url: gw.url, token: gw.token } });
  const service = createDeskService({ desk, settings, discovered, openExternal: () => true });
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

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: host.port, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function openSocket(headers: Record<string, string>, path = `/${host.secret}/bridge`): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers });
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
    const ws = await openSocket({ origin: host.origin });
    try {
      const c = rpc(ws);
      const home = await c.call("saveGateway", { label: "Home", color: "#30d158", url: gw.url, token: gw.token });
      const work = await c.call("saveGateway", { label: "Work", color: "#ff9f0a", url: gw.url.replace("127.0.0.1", "localhost"), token: gw.token });
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
    const child: ChildProcess = spawn(process.execPath, [join(root, "main", "cli", "progress-desk.ts"), "host", "--port", "0", "--url", gw.url, "--token", gw.token], {
      env: { PATH: process.env.PATH, HOME: home, PROGRESS_DESK_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
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
    } finally {
      child.kill("SIGINT");
      rmSync(home, { recursive: true, force: true });
    }
  });
});
