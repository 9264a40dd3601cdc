// What the page side of the contract needs at run time, kept free of the schema library so
// the preload and the page bundles stay small: the verbs' names (contract.ts holds their
// schemas in a table that must have exactly these keys), the IPC channel names and the
// rule for links a page may open.

/** The verbs a page may call, in the table's order (contract.ts: DESK_VERBS). */
export const DESK_METHODS = Object.freeze([
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
  "openSession",
  "openNeed",
  "answerNeed",
  "closePopover",
  "checkForUpdates",
  "installUpdate",
] as const);
export type DeskMethod = (typeof DESK_METHODS)[number];

/** IPC channel names (Electron): one per verb, one for events. */
export const CHANNEL_PREFIX = "progress-desk:";
export const EVENT_CHANNEL = "progress-desk:event";
export const channelFor = (method: DeskMethod): string => `${CHANNEL_PREFIX}${method}`;

// mutation-scope:start (scripts/mutation.ts mutates only the checks between these markers)
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/** True for the only links a page may open: http, https and mailto. */
export function isSafeExternalUrl(url: unknown): url is string {
  if (typeof url !== "string" || url.length > 8192 || !SAFE_LINK.test(url)) return false;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:";
  } catch {
    return false;
  }
}
// mutation-scope:end
