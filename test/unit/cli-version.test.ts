// `progress-desk --version` (and -v): the command's name, the version and the update channel the
// version follows (issue 22), on one line of stdout, status 0. Runs the command from source.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { channelOfVersion } from "../../main/core/updates/availability.ts";

const root = join(import.meta.dirname, "..", "..");
const cli = join(root, "main", "cli", "progress-desk.ts");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

test("--version and -v print the name, the version and its update channel", () => {
  for (const flag of ["--version", "-v"]) {
    const run = spawnSync(process.execPath, [cli, flag], { encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `progress-desk ${version} (${channelOfVersion(version)} channel)\n`);
    assert.match(run.stdout, /^progress-desk \d+\.\d+\.\d+\S* \((stable|beta) channel\)\n$/);
    assert.equal(run.stderr, "");
  }
});
