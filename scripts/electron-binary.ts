// Finds the Electron binary without triggering its download: `require("electron")`
// downloads it on first use (Electron 45+ has no install script), which fails offline.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type ElectronBinary = { path: string } | { path: null; reason: string };

export function findElectronBinary(root: string, env: NodeJS.ProcessEnv = process.env): ElectronBinary {
  const pkg = join(root, "node_modules", "electron");
  if (!existsSync(join(pkg, "package.json"))) return { path: null, reason: "the electron package is not installed (run npm install)" };
  const pathFile = join(pkg, "path.txt");
  const relative = existsSync(pathFile) ? readFileSync(pathFile, "utf8").trim() : null;
  const dist = env.ELECTRON_OVERRIDE_DIST_PATH || join(pkg, "dist");
  const candidate = join(dist, relative || (process.platform === "darwin" ? "Electron.app/Contents/MacOS/Electron" : "electron"));
  if (existsSync(candidate)) return { path: candidate };
  return {
    path: null,
    reason: `no Electron binary at ${candidate} (Electron downloads it on first use; run \`npx install-electron\` where the download host is reachable, or set ELECTRON_OVERRIDE_DIST_PATH)`,
  };
}
