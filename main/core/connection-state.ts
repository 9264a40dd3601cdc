// G2: turning what the Gateway (or the socket) said into a connection state that tells
// the person what to do. Pure: no sockets, no timers.
import type { ConnectionState } from "../../common/model.ts";
import { approveCommand } from "../../common/pairing-command.ts";

export const PROTOCOL_VERSION = 4;
/** Methods the app cannot work without; checked on every hello (docs/gateway.md §2.1). */
export const REQUIRED_METHODS = ["progressCard.get", "sessions.subscribe"] as const;

export type ErrorFacts = {
  /** error.code of a Gateway response (INVALID_REQUEST, NOT_PAIRED, …), or a socket error code. */
  code: string | null;
  /** details.code (AUTH_TOKEN_MISMATCH, PAIRING_REQUIRED, …). */
  detailCode: string | null;
  details: Record<string, unknown> | null;
  message: string;
  retryAfterMs: number | undefined;
};

export function errorFacts(err: unknown): ErrorFacts {
  const e = (err ?? {}) as Record<string, unknown>;
  const details = e.details && typeof e.details === "object" ? (e.details as Record<string, unknown>) : null;
  const code = typeof e.gatewayCode === "string" ? e.gatewayCode : typeof e.code === "string" ? e.code : null;
  return {
    code,
    detailCode: typeof details?.code === "string" ? details.code : null,
    details,
    message: err instanceof Error ? err.message : String(err ?? "unknown error"),
    retryAfterMs:
      typeof e.retryAfterMs === "number" ? e.retryAfterMs : typeof details?.retryAfterMs === "number" ? details.retryAfterMs : undefined,
  };
}

const TOKEN_CODES = new Set(["AUTH_TOKEN_MISSING", "AUTH_TOKEN_MISMATCH", "AUTH_TOKEN_INVALID", "AUTH_SCOPE_MISMATCH"]);
const PASSWORD_CODES = new Set(["AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH"]);
const UPDATE_CODES = new Set(["PROTOCOL_MISMATCH", "CLIENT_VERSION_MISMATCH", "CONTROL_UI_BUILD_MISMATCH"]);

/**
 * The state for a failure after which the official client stops reconnecting
 * (docs/gateway.md §2.3), or null when the failure is not one of those.
 */
export function terminalState(facts: ErrorFacts, ctx: { url: string; deviceId: string }): ConnectionState | null {
  const dc = facts.detailCode;
  if (facts.code === "NOT_PAIRED" || dc === "PAIRING_REQUIRED") {
    const requestId = typeof facts.details?.requestId === "string" ? facts.details.requestId : null;
    const reason = typeof facts.details?.reason === "string" ? facts.details.reason : "not-paired";
    const command = requestId ? approveCommand(requestId) : null;
    const what =
      reason === "not-paired"
        ? "This device is not paired with the Gateway yet."
        : `The Gateway asks to approve a ${reason.replace(/-/g, " ")}.`;
    return {
      state: "pairing_required",
      requestId,
      deviceId: ctx.deviceId,
      command,
      reason,
      advice: command
        ? `${what} On the Gateway host run \`${command}\` within 5 minutes (\`openclaw devices list\` shows pending requests), then reconnect.`
        : `${what} On the Gateway host run \`openclaw devices list\` and approve device ${ctx.deviceId.slice(0, 12)}…, then reconnect.`,
    };
  }
  if (dc && UPDATE_CODES.has(dc)) {
    return {
      state: "update_required",
      reason: dc === "PROTOCOL_MISMATCH" ? `the Gateway does not speak protocol ${PROTOCOL_VERSION}` : facts.message,
      advice: `The Gateway at ${ctx.url} is not compatible with this app (${dc}). Update OpenClaw on the Gateway host (openclaw 2026.9.6 or later) or update Progress Desk.`,
    };
  }
  if (dc === null || !(dc.startsWith("AUTH_") || dc.startsWith("DEVICE_") || dc.includes("DEVICE_IDENTITY"))) {
    return null;
  }
  if (TOKEN_CODES.has(dc)) {
    return {
      state: "auth_failed",
      code: dc,
      setting: "token",
      advice:
        dc === "AUTH_TOKEN_MISSING"
          ? `The Gateway at ${ctx.url} needs a token. Set it in Settings, or OPENCLAW_GATEWAY_TOKEN (it is gateway.auth.token in ~/.openclaw/openclaw.json on the Gateway host).`
          : `The Gateway at ${ctx.url} rejected the token (${dc}). Copy gateway.auth.token from ~/.openclaw/openclaw.json on the Gateway host into Settings, or set OPENCLAW_GATEWAY_TOKEN.`,
    };
  }
  if (PASSWORD_CODES.has(dc)) {
    return {
      state: "auth_failed",
      code: dc,
      setting: "password",
      advice: `The Gateway at ${ctx.url} ${dc === "AUTH_PASSWORD_MISSING" ? "needs a password" : "rejected the password"}. Set gateway.auth.password in Settings, or OPENCLAW_GATEWAY_PASSWORD.`,
    };
  }
  if (dc === "AUTH_BOOTSTRAP_TOKEN_INVALID") {
    return {
      state: "auth_failed",
      code: dc,
      setting: "setup code",
      advice:
        "The setup code was not accepted (codes expire and work once). Run `openclaw qr` on the Gateway host and paste the new code in Settings.",
    };
  }
  if (dc === "AUTH_RATE_LIMITED") {
    return {
      state: "auth_failed",
      code: dc,
      setting: "token",
      advice: `The Gateway paused logins after repeated failures. Check the token or password in Settings, then reconnect${facts.retryAfterMs ? ` in ${Math.ceil(facts.retryAfterMs / 1000)} s` : " later"}.`,
    };
  }
  if (dc === "AUTH_DEVICE_TOKEN_MISMATCH") {
    return {
      state: "auth_failed",
      code: dc,
      setting: "device token",
      advice:
        "The Gateway no longer accepts this device's token (the device was removed or rotated). Enter the Gateway token in Settings to pair again.",
    };
  }
  return {
    state: "auth_failed",
    code: dc,
    setting: "identity",
    advice: `The Gateway refused this device's identity (${dc}). Remove the device with \`openclaw devices list\` / \`openclaw devices remove\` on the Gateway host, then reconnect to pair again.`,
  };
}

