// The core the shell runs on: the credential vault (OS-encrypted through safeStorage), the
// settings and window frames kept in electron-store, the Gateway found on this machine and
// the desk that connects to Gateways. Nothing here starts a connection: the shell does,
// once every listener is in place.
import { join } from "node:path";
import { historyPath, openHistoryFile } from "../../core/card-history-file.ts";
import { ProgressDesk } from "../../core/desk.ts";
import { discoverGateway, type Discovered } from "../../core/discovery.ts";
import { fallbackLogger, type Logger } from "../../core/logger.ts";
import { SettingsStore } from "../../core/settings.ts";
import { CredentialVault } from "../../core/vault.ts";
import { safeStorageFile, type SafeStorageLike } from "../secret-storage.ts";
import { storeSettingsBackend, storeWindowFrames, type KeyValueStore, type WindowFrames } from "../store-backend.ts";

export type CoreContext = {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** The app's data folder (userData): credentials live here. */
  dataDir: string;
  clientVersion: string;
  store: KeyValueStore;
  safeStorage: SafeStorageLike;
  warn: (message: string) => void;
  /** What the vault, the settings and the desk log through (default: warnings on stderr). */
  logger?: Logger;
};

export type Core = {
  vault: CredentialVault;
  settings: SettingsStore;
  frames: WindowFrames;
  discovered: Discovered;
  desk: ProgressDesk;
};

export async function setupCore(ctx: CoreContext): Promise<Core> {
  const logger = ctx.logger ?? fallbackLogger();
  const file = await safeStorageFile(join(ctx.dataDir, "credentials.json"), ctx.safeStorage, ctx.platform, ctx.warn);
  const vault = await CredentialVault.open(file, logger);
  const settings = new SettingsStore(storeSettingsBackend(ctx.store), vault, logger);
  const frames = storeWindowFrames(ctx.store);
  const discovered = discoverGateway({ env: ctx.env });
  for (const note of discovered.notes) ctx.warn(`Progress Desk: ${note}`);
  for (const secret of [discovered.token, discovered.password, discovered.bootstrapToken]) logger.protect(secret);
  // The card history sits beside the settings in the data folder (userData).
  const history = openHistoryFile(historyPath(ctx.dataDir), { warn: ctx.warn });
  const desk = new ProgressDesk({ gateways: [], vault, clientVersion: ctx.clientVersion, platform: ctx.platform, history, logger });
  return { vault, settings, frames, discovered, desk };
}
