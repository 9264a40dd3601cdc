// A tool some suites need from the machine (Chromium, util-linux `script`). Where it is missing
// the suite skips with the reason, and the closing count says how many tests did not run; under
// CI=true a missing tool is a failure instead (.ci/run installs them), so CI never passes on
// fewer tests than it should.
export function missingTool(reason: string): string {
  if (process.env.CI === "true") throw new Error(`CI=true and ${reason}: CI must run these tests (.ci/run installs the tool)`);
  return reason;
}
