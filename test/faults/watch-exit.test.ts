// `progress-desk watch` exit status 5 (Gateway update required) with the G2 advice on stderr.
// The real 2026.9.6 Gateway has every method and capability the app needs, so the condition
// comes from FAKE Gateways (fake-gateway.ts): one that demands a newer client version at
// connect, and one whose hello-ok lacks the progress-card methods.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { helloOk, startFakeGateway, type FakeReply } from "./fake-gateway.ts";

const bin = join(import.meta.dirname, "..", "..", "dist", "cli", "progress-desk.js");
const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Runs `watch --json` against `url` until it exits by itself (a watchdog kills it after 30 s). */
async function watchUntilExit(url: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  if (!existsSync(bin)) throw new Error("run `npm run build` first (npm test does)");
  const home = mkdtempSync(join(tmpdir(), "pd-exit-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  // Asynchronous spawn: the fake Gateway lives in this process's event loop.
  const child = spawn(process.execPath, [bin, "watch", "--json", "--url", url, "--token", "t".repeat(64)], {
    env: { PATH: process.env.PATH, HOME: home, PROGRESS_DESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const watchdog = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const status = await new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  clearTimeout(watchdog);
  return { status, stdout, stderr };
}

describe("watch: Gateway update required exits 5", () => {
  test("FAKE Gateway that demands a newer client version at connect", { timeout: 60_000 }, async () => {
    const refuse: FakeReply = {
      ok: false,
      error: {
        code: "INVALID_REQUEST",
        message: "client version 0.1.0 is too old for this gateway",
        details: { code: "CLIENT_VERSION_MISMATCH" },
      },
    };
    const fake = await startFakeGateway({ onConnect: () => refuse });
    cleanups.push(() => fake.close());
    const r = await watchUntilExit(fake.url);
    assert.equal(r.status, 5, `stderr: ${r.stderr}`);
    assert.match(r.stderr, /not compatible with this app \(CLIENT_VERSION_MISMATCH\)/);
    assert.match(r.stderr, /Update OpenClaw on the Gateway host/);
    const states = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; state?: string });
    assert.ok(
      states.some((l) => l.type === "connection" && l.state === "update_required"),
      r.stdout,
    );
    assert.equal(fake.connections, 1, "no retries against a Gateway that needs an update");
  });

  test("FAKE Gateway whose hello-ok has no progress cards", { timeout: 60_000 }, async () => {
    const fake = await startFakeGateway({
      onConnect: () => ({
        ok: true,
        payload: helloOk({ features: { methods: ["sessions.subscribe", "sessions.list"], events: [], capabilities: [] } }),
      }),
    });
    cleanups.push(() => fake.close());
    const r = await watchUntilExit(fake.url);
    assert.equal(r.status, 5, `stderr: ${r.stderr}`);
    assert.match(r.stderr, /has no progress cards \(progressCard\.get missing\)\. Update OpenClaw/);
  });
});

describe("watch: a Gateway's words on stderr are data", () => {
  test(
    "FAKE Gateway whose pairing refusal quotes escape sequences: stderr shows the words, no control character",
    { timeout: 60_000 },
    async () => {
      // The real Gateway makes its own request ids; a rogue one could put anything there.
      const refuse: FakeReply = {
        ok: false,
        error: {
          code: "NOT_PAIRED",
          message: "pairing required",
          details: { code: "PAIRING_REQUIRED", requestId: "req-1\x1b]0;pwned\x07\x1b[2J", reason: "scope\x9b2J-upgrade\x07" },
        },
      };
      const fake = await startFakeGateway({ onConnect: () => refuse });
      cleanups.push(() => fake.close());
      const r = await watchUntilExit(fake.url);
      assert.equal(r.status, 4, `stderr: ${r.stderr}`);
      assert.match(r.stderr, /asks to approve a scope upgrade\./);
      // An id carrying escape sequences is no plain word: no approve command is built from it.
      assert.match(r.stderr, /run `openclaw devices list` and approve device/);
      assert.doesNotMatch(r.stderr, /devices approve req/);
      // eslint-disable-next-line no-control-regex -- the point of the check
      assert.doesNotMatch(r.stderr, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/, JSON.stringify(r.stderr));
    },
  );
});
