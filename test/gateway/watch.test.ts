// `progress-desk watch` (T1) as people and scripts run it: the built bin against a real Gateway.
/* eslint-disable no-control-regex -- the terminal output is checked for its escape sequences (ESC, BEL) */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import { missingTool } from "../harness/required-tool.ts";
import { until } from "../harness/until.ts";
import { plan } from "./support.ts";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "dist", "cli", "progress-desk.js");

let gw: TestGateway;
let agent: BareClient;
const homes: string[] = [];

before(async () => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm run build\` first (npm test does)`);
  gw = await startGateway();
  agent = await connectBareClient(gw);
});

after(async () => {
  await agent?.close();
  await gw?.dispose();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("OPENCLAW_")) env[k] = v;
  const home = mkdtempSync(join(tmpdir(), "pd-watch-"));
  homes.push(home);
  // No ~/.openclaw of the machine's user may leak in.
  return { ...env, HOME: home, PROGRESS_DESK_HOME: join(home, "pd"), ...extra };
}

type Watcher = {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: () => string;
  next(pred: (l: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exit: Promise<number | null>;
  stop(): Promise<number | null>;
};

function watchJson(args: string[], env: NodeJS.ProcessEnv): Watcher {
  const child = spawn(process.execPath, [bin, "watch", "--json", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: Record<string, unknown>[] = [];
  let buf = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(JSON.parse(line) as Record<string, unknown>); // every line must be JSON
      for (const w of [...waiters]) w();
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => err,
    exit,
    next(pred, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        let from = 0;
        const check = (): boolean => {
          for (; from < lines.length; from += 1) {
            if (pred(lines[from]!)) {
              const hit = lines[from]!;
              from += 1;
              waiters.delete(onLine);
              clearTimeout(timer);
              resolve(hit);
              return true;
            }
          }
          return false;
        };
        const onLine = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(onLine);
          reject(
            new Error(
              `no matching line in ${timeoutMs} ms; got:\n${lines.map((l) => JSON.stringify(l).slice(0, 200)).join("\n")}\nstderr: ${err}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(onLine);
      });
    },
    async stop() {
      child.kill("SIGINT");
      return exit;
    },
  };
}

describe("watch --json", () => {
  test("connection lines, then one card line per confirmed change, with the documented fields", async () => {
    const w = watchJson(["--url", gw.url, "--token", gw.token], cleanEnv());
    try {
      const connecting = await w.next((l) => l.type === "connection");
      assert.equal(connecting.state, "connecting");
      const connected = await w.next((l) => l.type === "connection" && l.state === "connected", 45_000);
      assert.equal(typeof connected.gateway, "string");

      const key = await agent.createSession();
      await agent.put(key, { markdown: "Checking **things**", plan: plan("completed", "in_progress", "pending") });
      const line = await w.next((l) => l.type === "card" && l.sessionKey === key);
      assert.deepEqual(
        Object.keys(line).sort(),
        [
          "agentId",
          "derived",
          "gateway",
          "hidden",
          "markdown",
          "revision",
          "sessionKey",
          "steps",
          "timing",
          "title",
          "type",
          "updatedAt",
        ].sort(),
      );
      assert.equal(line.gateway, connected.gateway);
      assert.equal(line.revision, 1);
      assert.equal(line.agentId, null);
      assert.equal(line.markdown, "Checking **things**");
      assert.deepEqual(line.steps, [
        { step: "Step 1", status: "completed" },
        { step: "Step 2", status: "in_progress" },
        { step: "Step 3", status: "pending" },
      ]);
      assert.deepEqual(line.derived, { completed: 1, total: 3, current: "Step 2", state: "paused", outcome: null });
      assert.equal(typeof line.title, "string");
      assert.equal(typeof line.updatedAt, "number");

      await agent.put(key, {});
      const cleared = await w.next((l) => l.type === "card" && l.sessionKey === key && l.revision === null);
      assert.deepEqual(cleared.steps, []);
      assert.equal(cleared.markdown, null);
      assert.equal(cleared.derived.state, "cleared");

      assert.equal(await w.stop(), 0, "Ctrl-C ends watch with status 0");
    } finally {
      w.child.kill("SIGKILL");
    }
  });

  test("finds the Gateway from OPENCLAW_GATEWAY_URL and OPENCLAW_GATEWAY_TOKEN", async () => {
    const w = watchJson([], cleanEnv({ OPENCLAW_GATEWAY_URL: gw.url, OPENCLAW_GATEWAY_TOKEN: gw.token }));
    try {
      await w.next((l) => l.type === "connection" && l.state === "connected", 45_000);
    } finally {
      await w.stop();
    }
  });

  test("finds the Gateway from a JSON5 openclaw.json (port and token)", async () => {
    const env = cleanEnv();
    const dir = join(env.HOME!, ".openclaw");
    spawnSync("mkdir", ["-p", dir]);
    writeFileSync(
      join(dir, "openclaw.json"),
      `{\n  // written by onboarding\n  gateway: { port: ${gw.port}, auth: { mode: "token", token: "${gw.token}" }, },\n}\n`,
    );
    const w = watchJson([], env);
    try {
      const c = await w.next((l) => l.type === "connection" && l.state === "connected", 45_000);
      assert.match(String(c.advice), new RegExp(String(gw.port)));
    } finally {
      await w.stop();
    }
  });

  test("a wrong token ends watch with status 3 and the G2 advice", async () => {
    const w = watchJson(["--url", gw.url, "--token", "e".repeat(64)], cleanEnv());
    const line = await w.next((l) => l.type === "connection" && l.state === "auth_failed", 30_000);
    assert.equal(line.setting, "token");
    assert.equal(await w.exit, 3);
    assert.match(w.stderr(), /rejected the token/);
  });
});

describe("watch, plain and usage", () => {
  test("plain lines when stdout is not a terminal", async () => {
    const child = spawn(process.execPath, [bin, "watch", "--url", gw.url, "--token", gw.token], {
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    try {
      const key = await agent.createSession();
      await until("watch to connect", () => /connected — Connected to/.test(out));
      await agent.put(key, { plan: plan("completed", "completed") });
      await until("the card's line", () => /2\/2 done/.test(out));
      assert.doesNotMatch(out, /\x1b\[/, "no escape sequences in plain mode");
    } finally {
      child.kill("SIGINT");
    }
  });

  test("usage errors exit 2", () => {
    const env = cleanEnv();
    assert.equal(spawnSync(process.execPath, [bin, "nope"], { env }).status, 2);
    assert.equal(spawnSync(process.execPath, [bin, "watch", "--url", "http://x"], { env }).status, 2);
    assert.equal(spawnSync(process.execPath, [bin, "watch", "--token", "a", "--password", "b"], { env }).status, 2);
    assert.equal(spawnSync(process.execPath, [bin, "watch", "--bogus"], { env }).status, 2);
    const help = spawnSync(process.execPath, [bin, "--help"], { env, encoding: "utf8" });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /watch/);
  });
});

const noScript = spawnSync("script", ["--version"]).status !== 0 && missingTool("util-linux `script` (a pseudo-terminal) is not installed");

describe("watch in a terminal", { skip: noScript }, () => {
  test("one block rewritten in place, at most 10 redraws a second, and the OSC 9;4 indicator", async () => {
    const env = cleanEnv({ TERM_PROGRAM: "ghostty", COLUMNS: "100" });
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} watch --url ${gw.url} --token ${gw.token}`;
    const child: ChildProcess = spawn("script", ["-qfec", cmd, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
    try {
      await until("watch to connect", () => /connected/.test(out), 30_000);
      const key = await agent.createSession();
      const start = out.length;
      const t0 = Date.now();
      for (let i = 1; i <= 30; i += 1) {
        await agent.put(key, {
          plan: [
            { step: `Write ${i}`, status: i === 30 ? "completed" : "in_progress" },
            { step: "Last", status: i === 30 ? "completed" : "pending" },
          ],
        });
      }
      // The last write completes the card: its block and the full progress indicator end the burst.
      await until("the completed card's block", () => /2\/2/.test(out.slice(start)) && /\x1b\]9;4;1;100\x07/.test(out));
      const seconds = (Date.now() - t0) / 1000;
      const burst = out.slice(start);
      const redraws = (burst.match(/\x1b\[J/g) ?? []).length;
      assert.ok(redraws >= 1, "the block was redrawn");
      assert.ok(redraws <= Math.ceil(seconds * 10) + 1, `${redraws} redraws in ${seconds.toFixed(1)} s`);
      assert.match(burst, /\x1b\[\d+F/, "the block moves the cursor up to rewrite itself");
      assert.match(out, /\x1b\]9;4;1;100\x07/, "the focused card sets the terminal progress indicator");
    } finally {
      child.kill("SIGTERM");
    }
  });
});

// Agent text is data, never terminal control. Each class of sequence goes into a card's
// steps, note and session label on the real Gateway; the bytes `watch` writes must carry none
// of it, whatever stdout is, while `--json` keeps the original characters.
const OSC_TITLE = "\x1b]0;pwned-title\x07";
const OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07";
const OSC_LINK = "\x1b]8;;https://evil.example/\x1b\\";
const OSC_LINK_END = "\x1b]8;;\x1b\\";
const CSI_CLEAR = "\x1b[2J\x1b[H";
const CSI_COLOUR = "\x1b[1;31m";
const DCS = "\x1bP$qm\x1b\\";
const C1_CSI = "\x9b2J";
const C1_OSC = "\x9d0;c1-title\x9c";
const BARE = "\x07\x08\r";
const HOSTILE_STEP = `Run${OSC_LINK} tests${OSC_LINK_END}${CSI_CLEAR}${C1_CSI}${BARE}`;
const HOSTILE_NOTE = `Waiting${OSC_CLIPBOARD} on${CSI_COLOUR} CI${DCS}${C1_OSC}${BARE}\n\nmore`;

/** Valid UTF-8, decoded: a lone 8-bit control byte would fail here rather than pass as U+FFFD. */
const utf8 = (bytes: Buffer): string => new TextDecoder("utf-8", { fatal: true }).decode(bytes);

/** What watch writes for its own block and indicator (watch.ts, osc-progress.ts): nothing else may carry ESC. */
const OWN_SEQUENCE = /\x1b\[\d+F|\x1b\[2K|\x1b\[J|\x1b\]9;4;[0-4];\d{1,3}\x07/g;

/** Session labels are unique on a Gateway: each test names its own (`tag`). */
const hostileLabel = (tag: string): string => `Ship${OSC_TITLE} it${BARE}${tag}${C1_OSC}`;
const hostileNoteLabel = (tag: string): string => `Note${CSI_COLOUR} card ${tag}${DCS}`;

/** A session with a hostile label and a card with hostile steps, and one with only a hostile note. */
async function hostileCards(tag: string): Promise<{ steps: string; note: string }> {
  const steps = (await agent.request<{ key: string }>("sessions.create", { label: hostileLabel(tag) })).key;
  const note = (await agent.request<{ key: string }>("sessions.create", { label: hostileNoteLabel(tag) })).key;
  await agent.put(steps, {
    markdown: HOSTILE_NOTE,
    plan: [
      { step: "Build", status: "completed" },
      { step: HOSTILE_STEP, status: "in_progress" },
    ],
  });
  await agent.put(note, { markdown: HOSTILE_NOTE });
  return { steps, note };
}

describe("watch: agent text is data, never terminal control", { skip: noScript }, () => {
  test("steps, note and label full of OSC, CSI, DCS, C1 and bare controls: the terminal gets only watch's own sequences", async () => {
    const env = cleanEnv({ TERM_PROGRAM: "ghostty", COLUMNS: "100" });
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} watch --url ${gw.url} --token ${gw.token}`;
    const child: ChildProcess = spawn("script", ["-qfec", cmd, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout!.on("data", (c: Buffer) => chunks.push(c));
    const text = (): string => utf8(Buffer.concat(chunks)).replace(OWN_SEQUENCE, "");
    try {
      await until("watch to connect", () => /connected/.test(text()), 30_000);
      const keys = await hostileCards("tty");
      await until(
        "both cards drawn, words intact",
        () => /Ship it tty 1\/2/.test(text()) && /Run tests/.test(text()) && /Note card tty/.test(text()) && /Waiting on CI/.test(text()),
        20_000,
      );
      const raw = utf8(Buffer.concat(chunks));
      // Every ESC is watch's own: the block's CSIs and the OSC 9;4 indicator, with numbers only.
      for (const m of raw.matchAll(/\x1b./g))
        assert.match(raw.slice(m.index, m.index + 16), /^(\x1b\[(\d+F|2K|J)|\x1b\]9;4;[0-4];\d{1,3}\x07)/);
      // 50 % of a card paused (4: no run is live for it) or working (1).
      assert.match(raw, /\x1b\]9;4;[14];50\x07/, "the indicator shows the card's count");
      const rest = text();
      assert.doesNotMatch(rest, /\x1b/, "no ESC outside watch's own sequences: no OSC 0/8/52, no CSI, no DCS");
      assert.doesNotMatch(rest, /[\x80-\x9f]/, "no C1 control");
      assert.doesNotMatch(rest, /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]/, "no C0 control but line ends, no DEL");
      assert.doesNotMatch(rest, /\r(?!\n)/, "a CR only as the terminal's own line end");
      assert.doesNotMatch(rest, /\]0;|\]52;|\]8;|\[2J|P\$qm/, "no sequence left behind as text");
      assert.ok(keys.steps && keys.note);
    } finally {
      child.kill("SIGTERM");
    }
  });

  test("plain lines to a pipe carry the words and no control character at all", async () => {
    const child = spawn(process.execPath, [bin, "watch", "--url", gw.url, "--token", gw.token], {
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    const out = (): string => utf8(Buffer.concat(chunks));
    try {
      await until("watch to connect", () => /connected — Connected to/.test(out()));
      await hostileCards("plain");
      await until("both cards' lines", () => /Ship it plain 1\/2 \w+ — Run tests\n/.test(out()) && /Note card plain note\n/.test(out()));
      assert.doesNotMatch(out(), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, "only LF ends lines: no ESC, BEL, BS, CR, no C1");
      assert.doesNotMatch(out(), /\]0;|\]52;|\]8;|\[2J|P\$qm/, "no sequence left behind as text");
    } finally {
      child.kill("SIGINT");
    }
  });

  test("--json keeps the original characters, escaped, and no raw control byte", async () => {
    const w = watchJson(["--url", gw.url, "--token", gw.token], cleanEnv());
    const chunks: Buffer[] = [];
    w.child.stdout!.on("data", (c: Buffer | string) => chunks.push(Buffer.from(c)));
    try {
      await w.next((l) => l.type === "connection" && l.state === "connected", 45_000);
      const keys = await hostileCards("json");
      // A card's first line may come before its session's label: wait for the line with the label.
      const steps = await w.next((l) => l.type === "card" && l.sessionKey === keys.steps && l.title === hostileLabel("json"));
      assert.deepEqual(steps.steps, [
        { step: "Build", status: "completed" },
        { step: HOSTILE_STEP, status: "in_progress" },
      ]);
      assert.equal(steps.markdown, HOSTILE_NOTE);
      assert.equal(steps.derived.current, HOSTILE_STEP);
      const note = await w.next((l) => l.type === "card" && l.sessionKey === keys.note && l.title === hostileNoteLabel("json"));
      assert.equal(note.markdown, HOSTILE_NOTE);
      assert.doesNotMatch(utf8(Buffer.concat(chunks)), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, "every control is escaped in the line");
    } finally {
      await w.stop();
    }
  });
});
