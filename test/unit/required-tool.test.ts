import assert from "node:assert/strict";
import { test } from "node:test";
import { missingTool } from "../harness/required-tool.ts";

test("a missing tool is a skip with its reason, and a failure under CI=true", () => {
  const saved = process.env.CI;
  try {
    delete process.env.CI;
    assert.equal(missingTool("no Chromium here"), "no Chromium here");
    process.env.CI = "true";
    assert.throws(() => missingTool("no Chromium here"), /CI=true and no Chromium here/);
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
});
