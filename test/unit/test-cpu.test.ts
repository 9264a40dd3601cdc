// npm test's CPU line (scripts/test-cpu.ts): the whole run's CPU against its wall time, so a run says
// whether more files at once could help.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cpuSummary, waitedChildrenSeconds } from "../../scripts/test-cpu.ts";

// A /proc/self/stat line whose command name holds a space and a parenthesis, as a renamed
// process may; utime 11, stime 12, cutime 1234, cstime 566 (ticks).
const stat = "4242 (node (test) x) S 1 4242 4242 0 -1 4194304 100 200 0 0 11 12 1234 566 20 0 11 0 100 1000 50";

describe("the runner's CPU line", () => {
  it("reads the waited-for children's user and system time from /proc, after the command name", () => {
    assert.equal(waitedChildrenSeconds(stat), 18);
  });

  it("says nothing it cannot know: a stat line without those fields is no figure", () => {
    assert.equal(waitedChildrenSeconds("4242 (node) S 1"), null);
  });

  it("reads this process's own stat on Linux", () => {
    const seconds = waitedChildrenSeconds();
    if (process.platform === "linux") assert.ok(seconds !== null && seconds >= 0);
    else assert.equal(seconds, null);
  });

  it("sums own and children's CPU and sets it against the wall time", () => {
    assert.equal(cpuSummary(600_000, 30, 1050), "CPU 18.0 min, 1.80 cores busy on average");
  });

  it("says when the children's share is not known", () => {
    assert.equal(cpuSummary(600_000, 30, null), "CPU of the test processes not known here (no /proc)");
  });
});
