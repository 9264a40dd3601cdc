// `npm test`: every suite with Node's test runner, then one closing line
// `N passed, N failed, N skipped` for people and CI alike. The count comes from the runner's
// event stream (scripts/test-count.ts), so nothing a test prints can change it.
// Usage: node scripts/test.ts [file or glob …]   (default: all of test/)
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { TestCount, type TestEvent } from "./test-count.ts";
import { SlowestFiles } from "./test-slowest.ts";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
const files =
  args.length > 0
    ? args
    : [
        "test/unit/*.test.ts",
        "test/renderer/*.test.ts",
        "test/faults/*.test.ts",
        "test/electron/*.test.ts",
        "test/browser/*.test.ts",
        "test/gateway/*.test.ts",
        "test/e2e/*.test.ts",
        "test/electron-app/*.test.ts",
      ];
// The closing line is also written here for .ci/run, which must not read it from the output
// (a test could print a line that looks like it).
const countFile = join(root, ".cache", "last-test-count.txt");
mkdirSync(join(root, ".cache"), { recursive: true });
rmSync(countFile, { force: true });

const counter = new TestCount();
const slowest = new SlowestFiles();
const events = run({
  cwd: root,
  globPatterns: files,
  // Gateway suites idle most of the time; two at once halves the wall time on 2 cores.
  concurrency: Number(process.env.TEST_CONCURRENCY ?? "2"),
  isolation: "process",
  // Each test process counts the tests of a suite skipped as a whole (see that module).
  execArgv: ["--expose-internals", "--import", pathToFileURL(join(root, "scripts", "test-skipped-suites.ts")).href],
});
// Count each event on its way to the spec reporter.
const counted = events.compose(
  new Transform({
    objectMode: true,
    transform(event: TestEvent, _encoding, done) {
      counter.add(event);
      slowest.add(event);
      done(null, event);
    },
  }),
);
await pipeline(counted.compose(spec), process.stdout, { end: false });

for (const name of counter.skippedSuites) {
  console.log(`note: suite "${name}" was skipped as a whole; its tests are counted as one skip`);
}
const slow = slowest.lines(root);
if (slow.length > 1) console.log(`\nThe ${slow.length} slowest test files:\n${slow.join("\n")}\n`);
const { passed, failed } = counter.count;
console.log(counter.line());
writeFileSync(countFile, `${counter.line()}\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
