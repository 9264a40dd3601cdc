// CPU spent by the whole run: this process plus every child it waited for (test files, and
// through them their Gateways and browsers). Set against the wall time it says whether the
// cores were busy (more files at once would not help) or idle (they would). Linux only: the
// children's share comes from /proc; elsewhere it is left out and the line says so.
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's times; 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** Fields 16 and 17 of /proc/self/stat (cutime, cstime), in seconds; null without /proc. */
export function waitedChildrenSeconds(statText?: string): number | null {
  let text = statText;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/stat", "utf8");
    } catch {
      return null;
    }
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const cutime = Number(fields[13]);
  const cstime = Number(fields[14]);
  if (!Number.isFinite(cutime) || !Number.isFinite(cstime)) return null;
  return (cutime + cstime) / TICKS_PER_SECOND;
}

/** `CPU 31.2 min, 1.56 cores busy on average` for a run of `wallMs`. */
export function cpuSummary(wallMs: number, ownSeconds: number, childrenSeconds: number | null): string {
  if (childrenSeconds === null) return "CPU of the test processes not known here (no /proc)";
  const total = ownSeconds + childrenSeconds;
  const busy = wallMs > 0 ? total / (wallMs / 1000) : 0;
  return `CPU ${(total / 60).toFixed(1)} min, ${busy.toFixed(2)} cores busy on average`;
}
