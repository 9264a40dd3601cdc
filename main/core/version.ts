// Where this package is installed (source checkout or dist) and its version.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let cached: { root: string; version: string } | null = null;

function locate(): { root: string; version: string } {
  if (cached) return cached;
  let dir = import.meta.dirname;
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "progress-desk") return (cached = { root: dir, version: pkg.version ?? "0.0.0" });
    }
    dir = dirname(dir);
  }
  return (cached = { root: join(import.meta.dirname, "..", ".."), version: "0.0.0" });
}

export function appVersion(): string {
  return locate().version;
}

/** The folder holding package.json; built pages are under dist/renderer. */
export function packageRoot(): string {
  return locate().root;
}
