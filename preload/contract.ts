// The whole surface a page can touch, typed once and used by main (Electron IPC), the
// preload bridge, the browser host's WebSocket bridge and the renderer. A page asks with
// one of these verbs and hears the two events; nothing else crosses. Tokens never do:
// Gateway settings come back with `hasToken`-style flags only.
import type { ActivityMode } from "../main/core/activity.ts";
import type { DismissResult } from "../main/core/actions.ts";
import type { CredentialStorage } from "../main/core/credential-storage.ts";
import type { DeskChange, DeskSnapshot, RefreshState } from "../main/core/types.ts";
import { DeskError, ERROR_CODES } from "../main/core/errors.ts";

export type { ActivityMode, CredentialStorage, DismissResult };


export type Milestone = "newCard" | "stepCompleted" | "allCompleted" | "pausedOrBlocked" | "refreshFailed" | "noProgress";

export type GatewaySettingsView = {
  id: string;
  label: string;
  color: string;
  url: string;
  hasToken: boolean;
  hasPassword: boolean;
  hasSetupCode: boolean;
};

/** Local settings (S1–S3), as a page sees them. */
export type Settings = {
  /** S1: show task progress cards in the popover. */
  showCards: boolean;
  /** S2: collapse task progress by default on desktop. */
  collapseByDefault: boolean;
  notifications: { enabled: boolean; milestones: Record<Milestone, boolean>; quietHours: { enabled: boolean; start: string; end: string } };
  trayTitle: boolean;
  launchAtLogin: boolean;
  /** A global shortcut that toggles the popover (Electron accelerator), "" = off (the default). */
  popoverShortcut: string;
  /** P3: keep the dashboard window above other windows. */
  dashboardOnTop: boolean;
  /** The live activity line under a card: which tool lines to show, and whether commands are shown. */
  activity: { mode: ActivityMode; commandText: "raw" | "status" };
  /** The no-progress detector: an observation beside the card, never a change to it. */
  detector: { enabled: boolean; pollingRepeats: number; silentMinutes: number };
  gateways: GatewaySettingsView[];
  /**
   * How saved credentials are kept: the OS keychain, only a 0600 file (warn), or
   * "unavailable": saved ones can't be read now and are kept untouched (say so, loudly).
   */
  credentialStorage: CredentialStorage;
  /** Cards the person pinned to the dashboard (P3), as `gatewayId\u0000sessionKey`. */
  pinned: string[];
};

/** What a page may change; Gateways go through saveGateway/removeGateway. */
export type SettingsPatch = Partial<Omit<Settings, "gateways" | "notifications" | "credentialStorage" | "activity" | "detector">> & {
  /** The person's explicit choice to keep new secrets unencrypted while the keychain is unavailable. */
  credentialStorage?: "file";
  activity?: Partial<Settings["activity"]>;
  detector?: Partial<Settings["detector"]>;
  notifications?: Partial<Omit<Settings["notifications"], "milestones" | "quietHours">> & {
    milestones?: Partial<Record<Milestone, boolean>>;
    quietHours?: Partial<Settings["notifications"]["quietHours"]>;
  };
};

/**
 * Secrets are write-only: set a string to replace, "" to remove, leave out to keep. They are
 * bound to the URL's origin: a URL on another server drops every one not given again.
 */
export type GatewayInput = { id?: string; label: string; color: string; url: string; token?: string; password?: string; setupCode?: string };

export type CardRef = { gatewayId: string; sessionKey: string; agentId: string | null };
/** Diagnostics for a bug report, secrets redacted; `copied` when the app put them on the clipboard itself. */
export type DiagnosticsCopy = { text: string; copied: boolean };
export type Page = "popover" | "dashboard" | "settings";

/** The verbs. Every method returns a promise: over IPC and over the host socket alike. */
export type DeskApi = {
  snapshot(): Promise<DeskSnapshot>;
  dismiss(card: CardRef, revision: number, confirmed: boolean): Promise<DismissResult>;
  refresh(card: CardRef, retry: boolean): Promise<RefreshState | null>;
  retryConnection(gatewayId: string): Promise<void>;
  getSettings(): Promise<Settings>;
  updateSettings(patch: SettingsPatch): Promise<Settings>;
  saveGateway(input: GatewayInput): Promise<Settings>;
  removeGateway(gatewayId: string): Promise<Settings>;
  /** Opens an http, https or mailto link in the system browser; anything else is refused. */
  openExternal(url: string): Promise<boolean>;
  openPage(page: Page, card?: CardRef): Promise<void>;
  /** Settings only: versions, connection states and the last log lines, redacted (the app copies them where it can). */
  copyDiagnostics(): Promise<DiagnosticsCopy>;
  onChange(listener: (change: DeskChange) => void): () => void;
  onSettings(listener: (settings: Settings) => void): () => void;
};

export type DeskMethod = Exclude<keyof DeskApi, "onChange" | "onSettings">;
export const DESK_METHODS = [
  "snapshot",
  "dismiss",
  "refresh",
  "retryConnection",
  "getSettings",
  "updateSettings",
  "saveGateway",
  "removeGateway",
  "openExternal",
  "openPage",
  "copyDiagnostics",
] as const satisfies readonly DeskMethod[];

export type DeskEvent = { type: "change"; change: DeskChange } | { type: "settings"; settings: Settings };

/** IPC channel names (Electron): one per verb, one for events. */
export const CHANNEL_PREFIX = "progress-desk:";
export const EVENT_CHANNEL = "progress-desk:event";
export const channelFor = (method: DeskMethod): string => `${CHANNEL_PREFIX}${method}`;

