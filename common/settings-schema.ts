// The settings document, defined once as a TypeBox schema. From it come the TypeScript
// types (the stored document, what a page sees, what a page may patch), the repair of a
// stored document (a bad or missing value takes the schema's default, unknown keys go),
// the check of a page's patch (common/contract.ts) and electron-store's schema.
import Type, { type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import type { CredentialStorage } from "./credential-storage.ts";

const MODIFIERS = new Set([
  "Command",
  "Cmd",
  "Control",
  "Ctrl",
  "CommandOrControl",
  "CmdOrCtrl",
  "Alt",
  "Option",
  "AltGr",
  "Shift",
  "Super",
  "Meta",
]);
const KEY =
  /^([A-Z0-9]|F([1-9]|1\d|2[0-4])|Space|Tab|Backspace|Delete|Insert|Return|Enter|Up|Down|Left|Right|Home|End|PageUp|PageDown|Escape|Esc|Plus|[-=[\];',./\\`])$/;

/** An Electron accelerator with at least one modifier, e.g. `CommandOrControl+Shift+P` (a bare key would steal typing). */
export function isAccelerator(v: string): boolean {
  const parts = v.split("+");
  if (v.length > 64 || parts.length < 2) return false;
  const key = parts.at(-1) ?? "";
  const mods = parts.slice(0, -1);
  return KEY.test(key) && mods.every((m) => MODIFIERS.has(m)) && new Set(mods).size === mods.length;
}

// ——— the leaves: each one's rule and default ———

const flag = (d: boolean) => Type.Boolean({ default: d, description: "true or false" });
const wholeNumber = (min: number, max: number, d: number) =>
  Type.Integer({ minimum: min, maximum: max, default: d, description: `a whole number from ${min} to ${max}` });
const clock = (d: string) =>
  Type.String({ pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$", default: d, description: "a time as HH:MM (00:00 to 23:59)" });

export const MILESTONES = ["newCard", "stepCompleted", "allCompleted", "pausedOrBlocked", "refreshFailed", "noProgress"] as const;
export type Milestone = (typeof MILESTONES)[number];

const milestones = Type.Object({
  newCard: flag(true),
  stepCompleted: flag(true),
  allCompleted: flag(true),
  pausedOrBlocked: flag(true),
  refreshFailed: flag(true),
  noProgress: flag(true),
});
const quietHours = Type.Object({ enabled: flag(false), start: clock("22:00"), end: clock("08:00") });
const notifications = Type.Object({ enabled: flag(true), milestones, quietHours });
const activity = Type.Object({
  // In the order the page offers them.
  mode: Type.Union([Type.Literal("all"), Type.Literal("new"), Type.Literal("off")], { default: "all", description: "off, new or all" }),
  commandText: Type.Union([Type.Literal("raw"), Type.Literal("status")], { default: "raw", description: "raw or status" }),
});
/** U1, U4: the app's own updates. */
const updates = Type.Object({ automatic: flag(true), beta: flag(false) });
const detector = Type.Object({ enabled: flag(true), pollingRepeats: wholeNumber(2, 100, 5), silentMinutes: wholeNumber(1, 24 * 60, 10) });
const SHORTCUT_RULE = 'a shortcut that combines a modifier and a key, e.g. CommandOrControl+Shift+P, or "" for none';
const popoverShortcut = Type.Refine(
  Type.String({ maxLength: 64, default: "", description: SHORTCUT_RULE }),
  (v) => v === "" || isAccelerator(v),
  // What SettingsStore.update says (a page is told the description, see common/contract.ts).
  (v) => `"${v.slice(0, 64)}" is not a shortcut Progress Desk can use: combine a modifier and a key, e.g. CommandOrControl+Shift+P.`,
);
/** Cards pinned to the dashboard (P3), as `gatewayId\u0000sessionKey`: each once, at most 200. */
const pinned = Type.Array(Type.String({ maxLength: 2047 }), {
  uniqueItems: true,
  maxItems: 200,
  default: [],
  description: "a list of card keys",
});

/** What a page may set directly: every setting but the Gateways and the credential storage. */
const preferences = {
  /** S1: show task progress cards in the popover. */
  showCards: flag(true),
  /** S2: collapse task progress by default on desktop. */
  collapseByDefault: flag(false),
  notifications,
  trayTitle: flag(true),
  launchAtLogin: flag(false),
  /** A global shortcut that toggles the popover (Electron accelerator), "" = off (the default). */
  popoverShortcut,
  /** P3: keep the dashboard window above other windows. */
  dashboardOnTop: flag(false),
  /** The live activity line under a card: which tool lines to show, and whether commands are shown. */
  activity,
  /** The no-progress detector: an observation beside the card, never a change to it. */
  detector,
  pinned,
  /**
   * Y15: answer approvals and questions for the zero-configuration "Local" Gateway, used while
   * Settings lists none (a saved Gateway has its own `answerApprovals`). Off by default.
   */
  localAnswerApprovals: flag(false),
  /** U1, U4: update automatically (on by default); also take beta versions (off by default). */
  updates,
};

// ——— the Gateways: stored without secrets; a page sees hasToken-style flags ———

const GATEWAY_URL = "^[wW][sS][sS]?://";
export const StoredGatewaySchema = Type.Object({
  id: Type.String(),
  url: Type.String({ pattern: GATEWAY_URL }),
  label: Type.String({ minLength: 1, maxLength: 80 }),
  color: Type.String({ pattern: "^#[0-9a-fA-F]{6}$" }),
  /** Y6: answer approvals and questions from Progress Desk (asks for two more scopes; off by default). */
  answerApprovals: Type.Boolean({ default: false }),
});
export type StoredGateway = Static<typeof StoredGatewaySchema>;

export const GatewaySettingsViewSchema = Type.Object({
  ...StoredGatewaySchema.properties,
  hasToken: Type.Boolean(),
  hasPassword: Type.Boolean(),
  hasSetupCode: Type.Boolean(),
});
export type GatewaySettingsView = Static<typeof GatewaySettingsViewSchema>;

const credentialStorage = Type.Union([Type.Literal("os-keychain"), Type.Literal("file"), Type.Literal("unavailable")]);

/** The stored document (a JSON file headless, electron-store in Electron). */
export const SettingsDocumentSchema = Type.Object({ ...preferences, gateways: Type.Array(StoredGatewaySchema, { default: [] }) });
export type SettingsDocument = Static<typeof SettingsDocumentSchema>;

/** Local settings (S1–S3), as a page sees them. */
export const SettingsSchema = Type.Object({
  ...preferences,
  gateways: Type.Array(GatewaySettingsViewSchema),
  /**
   * How saved credentials are kept: the OS keychain, only a 0600 file (warn), or
   * "unavailable": saved ones can't be read now and are kept untouched (say so, loudly).
   */
  credentialStorage,
  /** Set when the settings file could not be read in full this run: where it was kept as it was (what could be read is in use). */
  damagedFileCopy: Type.Optional(Type.String()),
});
export type Settings = Static<typeof SettingsSchema>;

/** What a page may change; Gateways go through saveGateway/removeGateway. Nested groups patch key by key. */
export const SettingsPatchSchema = Type.Partial(
  Type.Object({
    ...preferences,
    notifications: Type.Partial(
      Type.Object({
        enabled: notifications.properties.enabled,
        milestones: Type.Partial(milestones),
        quietHours: Type.Partial(quietHours),
      }),
    ),
    activity: Type.Partial(activity),
    detector: Type.Partial(detector),
    updates: Type.Partial(updates),
    /** The person's explicit choice to keep new secrets unencrypted while the keychain is unavailable. */
    credentialStorage: Type.Literal("file", { description: '"file" (keep new secrets unencrypted)' }),
  }),
);
export type SettingsPatch = Static<typeof SettingsPatchSchema>;

// Compile-time proof that the schema's credential storage is the shared one.
const sameStorage: [CredentialStorage, Settings["credentialStorage"]] = ["file", "file" as CredentialStorage];
void sameStorage;

// ——— repair: whatever was stored, made valid value by value ———

// mutation-scope:start (scripts/mutation.ts mutates only the normalisation between these markers)
const COLORS = ["#0a84ff", "#30d158", "#ff9f0a", "#bf5af2", "#ff375f", "#64d2ff"] as const;

type Schemaish = TSchema & {
  type?: unknown;
  description?: string;
  properties?: Record<string, TSchema>;
  items?: TSchema;
  default?: unknown;
  maxItems?: number;
  uniqueItems?: boolean;
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The schema's own repair: an object keeps only its declared keys, each repaired; a list
 * keeps the items that are valid (each once when unique, at most maxItems); any other
 * value is kept when valid, else it becomes the schema's default.
 */
function repair(schema: Schemaish, value: unknown): unknown {
  if (schema.type === "object" && schema.properties) {
    const from = isRecord(value) ? value : {};
    return Object.fromEntries(Object.entries(schema.properties).map(([key, s]) => [key, repair(s, from[key])]));
  }
  const items = schema.items;
  if (schema.type === "array" && items) {
    if (!Array.isArray(value)) return Value.Clone(schema.default ?? []);
    let kept = value.filter((item) => Value.Check(items, item));
    if (schema.uniqueItems) kept = kept.filter((item, i) => kept.findIndex((other) => Value.Equal(other, item)) === i);
    return kept.slice(0, schema.maxItems ?? kept.length).map((item) => Value.Clone(item));
  }
  return Value.Check(schema, value) ? value : Value.Clone(schema.default);
}

/**
 * Stored Gateways: the two defaults a schema can't state depend on the Gateway itself: a
 * blank label becomes the address's host, a bad colour the palette's by position.
 */
function repairGateways(value: unknown): StoredGateway[] {
  const gateways: StoredGateway[] = [];
  const { id, url } = StoredGatewaySchema.properties;
  for (const g of Array.isArray(value) ? value : []) {
    if (!isRecord(g) || !Value.Check(id, g.id) || !Value.Check(url, g.url) || gateways.some((x) => x.id === g.id)) continue;
    const gatewayUrl = g.url as string;
    const label = typeof g.label === "string" ? g.label.trim().slice(0, 80) : "";
    const paletteColor = COLORS[gateways.length % COLORS.length] ?? COLORS[0];
    const color = Value.Check(StoredGatewaySchema.properties.color, g.color) ? (g.color as string) : paletteColor;
    const answerApprovals = g.answerApprovals === true;
    gateways.push({ id: g.id as string, url: gatewayUrl, label: label || new URL(gatewayUrl).host, color, answerApprovals });
  }
  return gateways;
}

/** Whatever was on disk, made valid: unknown keys dropped, bad values back to defaults. */
export function repairSettings(raw: unknown): SettingsDocument {
  const doc = repair(SettingsDocumentSchema, raw) as SettingsDocument;
  doc.gateways = repairGateways(isRecord(raw) ? raw.gateways : undefined);
  return doc;
}
// mutation-scope:end

/** Every setting at its default. */
export function defaultSettings(): SettingsDocument {
  return repairSettings(undefined);
}

// ——— a page's patch: checked by the schema, laid over the settings ———

/** Why the schema refuses `patch` (a refinement's own words, else the setting's rule); null when it passes. */
export function settingsPatchRefusal(patch: unknown): string | null {
  const [fault] = Value.Errors(SettingsPatchSchema, patch);
  if (fault === undefined) return null;
  if (fault.keyword === "~refine") return fault.message;
  const path = fault.instancePath.split("/").slice(1);
  let node: Schemaish | undefined = SettingsPatchSchema;
  for (const key of path) node = (node?.properties?.[key] ?? node?.items) as Schemaish | undefined;
  const name = path.join(".") || "the settings patch";
  return node?.description === undefined ? `${name} ${fault.message}` : `${name} can only be set to ${node.description}`;
}

/**
 * `patch` laid over `doc` as the patch schema shapes it: a group merges key by key, any
 * other value (a list too) replaces; a key the patch schema doesn't name, or the document
 * doesn't hold (credentialStorage), is left out.
 */
export function mergeSettingsPatch(doc: SettingsDocument, patch: SettingsPatch): SettingsDocument {
  return mergeBySchema(SettingsPatchSchema, doc, patch) as SettingsDocument;
}

function mergeBySchema(schema: Schemaish, current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next = { ...current };
  for (const [key, s] of Object.entries(schema.properties ?? {}) as [string, Schemaish][]) {
    const value = patch[key];
    const was = current[key];
    if (value === undefined || !Object.hasOwn(current, key)) continue;
    next[key] = s.type === "object" && isRecord(was) && isRecord(value) ? mergeBySchema(s, was, value) : Value.Clone(value);
  }
  return next;
}

// ——— electron-store ———

/**
 * The document's schema as electron-store sees it: every key with its default (filled in
 * where a key is missing), none of the value rules. A stored file with one bad value is
 * repaired key by key on read (repairSettings); electron-store would clear the whole file,
 * Gateways and window frames included, over a value that failed its schema.
 */
export function settingsStoreSchema(): { type: "object"; properties: Record<string, { default: unknown; description?: string }> } {
  const defaults = defaultSettings();
  const properties = Object.entries(SettingsDocumentSchema.properties).map(([key, schema]) => {
    const description = (schema as Schemaish).description;
    return [key, { default: defaults[key as keyof SettingsDocument], ...(description === undefined ? {} : { description }) }] as const;
  });
  return { type: "object", properties: Object.fromEntries(properties) };
}
