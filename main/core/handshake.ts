// The handshake of one connection attempt: what Progress Desk asks a Gateway for (role,
// scopes, the approvals capability, protocol, credentials, and the device token it keeps in
// the vault) and what a hello grants (connected, or limited when scopes are missing).
// connection.ts owns the lifecycle around it.
import type { GatewayClientOptions } from "@openclaw/gateway-client";
import { PROTOCOL_VERSION } from "./connection-state.ts";
import { publicKeyRawBase64UrlFromPem, signDevicePayload, type DeviceIdentity } from "./identity.ts";
import type { ConnectionState } from "../../common/model.ts";
import type { CredentialVault } from "./vault.ts";
import type { Logger } from "./logger.ts";

export type Hello = {
  protocol?: number;
  server?: { version?: string };
  features?: { methods?: string[]; events?: string[]; capabilities?: string[] };
  auth?: { role?: string; scopes?: string[]; deviceToken?: string };
  policy?: { tickIntervalMs?: number };
};

export type HandshakeOptions = {
  url: string;
  token?: string;
  password?: string;
  bootstrapToken?: string;
  vault: CredentialVault;
  identity: DeviceIdentity;
  clientName: "openclaw-macos" | "openclaw-linux";
  platform: string;
  clientVersion: string;
  requestTimeoutMs?: number;
  /**
   * The person turned on answering approvals and questions here (Y6): ask for the two
   * scopes and declare the `approvals` capability, which makes this connection an approval
   * surface the Gateway routes requests to. Off: neither (docs/gateway.md §10.2).
   */
  answerApprovals?: boolean;
};

const ROLE = "operator";
const SCOPES = ["operator.read", "operator.write"];
/** Asked for only while answering is on (docs/gateway.md §10.1). */
export const ANSWER_SCOPES = ["operator.approvals", "operator.questions"];
const ANSWER_CAPS = ["approvals"];

/** How the official client's device tokens are named in the vault: by exact URL, device and role. */
function deviceTokenKey(url: string, deviceId: string, role: string): string {
  return `device-token|${url}|${deviceId}|${role}`;
}

/** Forgets this device's token for the Gateway (a stale one: the next attempt pairs again). */
export function forgetDeviceToken(opts: HandshakeOptions): void {
  opts.vault.delete(deviceTokenKey(opts.url, opts.identity.deviceId, ROLE));
}

/**
 * The client options of one attempt, without its callbacks (the connection adds those).
 * Device tokens are read and written through the vault, and protected in the log.
 */
export function handshakeOptions(opts: HandshakeOptions, log: Logger): GatewayClientOptions {
  const { vault, identity } = opts;
  const hasDeviceToken = vault.get(deviceTokenKey(opts.url, identity.deviceId, ROLE)) !== null;
  const clientOpts: GatewayClientOptions = {
    url: opts.url,
    clientName: opts.clientName,
    clientVersion: opts.clientVersion,
    clientDisplayName: "Progress Desk",
    platform: opts.platform,
    mode: "ui",
    role: ROLE,
    scopes: opts.answerApprovals ? [...SCOPES, ...ANSWER_SCOPES] : SCOPES,
    ...(opts.answerApprovals ? { caps: ANSWER_CAPS } : {}),
    minProtocol: PROTOCOL_VERSION,
    maxProtocol: PROTOCOL_VERSION,
    deviceIdentity: identity,
    requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
    hostDeps: {
      signDevicePayload,
      publicKeyRawBase64UrlFromPem,
      loadDeviceAuthToken: ({ deviceId, role }) => {
        const stored = vault.get(deviceTokenKey(opts.url, deviceId, role));
        if (!stored) return null;
        try {
          const saved = JSON.parse(stored) as { token?: string; scopes?: string[] };
          log.protect(saved.token);
          return saved;
        } catch {
          return null;
        }
      },
      storeDeviceAuthToken: ({ deviceId, role, token, scopes }) => {
        log.protect(token);
        log.debug("device token issued", { role, scopes });
        vault.set(deviceTokenKey(opts.url, deviceId, role), JSON.stringify({ token, scopes }));
      },
      clearDeviceAuthToken: ({ deviceId, role }) => vault.delete(deviceTokenKey(opts.url, deviceId, role)),
    },
  };
  // Passwords and shared tokens win over a stored device token inside the client; a
  // setup code is only needed until the first device token is issued.
  if (opts.token) clientOpts.token = opts.token;
  if (opts.password) clientOpts.password = opts.password;
  if (opts.bootstrapToken && !hasDeviceToken) {
    clientOpts.bootstrapToken = opts.bootstrapToken;
    clientOpts.preferBootstrapToken = true;
  }
  return clientOpts;
}

/** The state a compatible hello grants: connected, limited unless both read and write were granted. */
export function connectedState(hello: Hello, url: string, now: number): ConnectionState {
  const scopes = hello.auth?.scopes ?? [];
  const limited = !SCOPES.every((s) => scopes.includes(s));
  return {
    state: "connected",
    since: now,
    serverVersion: hello.server?.version ?? null,
    scopes,
    limited,
    advice: limited
      ? `Limited access: the Gateway granted ${scopes.length ? scopes.join(", ") : "no scopes"}. Approve the scope upgrade on the Gateway host (\`openclaw devices list\`).`
      : `Connected to ${url}.`,
  };
}
