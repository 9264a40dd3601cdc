// scripts/test.ts: the closing count comes from the runner's events only, and every test that
// did not run is counted as skipped, whatever level it was skipped at.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";

const root = join(import.meta.dirname, "..", "..");

test("the closing line counts skipped suites' tests and ignores printed counts", { timeout: 60_000 }, () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TEST_CONCURRENCY: "1" };
  delete env.NODE_TEST_CONTEXT; // a run of its own, not a child of this one
  const run = spawnSync(process.execPath, ["scripts/test.ts", "test/fixtures/runner/counts.fixture.ts"], {
    cwd: root,
    env,
    encoding: "utf8",
  });
  const lines = run.stdout.trimEnd().split("\n");
  assert.equal(lines.at(-1), "2 passed, 2 failed, 5 skipped", run.stdout + run.stderr);
  assert.equal(run.status, 1, "a failure fails the run");
  assert.match(run.stdout, /one .*# fixture reason/, "a skipped suite's test is reported with the suite's reason");
  assert.doesNotMatch(run.stdout, /hook ran|test of a skipped suite ran/);
});
