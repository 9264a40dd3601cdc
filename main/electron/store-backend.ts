// Plain settings and window frames in electron-store (a JSON file under userData, with a
// schema). Secrets never go here: they live in the vault (safeStorage).
import { settingsStoreSchema } from "../../common/settings-schema.ts";
import type { SettingsBackend } from "../core/settings.ts";
import type { Rect } from "./window-geometry.ts";

/** The part of electron-store the app uses (a fake map in tests). */
export type KeyValueStore = { get(key: string): unknown; set(key: string, value: unknown): void };

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
  };
}

export type WindowFrames = { load(name: string): Rect | null; save(name: string, bounds: Rect): void };

export function storeWindowFrames(store: KeyValueStore): WindowFrames {
  const all = (): Record<string, unknown> => {
    const v = store.get("windows");
    return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
  };
  return {
    load(name) {
      const r = all()[name] as Partial<Rect> | undefined;
      return r && [r.x, r.y, r.width, r.height].every((n) => typeof n === "number" && Number.isFinite(n)) ? (r as Rect) : null;
    },
    save(name, bounds) {
      const { x, y, width, height } = bounds;
      store.set("windows", { ...all(), [name]: { x, y, width, height } });
    },
  };
}
