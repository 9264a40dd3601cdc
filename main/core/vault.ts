// Credentials (device key, device tokens, Gateway tokens and passwords) behind one small
// storage interface. Electron backs it with safeStorage; headless uses a 0600 file.
// The official client reads and writes device tokens synchronously, so the vault keeps
// the decrypted values in memory and persists every change in order.
//
// Saved credentials that cannot be read (the keychain refuses, the file is damaged) are
// never written over: the vault is "unavailable" and keeps changes in memory only, until
// the person chooses to keep new ones unencrypted in a separate file. A later launch that
// can read the saved ones again merges that file back in and removes it.
import { fallbackLogger, type Logger } from "./logger.ts";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir, platform } from "node:os";
import { dirname, join } from "node:path";
import type { CredentialStorage } from "../../common/credential-storage.ts";
import { createDeviceIdentity, parseDeviceIdentity, type DeviceIdentity } from "./identity.ts";

export type { CredentialStorage };

export type SecretStorage = {
  /**
   * The whole secret blob as last written, or null when nothing was stored. Throws (any
   * error) when something is stored that cannot be read now.
   */
  read(): Promise<string | null>;
  write(blob: string): Promise<void>;
  /** How the blob is protected at rest; "file" means only file permissions (warn the person). */
  readonly protection: "os-keychain" | "file";
  /**
   * A separate, unencrypted place for credentials while this one cannot be read and the
   * person allowed it. Without one, an unreadable vault stays read-only.
   */
  unprotectedFallback?(): SecretStorage;
  /** Removes the stored blob (a fallback once its values are back in the protected place). */
  discard?(): Promise<void>;
};

type Values = Record<string, string>;
type ReadResult = { values: Values } | { unreadable: string } | null;

const IDENTITY = "device-identity";

