// G2: a Gateway's connection state as a banner that says what to do. Pure. Also the one
// banner that is not about a single Gateway: saved secrets the keychain won't give back.
import { KEYCHAIN_UNAVAILABLE, KEYCHAIN_UNAVAILABLE_ADVICE, type CredentialStorage } from "../../common/credential-storage.ts";
import type { ConnectionState } from "../../common/model.ts";
import { approveCommand } from "../../common/pairing-command.ts";

export type BannerTone = "info" | "warn" | "error";
export type BannerAction = "retry" | "settings";

export type Banner = {
  kind: ConnectionState["state"] | "limited" | "keychain_unavailable";
  tone: BannerTone;
  title: string;
  /** Offline: "retrying in N s", shown after the title (kept out of live announcements). */
  countdown: string | null;
  /** What to do, as text and `code` segments (never HTML). */
  detail: Segment[];
  /** For offline: when the next attempt starts (ms), for a live countdown. */
  retryAt: number | null;
  /** Pairing: the request id and the exact command to copy. */
  requestId: string | null;
  command: string | null;
  actions: BannerAction[];
  /** Connecting / offline are passing states: shown calmly, and announced politely. */
  urgent: boolean;
};

export type Segment = { text: string; code: boolean };

/** Splits advice such as "run `openclaw devices list`" into text and code segments. */
export function segments(text: string): Segment[] {
  const out: Segment[] = [];
  const parts = text.split("`");
  parts.forEach((part, i) => {
    if (part === "") return;
    // An unmatched trailing backtick leaves the rest as plain text.
    const code = i % 2 === 1 && i < parts.length - 1;
    out.push({ text: part, code });
  });
  return out;
}

/** "retrying in N s", from the attempt's nextRetryAt. */
export function retryCountdown(nextRetryAt: number, now: number): string {
  const s = Math.ceil((nextRetryAt - now) / 1000);
  return s > 0 ? `Retrying in ${s} s` : "Retrying now…";
}

const SETTING_TEXT: Record<Extract<ConnectionState, { state: "auth_failed" }>["setting"], string> = {
  token: "Check the Gateway token",
  password: "Check the Gateway password",
  "setup code": "Paste a new setup code",
  "device token": "Enter the Gateway token to pair again",
  identity: "This device's identity was refused",
  url: "Use a secure (wss://) address",
};

/** null when there is nothing to say (connected with full access). */
export function connectionBanner(label: string, state: ConnectionState, now: number = Date.now()): Banner | null {
  const base = { retryAt: null, countdown: null, requestId: null, command: null, actions: [] as BannerAction[] };
  switch (state.state) {
    case "connected":
      if (!state.limited) return null;
      return {
        ...base,
        kind: "limited",
        tone: "warn",
        title: `Limited access to ${label}`,
        detail: segments(state.advice),
        urgent: false,
      };
    case "connecting":
      return {
        ...base,
        kind: "connecting",
        tone: "info",
        title: `Connecting to ${label}…`,
        detail: state.attempt > 1 ? [{ text: `Attempt ${state.attempt}.`, code: false }] : [],
        urgent: false,
      };
    case "offline": {
      const what = state.restarting ? `${label} is restarting` : `${label} is offline`;
      const hint = state.restarting
        ? "Cards stay visible, marked with when they were last confirmed."
        : `Can't reach the Gateway (${state.reason}). Is \`openclaw gateway\` running there? Cards stay visible, marked offline.`;
      return {
        ...base,
        kind: "offline",
        tone: state.restarting ? "info" : "warn",
        title: what,
        countdown: retryCountdown(state.nextRetryAt, now).toLowerCase(),
        detail: segments(hint),
        retryAt: state.nextRetryAt,
        actions: ["retry"],
        urgent: false,
      };
    }
    case "pairing_required": {
      const command = state.command ?? (state.requestId ? approveCommand(state.requestId) : null);
      return {
        ...base,
        kind: "pairing_required",
        tone: "warn",
        title: `Approve this device on ${label}`,
        detail: segments(command ? "On the Gateway host, run this command within 5 minutes, then reconnect." : state.advice),
        requestId: state.requestId,
        command,
        actions: ["retry"],
        urgent: true,
      };
    }
    case "auth_failed":
      return {
        ...base,
        kind: "auth_failed",
        tone: "error",
        title: `${label} refused the sign-in: ${SETTING_TEXT[state.setting].toLowerCase()}`,
        detail: segments(state.advice),
        actions: ["settings", "retry"],
        urgent: true,
      };
    case "update_required":
      return {
        ...base,
        kind: "update_required",
        tone: "error",
        title: `${label} needs an update`,
        detail: segments(`${capitalize(state.reason)}. ${state.advice}`),
        actions: ["retry"],
        urgent: true,
      };
  }
}

/** The keychain banner, shown above every Gateway's (null unless saved secrets can't be read). */
export function credentialBanner(storage: CredentialStorage | null | undefined): Banner | null {
  if (storage !== "unavailable") return null;
  return {
    kind: "keychain_unavailable",
    tone: "error",
    title: KEYCHAIN_UNAVAILABLE,
    countdown: null,
    detail: segments(KEYCHAIN_UNAVAILABLE_ADVICE),
    retryAt: null,
    requestId: null,
    command: null,
    actions: ["settings"],
    urgent: true,
  };
}

/**
 * Whether a Gateway's first reading of its cards can still be going on (until its roster was read,
 * `cardsKnown`): connected, or on its first try to connect. One that failed to connect is not: its
 * banner says why, and a "loading" would flicker with each retry.
 */
export function firstLoadGoesOn(c: ConnectionState): boolean {
  return c.state === "connected" || (c.state === "connecting" && c.attempt <= 1);
}

/** One short word for lists (Settings, dashboard). */
export function connectionWord(state: ConnectionState): string {
  switch (state.state) {
    case "connected":
      return state.limited ? "Connected (limited access)" : "Connected";
    case "connecting":
      return "Connecting…";
    case "offline":
      return state.restarting ? "Restarting" : "Offline";
    case "pairing_required":
      return "Pairing required";
    case "auth_failed":
      return "Sign-in failed";
    case "update_required":
      return "Update required";
  }
}

function capitalize(s: string): string {
  return s.length > 0 ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
