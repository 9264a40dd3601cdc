// What the terminal commands say when saved credentials can't be read: the file is kept as it
// is (the vault never writes over it), and this run's pairing lives only in memory.
import type { CredentialVault } from "../core/vault.ts";

export function vaultNotice(vault: CredentialVault, file: string): string | null {
  if (vault.protection !== "unavailable") return null;
  return (
    `progress-desk: saved credentials in ${file} can't be read (${vault.unavailableReason ?? "unreadable"}). ` +
    "Nothing was deleted or written over; this run keeps new pairing data in memory only.\n"
  );
}
