// The closing count of `npm test`, taken only from node:test's event stream (never from text a
// test prints, which arrives as `test:stdout`/`test:stderr` and is ignored here).
//   passed  — tests that ran and passed;
//   failed  — tests that failed or were cancelled, plus suites and files that failed on their
//             own (a failing before/after hook, a file that does not load);
//   skipped — skipped and todo tests. node:test never reports the tests of a suite skipped as a
//             whole; scripts/test-skipped-suites.ts makes it report them, and should that module
//             not be loaded, such a suite still counts once (and is named) rather than not at all.

/** The part of a `test:pass` / `test:fail` event's data that the count reads. */
export type ResultData = {
  name: string;
  skip?: string | boolean;
  todo?: string | boolean;
  details: { type?: "suite" | "test"; error?: { failureType?: string } };
};

export type TestEvent = { type: string; data?: unknown };

export type Count = { passed: number; failed: number; skipped: number };

export class TestCount {
  readonly count: Count = { passed: 0, failed: 0, skipped: 0 };
  /** Suites skipped as a whole (their tests are invisible to the count). */
  readonly skippedSuites: string[] = [];

  add(event: TestEvent): void {
    if (event.type !== "test:pass" && event.type !== "test:fail") return;
    const data = event.data as ResultData;
    const isSuite = data.details.type === "suite";
    const skipped = Boolean(data.skip) || Boolean(data.todo);
    if (isSuite) {
      if (data.skip) {
        this.count.skipped += 1;
        this.skippedSuites.push(data.name);
      } else if (event.type === "test:fail" && data.details.error?.failureType !== "subtestsFailed") {
        this.count.failed += 1; // a hook of the suite failed: its tests may all have passed
      }
      return;
    }
    if (skipped)
      this.count.skipped += 1; // a failing todo test does not fail the run
    else if (event.type === "test:pass") this.count.passed += 1;
    else this.count.failed += 1;
  }

  line(): string {
    return `${this.count.passed} passed, ${this.count.failed} failed, ${this.count.skipped} skipped`;
  }
}
