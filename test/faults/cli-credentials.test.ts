// The terminal commands with a damaged credentials file: they say so on stderr, keep running,
// and leave the file byte for byte as it was. No Gateway is needed: the URL names a closed port.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { until } from "../harness/until.ts";

const root = join(import.meta.dirname, "..", "..");
const bin = join(root, "dist", "cli", "progress-desk.js");
const DAMAGED = '{"gateway-token|x|ws://127.0.0.1:1": "tok'; // cut off mid-write
const NOTICE = /^progress-desk: saved credentials in .+credentials\.json can't be read \(.+\)\. Nothing was deleted or written over;/m;

let dir: string;
let closedPort: number;

before(async () => {
  assert.ok(spawnSync(process.execPath, [bin, "--version"]).status === 0, `${bin} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), "pd-cli-cred-"));
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function runWithDamagedFile(name: string, args: string[]) {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  const file = join(home, "credentials.json");
  writeFileSync(file, DAMAGED, { mode: 0o600 });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("OPENCLAW_")) env[k] = v;
  const child = spawn(process.execPath, [bin, ...args, "--url", `ws://127.0.0.1:${closedPort}`], {
    env: { ...env, HOME: home, PROGRESS_DESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, file, out: () => out, err: () => err, exit };
}

test("watch says the saved credentials can't be read, keeps retrying, and leaves the file as it was", { timeout: 60_000 }, async () => {
  const run = runWithDamagedFile("watch", ["watch", "--json"]);
  try {
    await until("the notice on stderr", () => NOTICE.test(run.err()), 30_000);
    // A later line proves the run went on past start-up (it reports the closed port as offline).
    await until("watch to report the Gateway offline", () => run.out().includes('"state":"offline"'), 30_000);
  } finally {
    run.child.kill("SIGINT");
    await run.exit;
  }
  assert.equal(readFileSync(run.file, "utf8"), DAMAGED, "the damaged file is never written over");
});

test("host says so too; its first stdout line is still the page address", { timeout: 60_000 }, async () => {
  const run = runWithDamagedFile("host", ["host"]);
  try {
    await until("the page address on stdout", () => run.out().includes("\n"), 30_000);
    assert.match(run.out().split("\n")[0]!, /^http:\/\/127\.0\.0\.1:\d+\/[^/]+\/popover\.html$/);
    await until("the notice on stderr", () => NOTICE.test(run.err()), 30_000);
  } finally {
    run.child.kill("SIGINT");
    await run.exit;
  }
  assert.equal(readFileSync(run.file, "utf8"), DAMAGED);
});