/** Checks a hello-ok payload for what the app needs; null when it is fine. */
export function checkHello(hello: unknown, url: string): ConnectionState | null {
  const h = (hello ?? {}) as { protocol?: unknown; features?: { methods?: unknown } };
  if (h.protocol !== PROTOCOL_VERSION) {
    return {
      state: "update_required",
      reason: `the Gateway answered with protocol ${String(h.protocol)}, this app speaks ${PROTOCOL_VERSION}`,
      advice: `Update OpenClaw on the Gateway host at ${url} (openclaw 2026.9.6 or later), or update Progress Desk.`,
    };
  }
  const methods = Array.isArray(h.features?.methods) ? (h.features.methods as unknown[]) : [];
  const missing = REQUIRED_METHODS.filter((m) => !methods.includes(m));
  if (missing.length > 0) {
    return {
      state: "update_required",
      reason: `the Gateway lacks ${missing.join(", ")}`,
      advice: `The Gateway at ${url} has no progress cards (${missing.join(", ")} missing). Update OpenClaw on the Gateway host to 2026.9.6 or later.`,
    };
  }
  return null;
}

export function offlineAdvice(url: string, reason: string, retryInMs: number, restarting: boolean): string {
  const when = `Retrying in ${Math.max(1, Math.ceil(retryInMs / 1000))} s.`;
  if (restarting) return `The Gateway at ${url} is restarting. ${when}`;
  return `Cannot reach the Gateway at ${url} (${reason}). ${when} Is \`openclaw gateway\` running there?`;
}

/** Nothing listened at the Gateway's address: the attempt never reached a Gateway. */
export function wasRefused(err: ErrorFacts | null): boolean {
  return err?.code === "ECONNREFUSED" || /ECONNREFUSED/.test(err?.message ?? "");
}

/** Short text for a socket-level close or error, for the offline reason. */
export function describeDisconnect(code: number | null, reason: string, err: ErrorFacts | null): string {
  if (wasRefused(err)) return "connection refused";
  if (err?.code === "ENOTFOUND" || /ENOTFOUND/.test(err?.message ?? "")) return "host not found";
  if (err?.code === "ETIMEDOUT" || /ETIMEDOUT/.test(err?.message ?? "")) return "timed out";
  if (code === 1012) return "Gateway restarting";
  if (code === 4000) return "no heartbeat from the Gateway";
  if (code === 1006) return "connection lost";
  if (code === 1013) return "Gateway starting";
  if (reason) return reason;
  if (err?.message) return err.message;
  return code === null ? "disconnected" : `closed (${code})`;
}
