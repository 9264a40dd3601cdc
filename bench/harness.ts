// What every benchmark script shares: a bounded run (it stops by itself) and writing its
// own section of docs/benchmarks.md between its markers, leaving the others as they are.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Runs `main`, exits 0/1 with it, and gives up with exit 2 after `limitMs`. */
export function runBounded(name: string, main: () => Promise<void>, limitMs: number, onLimit: string): void {
  const watchdog = setTimeout(() => {
    console.error(`${name}: still running after ${limitMs / 60_000} min; giving up (${onLimit})`);
    process.exit(2);
  }, limitMs);
  watchdog.unref();
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.stack : err);
      process.exit(1);
    },
  );
}

/** Replaces the text between `start` and `end` in `doc` (the markers included in `text`), or appends it. */
export function writeDocSection(doc: string, start: string, end: string, text: string): void {
  const current = existsSync(doc) ? readFileSync(doc, "utf8") : "# Benchmarks\n";
  const a = current.indexOf(start);
  const b = current.indexOf(end);
  const next = a >= 0 && b > a ? current.slice(0, a) + text + current.slice(b + end.length) : current.replace(/\n*$/, "\n\n") + text + "\n";
  writeFileSync(doc, next);
}
