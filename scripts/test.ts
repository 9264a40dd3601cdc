// `npm test`: every suite with Node's test runner, then one closing line
// `N passed, N failed, N skipped` for people and CI alike. The count comes from the runner's
// event stream (scripts/test-count.ts), so nothing a test prints can change it.
// Usage: node scripts/test.ts [file or glob …]   (default: all of test/)
import { globSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { TestCount, type TestEvent } from "./test-count.ts";
import { SlowestFiles } from "./test-slowest.ts";
import { cpuSummary, waitedChildrenSeconds } from "./test-cpu.ts";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
// Longest first: the real-Gateway and browser folders start at once and the many short unit
// files fill the gaps at the end, so no core idles behind one long file in the last minutes.
const folders = ["e2e", "gateway", "faults", "electron-app", "browser", "electron", "renderer", "unit"];
// Files named on the command line are found from where it was typed; the default ones from the root.
const base = args.length > 0 ? process.cwd() : root;
const patterns = args.length > 0 ? args : folders.map((folder) => `test/${folder}/*.test.ts`);
const files = [
  ...new Set(
    patterns.flatMap((pattern) =>
      globSync(pattern, { cwd: base })
        .sort()
        .map((file) => resolve(base, file)),
    ),
  ),
];
if (files.length === 0) {
  console.error(`no test file matches ${patterns.join(" ")}`);
  process.exit(1);
}
// The closing line is also written here for .ci/run, which must not read it from the output
// (a test could print a line that looks like it).
const countFile = join(root, ".cache", "last-test-count.txt");
mkdirSync(join(root, ".cache"), { recursive: true });
rmSync(countFile, { force: true });

const startedAt = Date.now();
const concurrency = Number(process.env.TEST_CONCURRENCY ?? "3");
const counter = new TestCount();
const slowest = new SlowestFiles();
const events = run({
  cwd: root,
  files,
  // Gateway and browser suites mostly wait: three at once kept 2 cores only 1.35 busy on average
  // (9.8 min for the whole run, against about 20 at two), so a third file fills the idle time.
  concurrency,
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
const wallMs = Date.now() - startedAt;
const own = process.cpuUsage();
const cpu = cpuSummary(wallMs, (own.user + own.system) / 1e6, waitedChildrenSeconds());
console.log(`test runner: ${files.length} files in ${(wallMs / 60_000).toFixed(1)} min, ${concurrency} at a time, ${cpu}`);
const { passed, failed } = counter.count;
console.log(counter.line());
writeFileSync(countFile, `${counter.line()}\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
