// `progress-desk watch --json` from the built CLI (npm run build), run as a person would run it.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const builtCli = join(import.meta.dirname, "..", "..", "dist", "cli", "progress-desk.js");

/**
 * Starts `watch --json` against `gw`, at home in `home` (its data folder there too) and with no
 * OPENCLAW_* variable of the test's own environment; everything it prints goes to `onOutput`.
 */
export function spawnWatchJson(
  gw: { url: string; token: string },
  home: string,
  onOutput: (chunk: string) => void,
  extraArgs: string[] = [],
): ChildProcess {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries({ ...process.env, HOME: home, PROGRESS_DESK_HOME: join(home, "pd") }).filter(([k]) => !k.startsWith("OPENCLAW_")),
  );
  const child = spawn(process.execPath, [builtCli, "watch", "--json", "--url", gw.url, "--token", gw.token, ...extraArgs], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.setEncoding("utf8").on("data", onOutput);
  return child;
}
