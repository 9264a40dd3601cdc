// The ten slowest test files of a run, printed by `npm test` before its closing line, so the
// suite's time stays visible as it grows. A file's time is the sum of its top-level tests and
// suites (node:test runs them one after another within a file), from the runner's events.
import { relative } from "node:path";
import type { TestEvent } from "./test-count.ts";

type TimedData = { nesting?: number; file?: string; details?: { duration_ms?: number } };

export class SlowestFiles {
  private readonly byFile = new Map<string, number>();

  add(event: TestEvent): void {
    if (event.type !== "test:pass" && event.type !== "test:fail") return;
    const data = event.data as TimedData;
    const ms = data.details?.duration_ms;
    if (data.nesting !== 0 || typeof data.file !== "string" || typeof ms !== "number") return;
    this.byFile.set(data.file, (this.byFile.get(data.file) ?? 0) + ms);
  }

  /** Up to `n` lines, slowest first: `  84.2 s  test/gateway/needs.test.ts`. */
  lines(root: string, n = 10): string[] {
    return [...this.byFile.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(root, file)}`);
  }
}
