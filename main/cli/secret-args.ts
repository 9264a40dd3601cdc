// Gateway secrets on the command line. A value given as `--token x` sits in the process list,
// where every local user can read it; `--token-file F` (or `-` for standard input) and the
// environment do not. This module turns the flags into the secrets, refusing ambiguous or
// unreadable input with a usage error; the caller prints warnings and errors.
import { open } from "node:fs/promises";
import { DeskError, ERROR_CODES, failure, ok, type Result } from "../../common/errors.ts";

/** A secret read from a file is one line of at most this many bytes. */
const MAX_SECRET_BYTES = 16 * 1024;

export type SecretKind = "token" | "password" | "setup-code";

/** What parseArgs gave for one kind: the value itself, or where to read it. */
export type SecretFlags = Partial<Record<SecretKind | `${SecretKind}-file`, string>>;

export type Secrets = { token?: string; password?: string; setupCode?: string };

/** Wrong or unreadable input is an expected failure: a USAGE DeskError, returned; the command exits with the usage status, saying why. */
const usage = (message: string): Result<never> => failure(new DeskError(ERROR_CODES.usage, message));

export type SecretSources = {
  /** Reads all of standard input (for `-`). */
  readStdin: () => Promise<Buffer>;
  readFile?: (path: string) => Promise<Buffer>;
};

const KINDS: readonly SecretKind[] = ["token", "password", "setup-code"];
const ENV_HINT: Record<SecretKind, string> = {
  token: "--token-file or OPENCLAW_GATEWAY_TOKEN",
  password: "--password-file or OPENCLAW_GATEWAY_PASSWORD",
  "setup-code": "--setup-code-file",
};

/**
 * Checks the flags for conflicts, without reading anything: a value and a file for the same
 * secret, a token and a password, or two secrets both from standard input.
 */
export function checkSecretFlags(flags: SecretFlags): Result<void> {
  for (const kind of KINDS) {
    if (flags[kind] !== undefined && flags[`${kind}-file`] !== undefined) {
      return usage(`give --${kind} or --${kind}-file, not both`);
    }
  }
  const hasToken = flags.token !== undefined || flags["token-file"] !== undefined;
  const hasPassword = flags.password !== undefined || flags["password-file"] !== undefined;
  if (hasToken && hasPassword) return usage("give a token or a password, not both");
  const fromStdin = KINDS.filter((k) => flags[`${k}-file`] === "-");
  if (fromStdin.length > 1)
    return usage(`only one secret can come from standard input (${fromStdin.map((k) => `--${k}-file -`).join(", ")})`);
  for (const kind of KINDS) {
    if (flags[kind] === "") return usage(`--${kind} is empty`);
    if (flags[`${kind}-file`] === "") return usage(`--${kind}-file needs a file name, or - for standard input`);
  }
  return ok(undefined);
}

/** One warning line per secret given as a plain value: it is visible in the process list. */
export function secretFlagWarnings(flags: SecretFlags): string[] {
  return KINDS.filter((k) => flags[k] !== undefined).map(
    (k) => `warning: --${k} can be read by other users of this computer in the process list; use ${ENV_HINT[k]} instead`,
  );
}

/** The secrets the flags name, with files and standard input read; a USAGE failure says what is wrong. */
export async function resolveSecrets(flags: SecretFlags, sources: SecretSources): Promise<Result<Secrets>> {
  const checked = checkSecretFlags(flags);
  if (!checked.ok) return checked;
  const out: Secrets = {};
  const field = { token: "token", password: "password", "setup-code": "setupCode" } as const;
  for (const kind of KINDS) {
    const path = flags[`${kind}-file`];
    if (path === undefined) {
      if (flags[kind] !== undefined) out[field[kind]] = flags[kind];
      continue;
    }
    const read = await readSecret(`--${kind}-file`, path, sources);
    if (!read.ok) return read;
    out[field[kind]] = read.value;
  }
  return ok(out);
}

async function readSecret(flag: string, path: string, sources: SecretSources): Promise<Result<string>> {
  const where = path === "-" ? "standard input" : `"${path}"`;
  let bytes: Buffer;
  try {
    bytes = path === "-" ? await sources.readStdin() : await (sources.readFile ?? readBoundedFile)(path);
  } catch (err) {
    return usage(`${flag}: cannot read ${where}: ${describeReadError(err)}`);
  }
  if (bytes.length > MAX_SECRET_BYTES)
    return usage(`${flag}: ${where} is longer than ${MAX_SECRET_BYTES} bytes; it should hold just the secret`);
  // One line: the usual trailing newline (or CRLF) is not part of the secret.
  const text = bytes.toString("utf8").replace(/(?:\r?\n)+$/, "");
  if (text.trim() === "") return usage(`${flag}: ${where} is empty`);
  // Never quote the content: it may be the secret.
  if (/[\r\n]/.test(text)) return usage(`${flag}: ${where} holds more than one line; it should hold just the secret`);
  return ok(text);
}

function describeReadError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "ENOENT":
      return "no such file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a folder";
    default:
      return e.message ?? String(err);
  }
}

/** Reads at most one byte past the limit (a device or a huge file is never read whole). */
async function readBoundedFile(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    if ((await handle.stat()).isDirectory()) throw new DeskError("EISDIR", "is a directory");
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= MAX_SECRET_BYTES) {
      const buf = Buffer.alloc(MAX_SECRET_BYTES + 1 - total);
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

/** Reads standard input to its end, stopping one byte past the limit. */
export async function readBoundedStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buf);
    total += buf.length;
    if (total > MAX_SECRET_BYTES) break;
  }
  return Buffer.concat(chunks);
}
