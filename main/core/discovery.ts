// G1: zero-configuration discovery of a local Gateway. Explicit settings win, then the
// OPENCLAW_GATEWAY_* environment, then OpenClaw's own config file, then the default.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import JSON5 from "json5";

export const DEFAULT_GATEWAY_PORT = 18789;

export type GatewayCredentials = {
  url: string;
  token?: string;
  password?: string;
  /** A setup code from `openclaw qr` (bootstrap token). */
  bootstrapToken?: string;
};

export type Discovered = GatewayCredentials & {
  /** Where each value came from, for Settings and troubleshooting. */
  sources: { url: string; auth: string };
  /** Things the person must know, e.g. a token kept somewhere this app cannot read. */
  notes: string[];
};

/**
 * A discovered Gateway as a Gateway config: its URL, an optional label, and only the
 * credentials that were found (an absent one stays absent, never an empty string).
 */
export function discoveredGateway(discovered: Discovered, label?: string): GatewayCredentials & { label?: string } {
  const c: GatewayCredentials & { label?: string } = { url: discovered.url };
  if (label !== undefined) c.label = label;
  if (discovered.token) c.token = discovered.token;
  if (discovered.password) c.password = discovered.password;
  if (discovered.bootstrapToken) c.bootstrapToken = discovered.bootstrapToken;
  return c;
}

export type DiscoveryInput = {
  explicit?: Partial<GatewayCredentials>;
  env?: NodeJS.ProcessEnv;
  home?: string;
  readFile?: (path: string) => string;
};

/** The path OpenClaw itself reads its config from (docs/gateway.md §8.3). */
function expandHome(p: string, home: string): string {
  const t = p.trim();
  return /^~(?=$|[\\/])/.test(t) ? join(home, t.slice(1)) : t;
}

export function openclawConfigPath(env: NodeJS.ProcessEnv, home: string): string {
  const h = env.OPENCLAW_HOME?.trim() || home;
  if (env.OPENCLAW_CONFIG_PATH?.trim()) return expandHome(env.OPENCLAW_CONFIG_PATH, h);
  if (env.OPENCLAW_STATE_DIR?.trim()) return join(expandHome(env.OPENCLAW_STATE_DIR, h), "openclaw.json");
  return join(h, ".openclaw", "openclaw.json");
}

type FileFacts = { port?: number; token?: string; password?: string; mode?: string; notes: string[] };

function readConfigFile(path: string, env: NodeJS.ProcessEnv, read: (p: string) => string): FileFacts | null {
  let text: string;
  try {
    text = read(path);
  } catch {
    return null;
  }
  const notes: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (err) {
    return { notes: [`${path} is not valid JSON5 (${(err as Error).message}); enter the Gateway in Settings.`] };
  }
  const gateway = (parsed as { gateway?: Record<string, unknown> } | null)?.gateway;
  if (!gateway || typeof gateway !== "object") return { notes };
  const facts: FileFacts = { notes };
  if (Number.isInteger(gateway.port) && (gateway.port as number) > 0 && (gateway.port as number) < 65536) {
    facts.port = gateway.port as number;
  }
  const auth = gateway.auth as Record<string, unknown> | undefined;
  if (auth && typeof auth === "object") {
    if (typeof auth.mode === "string") facts.mode = auth.mode;
    for (const field of ["token", "password"] as const) {
      const value = auth[field];
      if (typeof value === "string" && value !== "") {
        const refName = /^\$\{([A-Z0-9_]+)\}$/.exec(value)?.[1];
        const resolved = refName !== undefined ? env[refName] : value;
        if (resolved) facts[field] = resolved;
        else notes.push(`gateway.auth.${field} refers to $${refName}, which is not set here; enter the ${field} in Settings.`);
      } else if (value && typeof value === "object") {
        notes.push(`gateway.auth.${field} is kept in a secret store this app cannot read; enter the ${field} in Settings.`);
      }
    }
  }
  return facts;
}

export function discoverGateway(input: DiscoveryInput = {}): Discovered {
  const env = input.env ?? process.env;
  const home = input.home ?? homedir();
  const read = input.readFile ?? ((p: string) => readFileSync(p, "utf8"));
  const explicit = input.explicit ?? {};
  const configPath = openclawConfigPath(env, home);
  const file = readConfigFile(configPath, env, read);
  const notes = [...(file?.notes ?? [])];

  let url: string;
  let urlSource: string;
  if (explicit.url) {
    url = explicit.url;
    urlSource = "settings";
  } else if (env.OPENCLAW_GATEWAY_URL) {
    url = env.OPENCLAW_GATEWAY_URL;
    urlSource = "OPENCLAW_GATEWAY_URL";
  } else if (env.OPENCLAW_GATEWAY_PORT && /^\d+$/.test(env.OPENCLAW_GATEWAY_PORT)) {
    url = `ws://127.0.0.1:${env.OPENCLAW_GATEWAY_PORT}`;
    urlSource = "OPENCLAW_GATEWAY_PORT";
  } else if (file?.port) {
    url = `ws://127.0.0.1:${file.port}`;
    urlSource = configPath;
  } else {
    url = `ws://127.0.0.1:${DEFAULT_GATEWAY_PORT}`;
    urlSource = "default";
  }

  const result: Discovered = { url, sources: { url: urlSource, auth: "none" }, notes };
  if (explicit.token || explicit.password || explicit.bootstrapToken) {
    if (explicit.token) result.token = explicit.token;
    if (explicit.password) result.password = explicit.password;
    if (explicit.bootstrapToken) result.bootstrapToken = explicit.bootstrapToken;
    result.sources.auth = "settings";
  } else if (env.OPENCLAW_GATEWAY_TOKEN || env.OPENCLAW_GATEWAY_PASSWORD) {
    if (env.OPENCLAW_GATEWAY_TOKEN) result.token = env.OPENCLAW_GATEWAY_TOKEN;
    if (env.OPENCLAW_GATEWAY_PASSWORD) result.password = env.OPENCLAW_GATEWAY_PASSWORD;
    result.sources.auth = env.OPENCLAW_GATEWAY_TOKEN ? "OPENCLAW_GATEWAY_TOKEN" : "OPENCLAW_GATEWAY_PASSWORD";
  } else if (
    file &&
    (!["settings", "OPENCLAW_GATEWAY_URL"].includes(urlSource) || sameLocalGateway(url, file.port ?? DEFAULT_GATEWAY_PORT))
  ) {
    // The file's credentials belong to the file's Gateway, not to one named elsewhere.
    const usePassword = file.mode === "password";
    if (usePassword && file.password) result.password = file.password;
    else if (file.token) result.token = file.token;
    else if (file.password) result.password = file.password;
    if (result.token || result.password) result.sources.auth = configPath;
  }
  return result;
}

function sameLocalGateway(url: string, port: number): boolean {
  try {
    const u = new URL(url);
    return ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname) && Number(u.port || 80) === port;
  } catch {
    return false;
  }
}

/** A stable, readable id for a Gateway URL: the same URL always keys the same cards. */
export function gatewayIdForUrl(url: string): string {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === "wss:" ? "443" : "80");
    return `${u.hostname.replace(/[^a-z0-9.-]/gi, "_")}-${port}${u.pathname !== "/" ? u.pathname.replace(/[^a-z0-9]/gi, "_") : ""}`;
  } catch {
    return url.replace(/[^a-z0-9.-]/gi, "_");
  }
}
