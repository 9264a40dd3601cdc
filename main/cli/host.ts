// `progress-desk host`: the core plus the pages on 127.0.0.1, for a browser.
import { join } from "node:path";
import { createDeskService, localGateway } from "../core/desk-service.ts";
import { historyPath, openHistoryFile } from "../core/card-history-file.ts";
import { ProgressDesk } from "../core/desk.ts";
import type { GatewayConfig } from "../core/desk-gateway.ts";
import { discoverGateway } from "../core/discovery.ts";
import { jsonFileBackend, SettingsStore } from "../core/settings.ts";
import { CredentialVault, dataHome, fileStorage } from "../core/vault.ts";
import { vaultNotice } from "./vault-notice.ts";
import { stderrLogger } from "./stderr-log.ts";
import { appVersion, packageRoot } from "../core/version.ts";
import { startHost, type Host } from "../host/host-server.ts";

export type HostCliOptions = { port?: number; url?: string; token?: string; password?: string; pagesDir?: string; verbose?: boolean };
export type HostIO = {
  stdout: { write(s: string): boolean };
  stderr: { write(s: string): boolean };
  env: NodeJS.ProcessEnv;
  stopSignal: Promise<void>;
};

export async function runHost(opts: HostCliOptions, io: HostIO): Promise<number> {
  const logger = stderrLogger(io.stderr, opts.verbose ?? false);
  for (const secret of [opts.token, opts.password]) logger.protect(secret);
  const home = dataHome(io.env);
  const vault = await CredentialVault.open(fileStorage(join(home, "credentials.json")), logger);
  const notice = vaultNotice(vault, join(home, "credentials.json"));
  if (notice) io.stderr.write(notice);
  const settings = new SettingsStore(jsonFileBackend(join(home, "settings.json"), { logger }), vault, logger);
  const explicit = {
    ...(opts.url ? { url: opts.url } : {}),
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.password ? { password: opts.password } : {}),
  };
  const discovered = discoverGateway({ env: io.env, explicit });
  for (const secret of [discovered.token, discovered.password, discovered.bootstrapToken]) logger.protect(secret);
  for (const note of discovered.notes) io.stderr.write(`progress-desk: ${note}\n`);
  // A Gateway named on the command line is used for this run instead of Settings.
  const override: GatewayConfig | undefined = opts.url || opts.token || opts.password ? localGateway(discovered) : undefined;
  let host: Host | undefined;
  const history = openHistoryFile(historyPath(home), { warn: (m) => io.stderr.write(`progress-desk: ${m}\n`) });
  const desk = new ProgressDesk({ gateways: [], vault, clientVersion: appVersion(), history, logger });
  const service = createDeskService({
    desk,
    settings,
    discovered,
    ...(override ? { override } : {}),
    // The page is already in the person's browser: it opens links itself.
    openExternal: () => false,
    // Pages switch in place; a client asking the host itself gets the page's address (Settings: its own origin).
    openPage: (page) => {
      if (host) io.stderr.write(`progress-desk: ${page}: ${host.pageUrl(page)}\n`);
    },
  });
  desk.configure(service.gateways());
  desk.start();
  try {
    host = await startHost({
      service,
      logger,
      pagesDir: opts.pagesDir ?? join(packageRoot(), "dist", "renderer"),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
    });
  } catch (err) {
    desk.stop();
    io.stderr.write(`progress-desk: ${(err as Error).message}\n`);
    return 1;
  }
  // The first line on stdout is the page's URL (scripts read it); everything else goes to stderr.
  io.stdout.write(`${host.url}\n`);
  io.stderr.write("progress-desk: open that address in a browser on this machine; Ctrl-C stops the host.\n");
  io.stderr.write(`progress-desk: settings: ${host.settingsUrl}\n`);
  logger.debug("host listening", { version: appVersion(), url: host.url, settingsUrl: host.settingsUrl });
  await io.stopSignal;
  await host.close();
  desk.stop();
  await settings.flush();
  return 0;
}
