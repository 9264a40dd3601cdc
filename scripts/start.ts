// `npm start`: the Electron app where an Electron binary and the shell exist; otherwise
// the browser host, opened in the default browser when there is one, saying why. The page's
// address carries the host's secret, so the browser gets it through a forwarding file, never
// as an argument (main/cli/browser-open.ts).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openInBrowser } from "../main/cli/browser-open.ts";
import { dataHome } from "../main/core/vault.ts";
import { findElectronBinary } from "./electron-binary.ts";

const root = join(import.meta.dirname, "..");
const shell = join(root, "dist", "main", "electron", "app.js");
const electron = findElectronBinary(root);
const extra = process.argv.slice(2);

if (electron.path && existsSync(shell)) {
  const child = spawn(electron.path, [root, ...extra], { stdio: "inherit" });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
} else {
  const why = "reason" in electron ? electron.reason : "the Electron shell is not built in this checkout";
  process.stderr.write(`Progress Desk: not starting the Electron app: ${why}.\nStarting the browser host instead (progress-desk host).\n`);
  const child = spawn(process.execPath, [join(root, "dist", "cli", "progress-desk.js"), "host", ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let first: string | null = null;
  let buf = "";
  if (!child.stdout) throw new Error("the host's stdout is not piped");
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    if (first !== null) return void process.stdout.write(chunk);
    buf += chunk;
    const nl = buf.indexOf("\n");
    if (nl < 0) return;
    first = buf.slice(0, nl);
    process.stdout.write(`${first}\n${buf.slice(nl + 1)}`);
    const byHand = "open the address above in a browser on this machine (paste it into the address bar).";
    openInBrowser(first, { dataDir: dataHome() }).then(
      (r) =>
        process.stderr.write(
          r.opened ? "Opened Progress Desk in your default browser.\n" : `Did not open a browser (${r.reason}): ${byHand}\n`,
        ),
      (err: unknown) => process.stderr.write(`Could not open a browser (${(err as Error).message}): ${byHand}\n`),
    );
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}
