// Gateway secrets given to the built `progress-desk` command (main/cli/secret-args.ts): read from a
// file or standard input they connect to a real Gateway and never show up in the output; given as
// --token/--password/--setup-code they still work but warn that the process list shows them; wrong
// files and conflicting flags are usage errors (status 2) that say what is wrong.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { until } from "../harness/until.ts";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "dist", "cli", "progress-desk.js");
const WARNING =
  /^progress-desk: warning: --(token|password|setup-code) can be read by other users of this computer in the process list; use .+ instead$/m;

let gw: TestGateway;
let dir: string;

before(async () => {
  assert.ok(spawnSync(process.execPath, [bin, "--version"]).status === 0, `${bin} is missing: run \`npm run build\` first`);
  gw = await startGateway();
  dir = mkdtempSync(join(tmpdir(), "pd-secrets-"));
});

after(async () => {
  await gw?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let homes = 0;
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("OPENCLAW_")) env[k] = v;
  const home = join(dir, `home-${(homes += 1)}`);
  mkdirSync(home);
  return { ...env, HOME: home, PROGRESS_DESK_HOME: join(home, "pd") };
}

function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

type Run = { child: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> };

function run(args: string[], stdin?: string): Run {
  const child = spawn(process.execPath, [bin, ...args], {
    env: cleanEnv(),
    stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (err += c));
  if (stdin !== undefined) child.stdin!.end(stdin);
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

/** `watch --json` until the Gateway accepts it, then Ctrl-C; returns everything it printed. */
async function watchUntilConnected(args: string[], stdin?: string): Promise<{ out: string; err: string; code: number | null }> {
  const r = run(["watch", "--json", "--url", gw.url, ...args], stdin);
  try {
    await until(
      `connected (stdout: ${r.out()} stderr: ${r.err()})`,
      () => /"state":"connected"/.test(r.out()) || r.child.exitCode !== null,
      45_000,
    );
    assert.match(r.out(), /"state":"connected"/, `never connected; stderr: ${r.err()}`);
    r.child.kill("SIGINT");
    const code = await r.exit;
    return { out: r.out(), err: r.err(), code };
  } finally {
    r.child.kill("SIGKILL");
  }
}

describe("secrets from a file or standard input", () => {
  test("watch --token-file connects with the token from the file (trailing newline trimmed), warns nothing, prints no secret", async () => {
    const file = secretFile("token", `${gw.token}\n`);
    const { out, err, code } = await watchUntilConnected(["--token-file", file]);
    assert.equal(code, 0);
    assert.doesNotMatch(err, WARNING);
    assert.ok(!out.includes(gw.token), "the token is not on stdout");
    assert.ok(!err.includes(gw.token), "the token is not on stderr");
  });

  test("watch --token-file - reads the token from standard input (CRLF trimmed) and prints no secret", async () => {
    const { out, err, code } = await watchUntilConnected(["--token-file", "-"], `${gw.token}\r\n`);
    assert.equal(code, 0);
    assert.doesNotMatch(err, WARNING);
    assert.ok(!out.includes(gw.token) && !err.includes(gw.token));
  });

  test("a token read from a file is used as is: a wrong one is rejected by the Gateway (status 3)", async () => {
    const r = run(["watch", "--json", "--url", gw.url, "--token-file", secretFile("wrong", `${"e".repeat(64)}\n`)]);
    try {
      assert.equal(await r.exit, 3, r.err());
      assert.match(r.err(), /rejected the token/);
    } finally {
      r.child.kill("SIGKILL");
    }
  });

  test("host --token-file serves a desk connected with the token from the file", async () => {
    const r = run(["host", "--url", gw.url, "--token-file", secretFile("host-token", `${gw.token}\n`)]);
    let ws: WebSocket | undefined;
    try {
      const first = await until("the page address", () => /^(http:\/\/127\.0\.0\.1:\d+)\/([^/]+)\/popover\.html\n/.exec(r.out()), 30_000);
      const [, origin, secret] = first;
      ws = new WebSocket(`${origin!.replace("http:", "ws:")}/${secret}/bridge/popover`, { headers: { origin: origin! } });
      await new Promise((resolve, reject) => ws!.once("open", resolve).once("error", reject));
      let id = 0;
      const snapshot = (): Promise<any> =>
        new Promise((resolve) => {
          const mine = (id += 1);
          const onMessage = (d: WebSocket.RawData): void => {
            const m = JSON.parse(String(d));
            if (m.id !== mine) return;
            ws!.off("message", onMessage);
            resolve(m.result);
          };
          ws!.on("message", onMessage);
          ws!.send(JSON.stringify({ id: mine, method: "snapshot", args: [] }));
        });
      await until("the host's desk connected", async () => (await snapshot())?.gateways?.[0]?.connection?.state === "connected", 45_000);
      assert.doesNotMatch(r.err(), WARNING);
      assert.ok(!r.out().includes(gw.token) && !r.err().includes(gw.token));
    } finally {
      ws?.close();
      r.child.kill("SIGINT");
      await r.exit;
    }
  });
});

describe("secrets on the command line still work, with a warning", () => {
  test("watch --token connects and warns once on stderr that other users can read it", async () => {
    const { err, code } = await watchUntilConnected(["--token", gw.token]);
    assert.equal(code, 0);
    assert.equal(err.match(new RegExp(WARNING.source, "gm"))?.length, 1, err);
    assert.match(err, /--token can be read by other users .* use --token-file or OPENCLAW_GATEWAY_TOKEN instead/);
  });

  test("--password and --setup-code warn the same way (watch), and --password on host", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["watch", "--url", gw.url, "--password", "pw-value"],
        /--password can be read .* use --password-file or OPENCLAW_GATEWAY_PASSWORD instead/,
      ],
      [["watch", "--url", gw.url, "--setup-code", "code-value"], /--setup-code can be read .* use --setup-code-file instead/],
      [["host", "--url", gw.url, "--password", "pw-value"], /--password can be read .* use --password-file/],
    ];
    for (const [args, expected] of cases) {
      const r = run(args);
      try {
        await until(`the warning for ${args.join(" ")}`, () => expected.test(r.err()) || r.child.exitCode !== null, 20_000);
        assert.match(r.err(), expected);
      } finally {
        r.child.kill("SIGINT");
        await r.exit;
      }
    }
  });
});

