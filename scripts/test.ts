// `npm test`: every suite with Node's test runner, then one closing line
// `N passed, N failed, N skipped` for people and CI alike.
// Usage: node scripts/test.ts [file or glob …]   (default: all of test/)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

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
const cache = join(root, ".cache");
mkdirSync(cache, { recursive: true });
const tap = join(cache, "last-test-run.tap");
rmSync(tap, { force: true });

const child = spawn(
  process.execPath,
  [
    "--test",
    // Gateway suites idle most of the time; two at once halves the wall time on 2 cores.
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? "2"}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ],
  { cwd: root, stdio: "inherit" },
);
const code: number = await new Promise((resolve) => child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0))));

let text = "";
try {
  text = readFileSync(tap, "utf8");
} catch {
  // no report: the runner itself failed; the counts below stay zero and the exit code tells
}
const count = (name: string): number => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail") + count("cancelled");
const skipped = count("skipped") + count("todo");
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code !== 0 ? code : failed > 0 ? 1 : passed === 0 ? 1 : 0);
