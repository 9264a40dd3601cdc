// Credentials (device key, device tokens, Gateway tokens and passwords) behind one small
// storage interface. Electron backs it with safeStorage; headless uses a 0600 file.
// The official client reads and writes device tokens synchronously, so the vault keeps
// the decrypted values in memory and persists every change in order.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir, platform } from "node:os";
import { dirname, join } from "node:path";
import { createDeviceIdentity, parseDeviceIdentity, type DeviceIdentity } from "./identity.ts";

export type SecretStorage = {
  /** The whole secret blob as last written, or null when nothing was stored. */
  read(): Promise<string | null>;
  write(blob: string): Promise<void>;
  /** How the blob is protected at rest; "file" means only file permissions (warn the person). */
  readonly protection: "os-keychain" | "file";
};

export class CredentialVault {
  private values: Record<string, string> = {};
  private writing: Promise<void> = Promise.resolve();
  private readonly storage: SecretStorage;

  private constructor(storage: SecretStorage) {
    this.storage = storage;
  }

  static async open(storage: SecretStorage): Promise<CredentialVault> {
    const vault = new CredentialVault(storage);
    const blob = await storage.read();
    if (blob) {
      try {
        const parsed = JSON.parse(blob) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") vault.values[k] = v;
        }
      } catch {
        // A corrupt blob loses only cached credentials: the device re-pairs, nothing else.
        vault.values = {};
      }
    }
    return vault;
  }

  get protection(): SecretStorage["protection"] {
    return this.storage.protection;
  }

  get(name: string): string | null {
    return this.values[name] ?? null;
  }

  set(name: string, value: string): void {
    if (this.values[name] === value) return;
    this.values[name] = value;
    this.persist();
  }

  delete(name: string): void {
    if (!(name in this.values)) return;
    delete this.values[name];
    this.persist();
  }

  /** Resolves when every change so far is on disk. */
  flush(): Promise<void> {
    return this.writing;
  }

  /** The install's one device identity, created on first use (gateway-protocol §1.2). */
  deviceIdentity(): DeviceIdentity {
    const stored = this.get("device-identity");
    if (stored) {
      try {
        const parsed = parseDeviceIdentity(JSON.parse(stored));
        if (parsed) return parsed;
      } catch {
        // fall through: a damaged identity is replaced, which means pairing again
      }
    }
    const identity = createDeviceIdentity();
    this.set("device-identity", JSON.stringify(identity));
    return identity;
  }

  private persist(): void {
    const blob = JSON.stringify(this.values);
    this.writing = this.writing.then(() => this.storage.write(blob)).catch((err: unknown) => {
      process.emitWarning(`Progress Desk could not save credentials: ${(err as Error).message}`);
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
  };
  return s;
}

/** A file readable only by its owner (mode 0600), written atomically. */
export function fileStorage(path: string): SecretStorage {
  return {
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
  };
}

/** $PROGRESS_DESK_HOME, else the platform's per-user config folder. */
export function dataHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir(), os: string = platform()): string {
  if (env.PROGRESS_DESK_HOME) return env.PROGRESS_DESK_HOME;
  if (os === "darwin") return join(home, "Library", "Application Support", "Progress Desk");
  if (os === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "Progress Desk");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "progress-desk");
}
