// `node scripts/dist.ts [electron-builder args…]`: packages the built app (`npm run build`
// first) for this OS with the project's electron-builder and electron-builder.yml.
// On macOS with no signing identity configured (CSC_LINK / CSC_NAME) it signs ad hoc, which
// electron-builder.yml cannot express conditionally: since Electron 42 an unsigned app's
// notifications fail, an ad-hoc signed one's show.
// It records how the build was signed in the packaged package.json (`progressDeskBuild`,
// electron-builder's extraMetadata), which the app reads to decide whether it may update itself
// (main/core/updates/availability.ts): a record made where the decision is made, rather than
// the app parsing `codesign -dv` output at every start (a child process, an output format that
// is not an API, and nothing to run it on Linux or in tests).
// The update feed is PROGRESS_DESK_UPDATE_URL (electron-builder.yml's publish url); without it
// the build has no feed (app-update.yml names an empty url, which the app reads as none).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

// yargs passes "false" and "true" on as strings; electron-builder's schema check coerces them
// (and its CLI coerces extraMetadata's).
const RECORD = "-c.extraMetadata.progressDeskBuild";
export const AD_HOC = ["-c.mac.identity=-", "-c.mac.hardenedRuntime=false", `${RECORD}.signing=ad-hoc`] as const;
export const SIGNED_RECORD = `${RECORD}.signing=identity`;
export const UNSIGNED_RECORD = `${RECORD}.signing=none`;
export const NOTARIZE = ["-c.mac.notarize=true", `${RECORD}.notarized=true`] as const;

/** The update feed's base URL, read by electron-builder.yml's publish url (`${env.PROGRESS_DESK_UPDATE_URL}`). */
export const UPDATE_URL_ENV = "PROGRESS_DESK_UPDATE_URL";

/** The credential sets electron-builder's notarization step accepts (any one suffices). */
const NOTARY_CREDENTIALS = [
  ["APPLE_API_KEY", "APPLE_API_KEY_ID", "APPLE_API_ISSUER"],
  ["APPLE_ID", "APPLE_APP_SPECIFIC_PASSWORD", "APPLE_TEAM_ID"],
  ["APPLE_KEYCHAIN", "APPLE_KEYCHAIN_PROFILE"],
];

/** electron-builder's arguments for packaging on `platform`; throws where we do not package. */
export function builderArgs(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, userArgs: readonly string[]): string[] {
  if (platform === "linux") return ["--linux", ...userArgs];
  if (platform !== "darwin") throw new Error(`packaging runs on macOS or Linux, not ${platform}`);
  const args = ["--mac", ...userArgs];
  const identityArg = userArgs.findIndex((a) => /^(-c|--config)\.mac\.identity(=|$)/.test(a));
  const identityGiven = Boolean(env.CSC_LINK || env.CSC_NAME) || identityArg >= 0;
  if (!identityGiven) {
    // Under the hardened runtime, library validation rejects Electron's framework when nothing
    // carries a Team ID, so an ad-hoc app would not launch (electron-builder warns as much).
    // The hardened runtime only matters for notarization, which needs a real identity anyway.
    args.push(...AD_HOC);
    return args;
  }
  const given = userArgs[identityArg];
  const identity = given === undefined ? undefined : given.includes("=") ? given.slice(given.indexOf("=") + 1) : userArgs[identityArg + 1];
  // `-c.mac.identity=null` asks electron-builder not to sign at all.
  if (identity === "null" && !env.CSC_LINK && !env.CSC_NAME) return [...args, UNSIGNED_RECORD];
  args.push(SIGNED_RECORD);
  if (NOTARY_CREDENTIALS.some((set) => set.every((name) => env[name]))) args.push(...NOTARIZE);
  return args;
}

/**
 * electron-builder's environment: the feed URL checked, or set empty when there is none
 * (electron-builder refuses a publish url whose ${env.…} is undefined); throws on a URL
 * electron-updater could not fetch.
 */
export function builderEnv(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; feed: string | null } {
  const url = env[UPDATE_URL_ENV]?.trim() ?? "";
  if (url === "") return { env: { ...env, [UPDATE_URL_ENV]: "" }, feed: null };
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new Error(`${UPDATE_URL_ENV} must be an http(s) URL (got "${url}")`);
  return { env: { ...env, [UPDATE_URL_ENV]: url }, feed: url };
}

const NETWORK_ERROR = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b|socket hang up/;

/**
 * What to tell the user when electron-builder failed for want of a download, from its output;
 * null for any other failure. Its errors name only the host (github.com), not what it was
 * fetching: Electron itself, or on first use a tool such as its icon converter.
 */
export function downloadFailureHint(output: string): string | null {
  // eslint-disable-next-line no-control-regex -- strips the ANSI colour codes (ESC [ … m) electron-builder prints
  if (!NETWORK_ERROR.test(output.replace(/\x1b\[[0-9;]*m/g, ""))) return null;
  return (
    "electron-builder could not download Electron or one of its packaging tools (offline, or github.com is blocked). " +
    "Run it once where github.com is reachable (it caches what it fetches), set ELECTRON_MIRROR to a reachable Electron mirror, " +
    "or pass a downloaded Electron with -c.electronDist=<zip or folder>."
  );
}

async function main(): Promise<void> {
  const root = join(import.meta.dirname, "..");
  let args: string[];
  let built: ReturnType<typeof builderEnv>;
  try {
    args = builderArgs(process.platform, process.env, process.argv.slice(2));
    built = builderEnv(process.env);
  } catch (error) {
    console.error(`dist: ${(error as Error).message}`);
    process.exit(2);
  }
  console.error(
    built.feed === null
      ? `dist: no ${UPDATE_URL_ENV}: this build has no update feed (the app says so in Settings).`
      : `dist: update feed ${built.feed}: upload latest*.yml with the zip, dmg, AppImage and their .blockmap files there.`,
  );
  if (args.includes(AD_HOC[0])) {
    console.error(
      "dist: no signing identity (CSC_LINK or CSC_NAME): signing ad hoc, without the hardened runtime and notarization. The app runs on this Mac; elsewhere Gatekeeper blocks it.",
    );
  }
  if (args.includes(NOTARIZE[0])) console.error("dist: Apple notarization credentials found: notarizing.");

  const bin = join(root, "node_modules", ".bin", "electron-builder");
  if (!existsSync(bin)) {
    console.error("dist: electron-builder is not installed (run npm install)");
    process.exit(2);
  }
  // Pass the output through (in colour where ours is a terminal), keeping its tail to explain
  // a failure.
  let tail = "";
  const env = process.stdout.isTTY ? { ...built.env, FORCE_COLOR: "1" } : built.env;
  const child = spawn(bin, args, { cwd: root, env, stdio: ["inherit", "pipe", "pipe"] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    from.on("data", (chunk: Buffer) => {
      to.write(chunk);
      tail = (tail + chunk.toString()).slice(-64 * 1024);
    });
  }
  const code = await new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve(status ?? 1));
  });
  if (code === 0) return;
  const hint = downloadFailureHint(tail);
  console.error(`dist: ${hint ?? `electron-builder failed (exit ${code})`}`);
  process.exit(code);
}

if (import.meta.main) await main();
