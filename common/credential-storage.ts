// How saved credentials are kept, as pages and the tray may know it (never the secrets).

/**
 * - "os-keychain": encrypted with a key the OS keeps (Keychain, DPAPI, secret service);
 * - "file": a file only the person's account can read, unencrypted;
 * - "unavailable": credentials are saved but cannot be read now (the keychain refused or
 *   the file is damaged). They are kept untouched and nothing is written over them.
 */
export type CredentialStorage = "os-keychain" | "file" | "unavailable";

export const KEYCHAIN_UNAVAILABLE = "The keychain is unavailable: saved Gateway secrets can't be read. Nothing was deleted.";

export const KEYCHAIN_UNAVAILABLE_ADVICE =
  "Unlock the keychain (or the system's secret service) and restart Progress Desk. Until then new secrets can't be saved, " +
  "unless you choose in Settings to keep them unencrypted in a separate file.";

/** Why a secret could not be saved while the keychain is unavailable (shown as the save error). */
export const SECRET_NOT_SAVED =
  "The keychain is unavailable, so this secret was not saved and nothing changed on disk. Unlock the keychain and restart " +
  "Progress Desk, or choose “Keep new secrets unencrypted” in Settings first.";
