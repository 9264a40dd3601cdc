// The settings file (electron-store's JSON under userData), opened so that it is never
// wiped. electron-store can clear a whole file it cannot read (clearInvalidConfig), saved
// Gateways included; here it never does. A file it refuses (not JSON, cut short, a window
// frame missing a field) has its bytes kept beside it under a dated name, the live file is
// replaced by what could be read (settings kept, each bad frame dropped alone), the log
// says where the copy is and the Settings page shows it (Settings.damagedFileCopy).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rescueDamagedFile, type RescueDeps } from "../core/damaged-file.ts";
import { repairStoreDocument, STORE_SCHEMA, type KeyValueStore } from "./store-backend.ts";

const NAME = "settings";

/** electron-store's options for the settings file, in one place: app.ts and the tests open it with these. */
export function settingsStoreOptions(dir: string) {
  // clearInvalidConfig stays false: a file the store refuses comes back as an error, rescued below.
  return { name: NAME, cwd: dir, schema: STORE_SCHEMA, clearInvalidConfig: false } as const;
}
export type SettingsStoreOptions = ReturnType<typeof settingsStoreOptions>;

/** Where electron-store keeps it: `<name>.json` in `cwd`. */
export function settingsFilePath(dir: string): string {
  return join(dir, `${NAME}.json`);
}

/** Opens the store (electron-store in the app); it throws when the file is one it cannot accept. */
export type OpenStore = (options: SettingsStoreOptions) => KeyValueStore;

/**
 * The store, opened and kept readable: a damaged file is rescued when it is opened and,
 * should it be damaged while the app runs (a hand edit), at the next read or write.
 */
export function openSettingsFile(open: OpenStore, dir: string, deps: RescueDeps): KeyValueStore {
  const options = settingsStoreOptions(dir);
  const path = settingsFilePath(dir);
  let copy: string | null = null;

  /** The store, rescuing the file first when the store refuses it. */
  const openRescued = (): KeyValueStore => {
    try {
      if (holdsNoStore(path)) throw new SyntaxError("the settings file holds JSON that is not an object");
      return open(options);
    } catch (err) {
      if (!isDamagedFile(err)) throw err;
      const rescue = rescueDamagedFile(path, repairStoreDocument, deps);
      copy = rescue.copy ?? copy;
      return rescue.copy === null ? memoryStore(rescue.salvaged as Record<string, unknown>) : open(options);
    }
  };

  let store = openRescued();
  const use = <T>(act: (s: KeyValueStore) => T): T => {
    try {
      return act(store);
    } catch (err) {
      if (!isDamagedFile(err)) throw err;
      // The file is judged afresh: a refusal of the value being written leaves a sound file
      // alone, and the retry is refused again.
      store = openRescued();
      return act(store);
    }
  };
  return {
    get: (key) => use((s) => s.get(key)),
    set: (key, value) => use((s) => s.set(key, value)),
    damagedCopy: () => copy,
  };
}

/** This run's settings when the file could not be rescued: kept in memory, the file untouched. */
function memoryStore(doc: Record<string, unknown>): KeyValueStore {
  const values = new Map(Object.entries(doc));
  return { get: (key) => values.get(key), set: (key, value) => void values.set(key, value) };
}

/**
 * The store's two refusals of a file: not JSON (a SyntaxError) and JSON its schema rejects
 * (conf's SchemaViolationError, which it does not export; known by its class name and message).
 */
function isDamagedFile(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name === "SyntaxError" || err.constructor.name === "SchemaViolationError" || err.message.startsWith("Config schema violation");
}

/** JSON that is no object (a list, a number, null): the store would silently start empty and write over it. */
function holdsNoStore(path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  } catch {
    return false; // no file yet, or unreadable: the store says which
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value !== "object" || value === null || Array.isArray(value);
  } catch {
    return false; // not JSON: the store refuses it itself
  }
}
