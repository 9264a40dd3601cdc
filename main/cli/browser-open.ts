// Opening a host page in the person's browser without its secret on any command line. A
// browser keeps its arguments for as long as it runs and every local user can read them (`ps`),
// so the opener (`open`, `xdg-open`, `$BROWSER`) is given a forwarding file instead: a page only
// the person can read (0600 in a 0700 folder under the data folder) that replaces itself with
// the real one. location.replace, so the file's entry does not stay in the browser's history;
// a meta refresh and a link where script does not run. The file is removed once the browser has
// had time to read it, and at the latest when this process exits.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Where forwarding files are written, under the data folder. */
export const FORWARDING_FOLDER = "open";
/** Long enough for a browser that was not running to start and read the file. */
export const FORWARDING_FILE_LIFETIME_MS = 30_000;

const FILE_NAME = /^forward-[0-9a-f]{32}\.html$/;

/** A program that opens a file in a browser, and the arguments it is given for one file. */
export type BrowserOpener = { name: string; command: string; args(file: string): string[] };

function executableOnPath(command: string, env: NodeJS.ProcessEnv): string | null {
  const candidates = isAbsolute(command)
    ? [command]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter((d) => d !== "")
        .map((d) => join(d, command));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * `$BROWSER` first (colon-separated commands, `%s` standing for the address; never run through a
 * shell), then the platform's file opener (`open` on macOS, `xdg-open` where a display is).
 */
export function findBrowserOpener(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): BrowserOpener | null {
  for (const entry of (env.BROWSER ?? "").split(":")) {
    const [command, ...rest] = entry.trim().split(/\s+/);
    if (!command) continue;
    const path = executableOnPath(command, env);
    if (path === null) continue;
    const words = rest.length > 0 ? rest : ["%s"];
    // A browser takes an address: the file's file:// URL.
    return {
      name: command,
      command: path,
      args: (file) => {
        const url = pathToFileURL(file).href;
        return words.some((w) => w.includes("%s")) ? words.map((w) => w.replaceAll("%s", url)) : [...words, url];
      },
    };
  }
  const fileOpener = platform === "darwin" ? "open" : platform === "win32" ? null : "xdg-open";
  if (fileOpener === null) return null;
  if (platform !== "darwin" && !env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  const path = executableOnPath(fileOpener, env);
  return path === null ? null : { name: fileOpener, command: path, args: (file) => [file] };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The forwarding page for `url` (an http or https address). */
export function forwardingPage(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`not a web address: ${parsed.protocol}`);
  const href = parsed.href;
  const js = JSON.stringify(href).replace(/</g, "\\u003c");
  const attr = escapeHtml(href);
  return [
    "<!doctype html>",
    '<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">',
    "<title>Opening Progress Desk</title>",
    `<script>location.replace(${js});</script>`,
    `<noscript><meta http-equiv="refresh" content="0; url=${attr}"></noscript>`,
    `</head><body><p><a href="${attr}">Open Progress Desk</a></p></body></html>`,
    "",
  ].join("\n");
}

/** The 0700 folder for forwarding files, made or tightened; refused if it is not ours. */
function forwardingFolder(dataDir: string): string {
  const dir = join(dataDir, FORWARDING_FOLDER);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (typeof process.getuid === "function" && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  chmodSync(dir, 0o700);
  return dir;
}

/** Forwarding files an earlier run left behind (it crashed or was killed), once they are old. */
function sweepLeftovers(dir: string, olderThanMs: number): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!FILE_NAME.test(name)) continue;
    const path = join(dir, name);
    try {
      if (now - lstatSync(path).mtimeMs > olderThanMs) rmSync(path, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}

export type ForwardingFile = { path: string; remove(): void };

/** Writes a new forwarding file to `url`: created 0600, never over an existing file or link. */
export function writeForwardingFile(dataDir: string, url: string, lifetimeMs = FORWARDING_FILE_LIFETIME_MS): ForwardingFile {
  const page = forwardingPage(url);
  const dir = forwardingFolder(dataDir);
  sweepLeftovers(dir, lifetimeMs);
  const path = join(dir, `forward-${randomBytes(16).toString("hex")}.html`);
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, page);
  } finally {
    closeSync(fd);
  }
  return { path, remove: () => rmSync(path, { force: true }) };
}

export type OpenOptions = {
  /** The data folder ($PROGRESS_DESK_HOME or the default one): the forwarding file goes under it. */
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** How long the forwarding file stays (default FORWARDING_FILE_LIFETIME_MS). */
  lifetimeMs?: number;
};

export type OpenResult = { opened: true; opener: string } | { opened: false; reason: string };

/** Opens `url` in the person's browser through a forwarding file; the address is never an argument. */
export async function openInBrowser(url: string, opts: OpenOptions): Promise<OpenResult> {
  const env = opts.env ?? process.env;
  const opener = findBrowserOpener(env, opts.platform ?? process.platform);
  if (opener === null) return { opened: false, reason: "no $BROWSER, and no `open` or `xdg-open` with a display" };
  const lifetimeMs = opts.lifetimeMs ?? FORWARDING_FILE_LIFETIME_MS;
  const file = writeForwardingFile(opts.dataDir, url, lifetimeMs);
  const removeAtExit = (): void => file.remove();
  process.on("exit", removeAtExit);
  const remove = (): void => {
    clearTimeout(timer);
    process.off("exit", removeAtExit);
    file.remove();
  };
  // Unref'd: an exit before then removes the file through the exit hook instead.
  const timer = setTimeout(remove, lifetimeMs);
  timer.unref();
  const child = spawn(opener.command, opener.args(file.path), { stdio: "ignore", detached: true, env });
  const started = await new Promise<Error | null>((resolve) => {
    child.once("spawn", () => resolve(null));
    child.once("error", resolve);
  });
  if (started !== null) {
    remove();
    return { opened: false, reason: `${opener.name} could not be started: ${started.message}` };
  }
  // An opener that fails leaves nothing for the browser to read.
  child.once("exit", (code) => {
    if (code !== 0 && code !== null) remove();
  });
  child.unref();
  return { opened: true, opener: opener.name };
}