// ——— validation: main and the host check every message against the contract ———

/** A message that breaks the contract: a DeskError with code BAD_REQUEST. */
const badRequest = (message: string): DeskError => new DeskError(ERROR_CODES.badRequest, message);

// mutation-scope:start (scripts/mutation.ts mutates only the checks between these markers)
// ——— who may ask: the verbs that reach beyond the app are the Settings page's alone ———
// Turning on launch-at-login, taking a system-wide key, or pointing the app at another
// Gateway (with its credentials) outlives the page that asked: a popover or dashboard that
// rendered something hostile must not be able to do it.

/** Verbs only the Settings page may call. */
export const SETTINGS_ONLY_METHODS: ReadonlySet<DeskMethod> = new Set<DeskMethod>(["saveGateway", "removeGateway", "copyDiagnostics"]);
/** Settings only the Settings page may change (updateSettings patches that name them are refused elsewhere). */
export const SETTINGS_ONLY_KEYS: ReadonlySet<keyof SettingsPatch> = new Set<keyof SettingsPatch>(["launchAtLogin", "popoverShortcut"]);

/**
 * Why `caller` may not make this call, or null when it may. `args` are the validated
 * arguments (validateArgs). The one place the rule lives: Electron IPC and the host both
 * reach it through the desk service.
 */
export function forbiddenReason(method: string, args: readonly unknown[], caller: unknown): string | null {
  if (typeof caller !== "string" || !PAGES.has(caller)) return "the calling page is not known";
  if (caller === "settings") return null;
  if (SETTINGS_ONLY_METHODS.has(method as DeskMethod)) return `${method} is only accepted from the Settings page (asked by the ${caller})`;
  if (method === "updateSettings") {
    const patch = args[0] as Record<string, unknown>;
    const keys = Object.keys(patch).filter((k) => SETTINGS_ONLY_KEYS.has(k as keyof SettingsPatch));
    if (keys.length > 0) return `${keys.join(" and ")} can only be changed from the Settings page (asked by the ${caller})`;
  }
  return null;
}

const isStr = (v: unknown, max = 4096): v is string => typeof v === "string" && v.length <= max;
const isBool = (v: unknown): v is boolean => typeof v === "boolean";

function cardRef(v: unknown): CardRef {
  const r = v as Record<string, unknown> | null;
  if (!r || typeof r !== "object" || !isStr(r.gatewayId, 200) || !isStr(r.sessionKey, 1024) || !(r.agentId === null || isStr(r.agentId, 64))) {
    throw badRequest("card must be {gatewayId, sessionKey, agentId}");
  }
  return { gatewayId: r.gatewayId, sessionKey: r.sessionKey, agentId: r.agentId as string | null };
}

const PAGES: ReadonlySet<string> = new Set<Page>(["popover", "dashboard", "settings"]);
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** True for the only links a page may open: http, https and mailto. */
export function isSafeExternalUrl(url: unknown): url is string {
  if (!isStr(url, 8192) || !SAFE_LINK.test(url)) return false;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:";
  } catch {
    return false;
  }
}

/** Checks a verb's arguments; returns them typed or throws a BAD_REQUEST DeskError. */
export function validateArgs(method: string, args: unknown): unknown[] {
  if (!(DESK_METHODS as readonly string[]).includes(method)) throw badRequest(`unknown method ${JSON.stringify(method)}`);
  if (!Array.isArray(args) || args.length > 3) throw badRequest("arguments must be a short list");
  const m = method as DeskMethod;
  switch (m) {
    case "snapshot":
    case "getSettings":
    case "copyDiagnostics":
      if (args.length !== 0) throw badRequest(`${m} takes no arguments`);
      return [];
    case "dismiss": {
      const [c, revision, confirmed] = args;
      if (!Number.isSafeInteger(revision) || (revision as number) < 1 || !isBool(confirmed)) throw badRequest("dismiss(card, revision, confirmed)");
      return [cardRef(c), revision, confirmed];
    }
    case "refresh": {
      const [c, retry] = args;
      if (!isBool(retry)) throw badRequest("refresh(card, retry)");
      return [cardRef(c), retry];
    }
    case "retryConnection":
    case "removeGateway":
      if (!isStr(args[0], 200)) throw badRequest(`${m}(gatewayId)`);
      return [args[0]];
    case "updateSettings": {
      const p = args[0];
      if (!p || typeof p !== "object" || Array.isArray(p)) throw badRequest("updateSettings(patch)");
      return [p];
    }
    case "saveGateway": {
      const g = args[0] as Record<string, unknown> | null;
      if (!g || typeof g !== "object" || !isStr(g.url, 2048) || !/^wss?:\/\//i.test(g.url) || !isStr(g.label, 80) || !isStr(g.color, 32)) {
        throw badRequest("saveGateway({url: ws:// or wss://, label, color, …})");
      }
      for (const k of ["id", "token", "password", "setupCode"]) if (g[k] !== undefined && !isStr(g[k], 4096)) throw badRequest(`saveGateway: ${k} must be text`);
      return [g];
    }
    case "openExternal":
      if (!isStr(args[0], 8192)) throw badRequest("openExternal(url)");
      return [args[0]];
    case "openPage":
      if (!isStr(args[0]) || !PAGES.has(args[0])) throw badRequest("openPage(popover | dashboard | settings, card?)");
      return args[1] === undefined ? [args[0]] : [args[0], cardRef(args[1])];
  }
}
// mutation-scope:end
