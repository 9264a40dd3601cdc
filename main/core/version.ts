// The app's version, from the package.json this code ships in (source or dist).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: string | null = null;

export function appVersion(): string {
  if (cached) return cached;
  let dir = import.meta.dirname;
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "progress-desk" && pkg.version) return (cached = pkg.version);
    }
    dir = dirname(dir);
  }
  return (cached = "0.0.0");
}