async function readValues(storage: SecretStorage): Promise<ReadResult> {
  let blob: string | null;
  try {
    blob = await storage.read();
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
  if (blob === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(blob);
  } catch {
    return { unreadable: "the credentials file is damaged" };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { unreadable: "the credentials file is damaged" };
  const values: Values = {};
  for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") values[k] = v;
  return { values };
}

export class CredentialVault {
  private values: Values = {};
  private writing: Promise<void> = Promise.resolve();
  private storage: SecretStorage;
  /** Why the saved credentials can't be read; while set, nothing is written anywhere. */
  private unreadable: string | null = null;
  /** The unencrypted fallback exists but is damaged too: never written over either. */
  private fallbackUnreadable = false;

  private readonly log: Logger;

  private constructor(storage: SecretStorage, logger: Logger) {
    this.storage = storage;
    this.log = logger;
  }

  static async open(storage: SecretStorage, logger: Logger = fallbackLogger()): Promise<CredentialVault> {
    const vault = new CredentialVault(storage, logger);
    const saved = await readValues(storage);
    const fallback = storage.unprotectedFallback?.() ?? null;
    const written = fallback ? await readValues(fallback) : null;
    const fromFallback = written && "values" in written ? written.values : null;
    if (saved && "unreadable" in saved) {
      if (fallback && fromFallback) {
        // The person chose unencrypted storage on an earlier launch: go on using it.
        vault.storage = fallback;
        vault.values = fromFallback;
      } else {
        vault.unreadable = saved.unreadable;
        vault.fallbackUnreadable = written !== null && "unreadable" in written;
      }
      return vault;
    }
    vault.values = saved?.values ?? {};
    if (fallback && fromFallback) {
      // Readable again: take back what was saved unencrypted meanwhile. Newer secrets win,
      // except the device identity: Gateways paired the saved one.
      const merged = { ...vault.values, ...fromFallback };
      if (vault.values[IDENTITY]) merged[IDENTITY] = vault.values[IDENTITY];
      vault.values = merged;
      try {
        await storage.write(JSON.stringify(merged));
        await fallback.discard?.();
      } catch (err) {
        vault.log.warn("could not move its unencrypted credentials back", { error: (err as Error).message });
      }
    }
    return vault;
  }

  /** How credentials are kept now; "unavailable" while the saved ones can't be read. */
  get protection(): CredentialStorage {
    return this.unreadable !== null ? "unavailable" : this.storage.protection;
  }

  /** Why the saved credentials can't be read (null when they can). */
  get unavailableReason(): string | null {
    return this.unreadable;
  }

  /**
   * The person chose to keep new credentials unencrypted while the saved ones can't be
   * read. They go to a separate file; the unreadable one stays as it is.
   */
  allowUnprotected(): void {
    if (this.unreadable === null) return;
    const fallback = this.fallbackUnreadable ? undefined : this.storage.unprotectedFallback?.();
    if (!fallback)
      throw new Error("Progress Desk has no separate place for unencrypted credentials here; unlock the keychain and restart.");
    this.storage = fallback;
    this.unreadable = null;
    this.persist();
  }

  get(name: string): string | null {
    return this.values[name] ?? null;
  }

  /** Every stored name (values stay inside). */
  names(): string[] {
    return Object.keys(this.values);
  }

  set(name: string, value: string): void {
    if (this.values[name] === value) return;
    this.values[name] = value;
    this.persist();
  }

  delete(name: string): void {
    if (!(name in this.values)) return;
    const { [name]: _removed, ...kept } = this.values;
    this.values = kept;
    this.persist();
  }

  /** Resolves when every change so far is on disk. */
  flush(): Promise<void> {
    return this.writing;
  }

  /** The install's one device identity, created on first use (docs/gateway.md §1.2). */
  deviceIdentity(): DeviceIdentity {
    const stored = this.get(IDENTITY);
    if (stored) {
      try {
        const parsed = parseDeviceIdentity(JSON.parse(stored));
        if (parsed) return parsed;
      } catch {
        // fall through: a damaged identity is replaced, which means pairing again
      }
    }
    const identity = createDeviceIdentity();
    this.set(IDENTITY, JSON.stringify(identity));
    return identity;
  }

  private persist(): void {
    // Unreadable saved credentials are never written over: changes live in memory only.
    if (this.unreadable !== null) return;
    const blob = JSON.stringify(this.values);
    const storage = this.storage;
    this.writing = this.writing
      .then(() => storage.write(blob))
      .catch((err: unknown) => {
        this.log.warn("could not save credentials", { error: (err as Error).message });
      });
  }
}

export function memoryStorage(initial: string | null = null): SecretStorage & { blob: string | null } {
  const s = {
    blob: initial,
    protection: "file" as const,
    read: async () => s.blob,
    write: async (blob: string) => {
      s.blob = blob;
    },
    discard: async () => {
      s.blob = null;
    },
  };
  return s;
}

/** Beside `credentials.json`: `credentials.unprotected.json`, for writes the person allowed while it can't be read. */
export function unprotectedPath(path: string): string {
  return path.replace(/(\.json)?$/, ".unprotected.json");
}

/** A file readable only by its owner (mode 0600), written atomically. */
/** A file can always be removed: its storage has `discard`. */
type FileSecretStorage = SecretStorage & Required<Pick<SecretStorage, "discard">>;

export function fileStorage(path: string, opts: { fallback?: boolean } = {}): FileSecretStorage {
  const storage: FileSecretStorage = {
    protection: "file",
    async read() {
      try {
        return await readFile(path, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async write(blob: string) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, blob, { mode: 0o600 });
      await chmod(tmp, 0o600);
      await rename(tmp, path);
    },
    async discard() {
      await rm(path, { force: true });
    },
  };
  if (opts.fallback !== false) storage.unprotectedFallback = () => fileStorage(unprotectedPath(path), { fallback: false });
  return storage;
}

/** $PROGRESS_DESK_HOME, else the platform's per-user config folder. */
export function dataHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir(), os: string = platform()): string {
  if (env.PROGRESS_DESK_HOME) return env.PROGRESS_DESK_HOME;
  if (os === "darwin") return join(home, "Library", "Application Support", "Progress Desk");
  if (os === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "Progress Desk");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "progress-desk");
}
