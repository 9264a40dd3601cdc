// S3: credentials at rest in the app. The vault's blob is encrypted with Electron's
// safeStorage (the key in the macOS Keychain, DPAPI, or the Linux secret service) and
// written to a file only the person can read (0600). Where the OS offers no protection
// (Linux without a keyring: the "basic_text" backend) the blob is still written 0600, and
// the person is told plainly. An encrypted file that cannot be decrypted (the keychain is
// locked or gone, the file is damaged) makes read() throw: the vault then keeps it as it
// is and never writes a plain file over it.
import type { SafeStorage } from "electron";
import type { SecretStorage } from "../core/vault.ts";
import { fileStorage, unprotectedPath } from "../core/vault.ts";

export type SafeStorageLike = Pick<
  SafeStorage,
  "isAsyncEncryptionAvailable" | "encryptStringAsync" | "decryptStringAsync" | "getSelectedStorageBackend"
>;

type Envelope = { format: "safeStorage"; data: string } | { format: "plain"; data: string };

export const UNPROTECTED_WARNING =
  "This system offers no protected credential storage (no keychain or secret service): Progress Desk keeps Gateway tokens in a file only you can read, but unencrypted.";

/** Whether safeStorage really protects secrets here. */
export async function osProtection(safe: SafeStorageLike, platform: NodeJS.Platform): Promise<boolean> {
  if (!(await safe.isAsyncEncryptionAvailable())) return false;
  // On Linux "basic_text" means a hard-coded key: not protection.
  return platform !== "linux" || safe.getSelectedStorageBackend() !== "basic_text";
}

function parseEnvelope(text: string): Envelope | null {
  try {
    const e = JSON.parse(text) as Partial<Envelope> | null;
    if (e && (e.format === "plain" || e.format === "safeStorage") && typeof e.data === "string") return e as Envelope;
  } catch {
    // damaged: reported below
  }
  return null;
}

/** A plain envelope file: where no protection exists, and the fallback the person may allow. */
function plainEnvelopeFile(path: string): SecretStorage {
  const file = fileStorage(path, { fallback: false });
  return {
    protection: "file",
    async read() {
      const text = await file.read();
      if (text === null) return null;
      const envelope = parseEnvelope(text);
      if (envelope?.format !== "plain") throw new Error("the unencrypted credentials file is damaged");
      return envelope.data;
    },
    write: (blob) => file.write(JSON.stringify({ format: "plain", data: blob } satisfies Envelope)),
    discard: () => file.discard(),
  };
}

export async function safeStorageFile(
  path: string,
  safe: SafeStorageLike,
  platform: NodeJS.Platform,
  warn: (message: string) => void,
): Promise<SecretStorage> {
  const file = fileStorage(path, { fallback: false });
  const protectedHere = await osProtection(safe, platform);
  // Where an encrypted file waits for a keychain that is gone, nothing is written in clear:
  // read() says that instead.
  const waiting = !protectedHere && parseEnvelope((await file.read().catch(() => null)) ?? "")?.format === "safeStorage";
  if (!protectedHere && !waiting) warn(UNPROTECTED_WARNING);
  const unreadable = (why: string): Error => {
    warn(`Progress Desk can't read its saved credentials (${why}). They are kept as they are; nothing is written over them.`);
    return new Error(why);
  };
  const storage: SecretStorage = {
    protection: protectedHere ? "os-keychain" : "file",
    async read() {
      const text = await file.read();
      if (text === null) return null;
      const envelope = parseEnvelope(text);
      if (!envelope) throw unreadable("the credentials file is damaged");
      if (envelope.format === "plain") {
        // Written where no protection existed: encrypt it now that we can.
        if (protectedHere) await storage.write(envelope.data);
        return envelope.data;
      }
      // Encrypted, and no keychain now: the saved secrets wait for it.
      if (!protectedHere) throw unreadable("the system keychain is not available");
      let decrypted: { result: string; shouldReEncrypt: boolean };
      try {
        decrypted = await safe.decryptStringAsync(Buffer.from(envelope.data, "base64"));
      } catch (err) {
        throw unreadable(`the system keychain could not decrypt them: ${(err as Error).message}`);
      }
      // The key was rotated: write it again under the new one before anyone else writes.
      if (decrypted.shouldReEncrypt) await storage.write(decrypted.result);
      return decrypted.result;
    },
    async write(blob: string) {
      const envelope: Envelope = protectedHere
        ? { format: "safeStorage", data: (await safe.encryptStringAsync(blob)).toString("base64") }
        : { format: "plain", data: blob };
      await file.write(JSON.stringify(envelope));
    },
    unprotectedFallback: () => plainEnvelopeFile(unprotectedPath(path)),
  };
  return storage;
}
