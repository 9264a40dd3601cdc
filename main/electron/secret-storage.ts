// S3: credentials at rest in the app. The vault's blob is encrypted with Electron's
// safeStorage (the key in the macOS Keychain, DPAPI, or the Linux secret service) and
// written to a file only the person can read (0600). Where the OS offers no protection
// (Linux without a keyring: the "basic_text" backend) the blob is still written 0600, and
// the person is told plainly.
import type { SafeStorage } from "electron";
import type { SecretStorage } from "../core/vault.ts";
import { fileStorage } from "../core/vault.ts";

export type SafeStorageLike = Pick<SafeStorage, "isAsyncEncryptionAvailable" | "encryptStringAsync" | "decryptStringAsync" | "getSelectedStorageBackend">;

type Envelope = { format: "safeStorage"; data: string } | { format: "plain"; data: string };

export const UNPROTECTED_WARNING =
  "This system offers no protected credential storage (no keychain or secret service): Progress Desk keeps Gateway tokens in a file only you can read, but unencrypted.";

/** Whether safeStorage really protects secrets here. */
export async function osProtection(safe: SafeStorageLike, platform: NodeJS.Platform): Promise<boolean> {
  if (!(await safe.isAsyncEncryptionAvailable())) return false;
  // On Linux "basic_text" means a hard-coded key: not protection.
  return platform !== "linux" || safe.getSelectedStorageBackend() !== "basic_text";
}

export async function safeStorageFile(path: string, safe: SafeStorageLike, platform: NodeJS.Platform, warn: (message: string) => void): Promise<SecretStorage> {
  const file = fileStorage(path);
  const protectedHere = await osProtection(safe, platform);
  if (!protectedHere) warn(UNPROTECTED_WARNING);
  const storage: SecretStorage = {
    protection: protectedHere ? "os-keychain" : "file",
    async read() {
      const text = await file.read();
      if (text === null) return null;
      let envelope: Envelope;
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch {
        return null; // damaged: the vault opens empty and the device pairs again
      }
      if (envelope?.format === "plain" && typeof envelope.data === "string") {
        // Written where no protection existed: encrypt it now that we can.
        if (protectedHere) await storage.write(envelope.data);
        return envelope.data;
      }
      if (envelope?.format !== "safeStorage" || typeof envelope.data !== "string" || !protectedHere) return null;
      try {
        const { result, shouldReEncrypt } = await safe.decryptStringAsync(Buffer.from(envelope.data, "base64"));
        // The key was rotated: write it again under the new one before anyone else writes.
        if (shouldReEncrypt) await storage.write(result);
        return result;
      } catch (err) {
        warn(`Progress Desk could not decrypt its saved credentials (${(err as Error).message}); this device will pair again.`);
        return null;
      }
    },
    async write(blob: string) {
      const envelope: Envelope = protectedHere
        ? { format: "safeStorage", data: (await safe.encryptStringAsync(blob)).toString("base64") }
        : { format: "plain", data: blob };
      await file.write(JSON.stringify(envelope));
    },
  };
  return storage;
}
