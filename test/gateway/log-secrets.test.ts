// Nothing logs a secret: full `watch --verbose` and `host --verbose` sessions against a real
// Gateway, with a known token (not hex, so only the logger's knowledge of it can mask it), a card
// written through the Gateway, and (host) a Gateway saved with a second known token through the
// Settings socket. Then the whole output is searched for the tokens, their fragments, the
// device token the Gateway issued, and (in the host's log lines) its URL secrets.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { until } from "../harness/until.ts";
import { MIN_FRAGMENT } from "../../main/core/log-redaction.ts";
import { plan } from "./support.ts";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "dist", "cli", "progress-desk.js");
// Dots and dashes keep it out of every generic "looks like a key" pattern: only the known value is masked.
const TOKEN = "pd.Kq7-Wm2x.Zr9Lp-Ht4v.Nb6Yc-Jd3s.Fg8";
const SAVED_TOKEN = "pd.Vt5-Qa8n.Xe2Ks-Lw7c.Ry4Hd-Pm9u.Bz1";

let gw: TestGateway;
let agent: BareClient;
const homes: string[] = [];

before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
  gw = await startGateway({ token: TOKEN });
  agent = await connectBareClient(gw);
});

after(async () => {
  await agent?.close();
  await gw?.dispose();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function cleanEnv(): { env: NodeJS.ProcessEnv; home: string } {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("OPENCLAW_")) env[k] = v;
  const home = mkdtempSync(join(tmpdir(), "pd-logsecrets-"));
  homes.push(home);
  return { env: { ...env, HOME: home, PROGRESS_DESK_HOME: join(home, "pd") }, home: join(home, "pd") };
}

type Run = { child: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> };

/** Runs the bin with the token on standard input (never in the process list). */
function run(args: string[], env: NodeJS.ProcessEnv): Run {
  const argv = [bin, ...args, "--verbose", "--url", gw.url, "--token-file", "-"];
  const child = spawn(process.execPath, argv, { env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.end(`${TOKEN}\n`);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

/** Every MIN_FRAGMENT-long piece of `secret` (and the whole) that `text` holds. */
function leaks(text: string, secret: string): string[] {
  const found = new Set<string>();
  if (text.includes(secret)) found.add(secret);
  for (let i = 0; i + MIN_FRAGMENT <= secret.length; i++) {
    const piece = secret.slice(i, i + MIN_FRAGMENT);
    if (text.includes(piece)) found.add(piece);
  }
  return [...found];
}

/** The device token the Gateway issued to this home's Progress Desk (kept in its credentials file). */
function deviceTokens(home: string): string[] {
  const file = join(home, "credentials.json");
  if (!existsSync(file)) return [];
  const tokens: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      try {
        walk(JSON.parse(v));
      } catch {
        // not nested JSON
      }
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "token" && typeof x === "string") tokens.push(x);
        else walk(x);
      }
    }
  };
  walk(JSON.parse(readFileSync(file, "utf8")));
  return tokens;
}

describe("no secret in the log", () => {
  test("watch --verbose: a whole session's output holds no part of the token", async () => {
    const { env, home } = cleanEnv();
    const w = run(["watch", "--json"], env);
    try {
      await until("watch to connect", () => /"state":"connected"/.test(w.out()), 45_000);
      const key = await agent.createSession();
      await agent.put(key, { markdown: `Deploying with token ${TOKEN}? no.`, plan: plan("completed", "in_progress") });
      await until("the card's line", () => w.out().includes(`"sessionKey":"${key}"`));
      await until("the card's debug line", () => w.err().includes("debug: card read"));
      w.child.kill("SIGINT");
      assert.equal(await w.exit, 0);
    } finally {
      w.child.kill("SIGKILL");
    }
    const log = w.err();
    // The card itself is the agent's text, shown as written on stdout; the log is what must stay clean.
    assert.deepEqual(leaks(log, TOKEN), [], `the token leaked into the log:\n${log}`);
    const devices = deviceTokens(home);
    assert.ok(devices.length > 0, "the Gateway issued a device token");
    for (const device of devices) assert.deepEqual(leaks(log, device), [], "the issued device token leaked into the log");
    // The debug lines ran, and the one that carries the Gateway's configuration was masked.
    assert.match(log, /progress-desk: debug: connection connected/);
    assert.match(log, /progress-desk: debug: gateway added .*\[redacted\]/);
  });

  test("host --verbose: the whole output holds no part of either token, the log lines none of the URL secrets", async () => {
    const { env, home } = cleanEnv();
    const h = run(["host"], env);
    let url = "";
    let settingsUrl = "";
    try {
      await until(
        "the page URL and the settings line",
        () => {
          url = h.out().split("\n")[0] ?? "";
          settingsUrl = /progress-desk: settings: (\S+)/.exec(h.err())?.[1] ?? "";
          return url !== "" && h.out().includes("\n") && settingsUrl !== "";
        },
        30_000,
      );
      await until("the host's core to connect", () => h.err().includes("debug: connection connected"), 45_000);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const settings = new URL(settingsUrl);
      const bridge = `ws://${settings.host}${settings.pathname.replace(/settings\.html$/, "bridge/settings")}`;
      const ws = new WebSocket(bridge, { headers: { origin: settings.origin } });
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      const reply = new Promise<{ ok: boolean }>((resolve) =>
        ws.on("message", (d) => {
          const msg = JSON.parse(String(d)) as { id?: number; ok: boolean };
          if (msg.id === 1) resolve(msg);
        }),
      );
      const gateway = { label: "Work", color: "#ff9f0a", url: "ws://127.0.0.1:9", token: SAVED_TOKEN };
      ws.send(JSON.stringify({ id: 1, method: "saveGateway", args: [gateway] }));
      assert.equal((await reply).ok, true);
      ws.close();
      const key = await agent.createSession();
      await agent.put(key, { plan: plan("completed") });
      await until("the card's debug line", () => h.err().includes(key));
      h.child.kill("SIGINT");
      assert.equal(await h.exit, 0);
    } finally {
      h.child.kill("SIGKILL");
    }
    const all = h.out() + h.err();
    assert.deepEqual(leaks(all, TOKEN), [], `the Gateway token leaked:\n${all}`);
    assert.deepEqual(leaks(all, SAVED_TOKEN), [], `the saved token leaked:\n${all}`);
    for (const device of deviceTokens(home)) assert.deepEqual(leaks(all, device), [], "the issued device token leaked");
    assert.match(all, /debug: call .*saveGateway.*\[redacted\]/, "the call was logged, its token masked");
    // The URL and the settings line are the host's contract (scripts read them); no log line repeats a secret.
    const logLines = h
      .err()
      .split("\n")
      .filter((l) => /^progress-desk: (debug|info|warn|error): /.test(l))
      .join("\n");
    assert.match(logLines, /debug: http request/);
    for (const secret of [new URL(url).pathname.split("/")[1]!, new URL(settingsUrl).pathname.split("/")[1]!]) {
      assert.deepEqual(leaks(logLines, secret), [], `a host URL secret leaked:\n${logLines}`);
    }
  });
});
