// A settings file that cannot be read as it is is never wiped: its bytes are first kept
// beside it under a dated name, and only then is the live file replaced by what could be
// read of it.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, parse } from "node:path";
import { readableJsonPrefix } from "./json-prefix.ts";
import type { Logger } from "./logger.ts";

/** Enough for many damaged files in one second; past it something else is wrong. */
const MAX_COPIES_PER_SECOND = 100;

/**
 * Writes `bytes` beside `path` as `<name>.corrupt-<UTC time>.<ext>` (settings.json →
 * settings.corrupt-2026-12-04T15-30-00Z.json), or `…Z-2.json` and on when that name is
 * taken: an earlier copy is never overwritten. Returns the copy's path; throws when no copy
 * could be written (then the caller must leave the live file alone).
 */
export function keepDamagedCopy(path: string, bytes: Uint8Array, now: Date): string {
  const { dir, name, ext } = parse(path);
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
  for (let n = 1; n <= MAX_COPIES_PER_SECOND; n++) {
    const copy = join(dir, `${name}.corrupt-${stamp}${n === 1 ? "" : `-${n}`}${ext}`);
    try {
      // "wx": created here or not at all, so an existing copy stays as it is.
      writeFileSync(copy, bytes, { flag: "wx", mode: 0o600 });
      return copy;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`${MAX_COPIES_PER_SECOND} copies of ${name}${ext} already carry the time ${stamp}; none was added.`);
}

/** Replaces the file in one step (a temporary file renamed over it): never half written. */
export function replaceFileSync(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
}

export type RescueDeps = { logger: Logger; now?: () => Date };
/** `copy`: where the bytes were kept, or null when they could not be (the file is then left as it was). */
export type Rescue = { copy: string | null; salvaged: unknown };

/**
 * A JSON file its reader refuses: its bytes are kept beside it (keepDamagedCopy), then the
 * file is replaced by `repair` of what could be read of it. Told once, in the log.
 */
export function rescueDamagedFile(path: string, repair: (readable: unknown) => unknown, deps: RescueDeps): Rescue {
  const bytes = readFileSync(path);
  const salvaged = repair(readableJsonPrefix(bytes.toString("utf8")));
  let copy: string;
  try {
    copy = keepDamagedCopy(path, bytes, (deps.now ?? (() => new Date()))());
  } catch (err) {
    deps.logger.error(
      "A settings file could not be read in full, nor a copy of it saved: it is left as it is, and changes are not saved this run.",
      {
        file: path,
        error: (err as Error).message,
      },
    );
    return { copy: null, salvaged };
  }
  replaceFileSync(path, JSON.stringify(salvaged, null, "\t") + "\n");
  deps.logger.warn("A settings file could not be read in full: what could be read is kept, and the file as it was is saved beside it.", {
    copy,
  });
  return { copy, salvaged };
}
