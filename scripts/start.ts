// `npm start`: the Electron app where an Electron binary and the shell exist; otherwise
// the same core in this terminal (`progress-desk watch`), saying why.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { findElectronBinary } from "./electron-binary.ts";

const root = join(import.meta.dirname, "..");
const shell = join(root, "dist", "main", "electron", "app.js");
const electron = findElectronBinary(root);
const extra = process.argv.slice(2);

let command: string;
let args: string[];
if (electron.path && existsSync(shell)) {
  command = electron.path;
  args = [root, ...extra];
} else {
  const why = "reason" in electron ? electron.reason : "the Electron shell is not built in this checkout";
  process.stderr.write(
    `Progress Desk: not starting the Electron app: ${why}.\n` +
      "Showing your progress cards in this terminal instead (progress-desk watch). Ctrl-C quits.\n\n",
  );
  command = process.execPath;
  args = [join(root, "dist", "main", "cli", "progress-desk.js"), "watch", ...extra];
}
const child = spawn(command, args, { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