describe("usage errors for secret flags (status 2, a clear message, no secret echoed)", () => {
  test("missing, empty and multi-line files; a folder", () => {
    const empty = secretFile("empty", "");
    const blank = secretFile("blank", "\n\n");
    const twoLines = secretFile("two-lines", `${gw.token}\nsecond-line-secret\n`);
    const cases: [string[], RegExp][] = [
      [["--token-file", join(dir, "nope")], /--token-file: cannot read ".*nope": no such file/],
      [["--token-file", empty], /--token-file: ".*empty" is empty/],
      [["--password-file", blank], /--password-file: ".*blank" is empty/],
      [["--token-file", twoLines], /--token-file: ".*two-lines" holds more than one line/],
      [["--token-file", dir], /--token-file: cannot read ".*": it is a folder/],
      [["--setup-code-file", join(dir, "nope")], /--setup-code-file: cannot read/],
      [["--token-file", ""], /--token-file needs a file name, or - for standard input/],
    ];
    for (const [args, expected] of cases) {
      const r = spawnSync(process.execPath, [bin, "watch", "--url", gw.url, ...args], {
        env: cleanEnv(),
        encoding: "utf8",
        timeout: 20_000,
      });
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, expected, args.join(" "));
      assert.equal(r.stdout, "");
      assert.ok(!r.stderr.includes(gw.token) && !r.stderr.includes("second-line-secret"), "the file's content is never quoted");
    }
  });

  test(
    "an unreadable file is a usage error that says so",
    { skip: userInfo().uid === 0 ? "running as root, which reads any file: the permission case needs another user" : false },
    () => {
      const unreadable = secretFile("unreadable", `${gw.token}\n`);
      chmodSync(unreadable, 0o000);
      const r = spawnSync(process.execPath, [bin, "watch", "--url", gw.url, "--token-file", unreadable], {
        env: cleanEnv(),
        encoding: "utf8",
        timeout: 20_000,
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /--token-file: cannot read ".*unreadable": permission denied/);
      assert.ok(!r.stderr.includes(gw.token), "the file's content is never quoted");
    },
  );

  test("empty standard input is a usage error", () => {
    const r = spawnSync(process.execPath, [bin, "watch", "--url", gw.url, "--token-file", "-"], {
      env: cleanEnv(),
      input: "\n",
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--token-file: standard input is empty/);
  });

  test("conflicting flags: a value and a file, a token and a password, two secrets from standard input", () => {
    const file = secretFile("conflict", "x\n");
    const cases: [string[], RegExp][] = [
      [["watch", "--token", "a", "--token-file", file], /give --token or --token-file, not both/],
      [["watch", "--password", "a", "--password-file", file], /give --password or --password-file, not both/],
      [["watch", "--setup-code", "a", "--setup-code-file", file], /give --setup-code or --setup-code-file, not both/],
      [["watch", "--token-file", file, "--password", "b"], /give a token or a password, not both/],
      [["host", "--token", "a", "--password-file", file], /give a token or a password, not both/],
      [["host", "--token", "a", "--token-file", file], /give --token or --token-file, not both/],
      [["watch", "--token-file", "-", "--setup-code-file", "-"], /only one secret can come from standard input/],
      [["host", "--setup-code-file", file], /host takes no setup code/],
    ];
    for (const [args, expected] of cases) {
      const r = spawnSync(process.execPath, [bin, ...args], { env: cleanEnv(), encoding: "utf8", timeout: 20_000 });
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, expected, args.join(" "));
    }
  });

  test("--help shows the file forms before the command-line values", () => {
    const help = spawnSync(process.execPath, [bin, "--help"], { env: cleanEnv(), encoding: "utf8" }).stdout;
    assert.ok(help.indexOf("--token-file") >= 0 && help.indexOf("--token-file") < help.indexOf("--token,"), help);
    assert.match(help, /process list/);
  });
});
