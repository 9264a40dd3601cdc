// npm test's report of its slowest files (scripts/test-slowest.ts): a file's time is the sum of
// its top-level tests and suites; nested results and other events do not count twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SlowestFiles } from "../../scripts/test-slowest.ts";

const result = (file: string, nesting: number, ms: number, type = "test:pass") => ({
  type,
  data: { name: "t", file: `/repo/${file}`, nesting, details: { duration_ms: ms } },
});

test("files are ranked by the summed time of their top-level tests, nested results and other events ignored", () => {
  const s = new SlowestFiles();
  s.add(result("test/a.test.ts", 0, 1500));
  s.add(result("test/a.test.ts", 1, 1400)); // inside the suite above: already counted
  s.add(result("test/a.test.ts", 0, 600, "test:fail"));
  s.add(result("test/b.test.ts", 0, 3000));
  s.add(result("test/c.test.ts", 0, 10));
  s.add({ type: "test:stdout", data: { file: "/repo/test/c.test.ts", nesting: 0, details: { duration_ms: 99_000 } } });
  assert.deepEqual(s.lines("/repo", 2), ["    3.0 s  test/b.test.ts", "    2.1 s  test/a.test.ts"]);
  assert.equal(s.lines("/repo").length, 3);
});
