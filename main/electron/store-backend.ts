// Plain settings and window frames in electron-store (a JSON file under userData, with a
// schema). Secrets never go here: they live in the vault (safeStorage).
import { settingsStoreSchema } from "../../common/settings-schema.ts";
import type { SettingsBackend } from "../core/settings.ts";
import type { Rect } from "./window-geometry.ts";

/** The part of electron-store the app uses (a fake map in tests). */
export type KeyValueStore = {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  /** Where the file was kept as it was, when it could not be read in full this run (settings-file.ts). */
  damagedCopy?(): string | null;
};

const rect = {
  type: "object",
  properties: { x: { type: "number" }, y: { type: "number" }, width: { type: "number" }, height: { type: "number" } },
  required: ["x", "y", "width", "height"],
} as const;

/**
 * electron-store's schema. `settings` comes from the settings document's schema: its keys
 * and defaults (a missing value is filled in), not its value rules: repairSettings mends a
 * bad value key by key on read, where electron-store would clear the whole file for it.
 */
export const STORE_SCHEMA = {
  settings: settingsStoreSchema(),
  windows: { type: "object", additionalProperties: rect },
} as const;

export function storeSettingsBackend(store: KeyValueStore): SettingsBackend {
  return {
    read: () => store.get("settings") ?? null,
    write: async (doc) => store.set("settings", doc),
    damagedCopy: () => store.damagedCopy?.() ?? null,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isFrame = (v: unknown): v is Rect =>
  isRecord(v) && [v.x, v.y, v.width, v.height].every((n) => typeof n === "number" && Number.isFinite(n));

/**
 * What a damaged store file still holds, made valid for STORE_SCHEMA: the settings object
 * as it is (repairSettings mends its values on read), and each window frame that is four
 * numbers; a bad frame is dropped alone. Anything else the file held is in its kept copy.
 */
export function repairStoreDocument(raw: unknown): Record<string, unknown> {
  const from = isRecord(raw) ? raw : {};
  const doc: Record<string, unknown> = {};
  if (isRecord(from.settings)) doc.settings = from.settings;
  if (isRecord(from.windows)) {
    const frames = Object.entries(from.windows).filter((entry): entry is [string, Rect] => isFrame(entry[1]));
    doc.windows = Object.fromEntries(frames.map(([name, { x, y, width, height }]) => [name, { x, y, width, height }]));
  }
  return doc;
}

export type WindowFrames = { load(name: string): Rect | null; save(name: string, bounds: Rect): void };

export function storeWindowFrames(store: KeyValueStore): WindowFrames {
  const all = (): Record<string, unknown> => {
    const v = store.get("windows");
    return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
  };
  return {
    load(name) {
      const r = all()[name];
      return isFrame(r) ? r : null;
    },
    save(name, bounds) {
      const { x, y, width, height } = bounds;
      store.set("windows", { ...all(), [name]: { x, y, width, height } });
    },
  };
}
