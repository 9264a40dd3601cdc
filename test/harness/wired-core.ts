// The core wired the way the app wires it for the pages (main/cli/host.ts, main/electron/setup/pages.ts):
// a credential vault, the settings store, a ProgressDesk and the pages' desk service, with `gateway`
// as the discovered Gateway. Neither configured nor started: each test chooses when.
import { createDeskService, type DeskService, type DeskServiceOptions } from "../../main/core/desk-service.ts";
import { ProgressDesk, type DeskOptions } from "../../main/core/desk.ts";
import { discoverGateway } from "../../main/core/discovery.ts";
import { memoryBackend, SettingsStore, type SettingsBackend } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage, type SecretStorage } from "../../main/core/vault.ts";

export type WiredCore = { vault: CredentialVault; settings: SettingsStore; desk: ProgressDesk; service: DeskService };

export type WiredCoreOptions = {
  /** Where the vault keeps its secrets (default: in memory). */
  storage?: SecretStorage;
  /** Where the settings are kept (default: in memory). */
  backend?: SettingsBackend;
  desk?: Partial<Omit<DeskOptions, "gateways" | "vault" | "clientVersion">>;
  service?: Partial<Omit<DeskServiceOptions, "desk" | "settings" | "discovered">>;
};

export async function wireCore(gateway: { url: string; token?: string }, opts: WiredCoreOptions = {}): Promise<WiredCore> {
  const vault = await CredentialVault.open(opts.storage ?? memoryStorage());
  const settings = new SettingsStore(opts.backend ?? memoryBackend(), vault);
  const desk = new ProgressDesk({ gateways: [], vault, clientVersion: "0.0.0-test", ...opts.desk });
  const service = createDeskService({
    desk,
    settings,
    discovered: discoverGateway({ env: {}, explicit: { url: gateway.url, ...(gateway.token ? { token: gateway.token } : {}) } }),
    openExternal: () => true,
    ...opts.service,
  });
  return { vault, settings, desk, service };
}
