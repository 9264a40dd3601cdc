// Readings of this process and the Gateway's: memory in MB, V8 heap spaces, CPU time from
// /proc, and a traffic count as text for the report.
import { readFileSync } from "node:fs";
import v8 from "node:v8";

export const mb = (bytes: number) => bytes / (1024 * 1024);

/** V8 heap space sizes (reserved, MB) by space name. */
export function heapSpaces(): Record<string, number> {
  return Object.fromEntries(v8.getHeapSpaceStatistics().map((sp) => [sp.space_name, mb(sp.space_size)]));
}

export const trafficText = (t: Record<string, number>) =>
  Object.entries(t)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v} × ${k.replace(/^(event|request) /, "$1 `")}\``)
    .join(", ") || "none";

/** CPU time (ms) of a Linux process from /proc; null elsewhere. Assumes USER_HZ = 100. */
export function procCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
