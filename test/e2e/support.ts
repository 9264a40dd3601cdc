// End-to-end plumbing: a real Gateway → the core → the browser host → real Chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { historyPath, openHistoryFile } from "../../main/core/card-history-file.ts";
import type { ProgressDesk } from "../../main/core/desk.ts";
import type { DeskService } from "../../main/core/desk-service.ts";
import { jsonFileBackend, type SettingsStore } from "../../main/core/settings.ts";
import { fileStorage, type CredentialVault } from "../../main/core/vault.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { launchChromium } from "../browser/chromium.ts";
import { FAST_BACKOFF } from "../gateway/support.ts";
import type { BareClient, CardInput } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { startScriptedModel, type ScriptedModel } from "../harness/scripted-model.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { wireCore } from "../harness/wired-core.ts";

export const pagesDir = join(import.meta.dirname, "..", "..", "dist", "renderer");

export type TestHost = {
  host: Host;
  desk: ProgressDesk;
  /** The core's vault: its device identity is the desk's (docs/gateway.md §10.3). */
  vault: CredentialVault;
  settings: SettingsStore;
  /** The contract's service: the Gateways the core should use now, as Settings say. */
  service: DeskService;
  home: string;
  /** Stops the host and the core; the data folder stays for a restart. */
  stop(): Promise<void>;
};

/** A host on its own data folder (`home`, reused to test a restart). */
export async function startTestHost(
  gw: { url: string; token: string },
  /** history: keep the card history in the data folder (card-history.json), as the app does, so a restart continues it. */
  /** answerApprovals: the Gateway is used with answering on (as if set in Settings); label, color: its name and colour there. */
  opts: { home?: string; refreshTimeoutMs?: number; history?: boolean; answerApprovals?: boolean; label?: string; color?: string } = {},
): Promise<TestHost> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "pd-e2e-"));
  const { desk, settings, service, vault } = await wireCore(gw, {
    ...(opts.answerApprovals
      ? {
          service: {
            override: {
              url: gw.url,
              token: gw.token,
              answerApprovals: true,
              ...(opts.label ? { label: opts.label } : {}),
              ...(opts.color ? { color: opts.color } : {}),
            },
          },
        }
      : {}),
    storage: fileStorage(join(home, "credentials.json")),
    backend: jsonFileBackend(join(home, "settings.json")),
    desk: {
      backoff: FAST_BACKOFF,
      ...(opts.refreshTimeoutMs ? { refreshTimeoutMs: opts.refreshTimeoutMs } : {}),
      ...(opts.history ? { history: openHistoryFile(historyPath(home)) } : {}),
    },
  });
  desk.configure(service.gateways());
  desk.start();
  let host: Host;
  try {
    host = await startHost({ service, pagesDir });
  } catch (error) {
    // A desk left reconnecting to a stopped Gateway would keep the test process, and so the
    // whole run, alive with nothing to do.
    desk.stop();
    await settings.flush();
    throw error;
  }
  return {
    host,
    desk,
    vault,
    settings,
    service,
    home,
    async stop() {
      await host.close();
      desk.stop();
      await settings.flush();
    },
  };
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

export type E2eRigOptions = {
  agent?: boolean;
  host?: { refreshTimeoutMs?: number; answerApprovals?: boolean };
  /** Added to the Gateway's `tools` config (with `agent`), e.g. exec approvals. */
  tools?: Record<string, unknown>;
};

/** What an end-to-end suite runs against, once `E2eRig.start` has started it all (`model` with `agent`: what it was asked). */
export type E2eParts = { gw: TestGateway; browser: Browser; client: BareClient; th: TestHost; model: ScriptedModel | null };

/**
 * A suite's real Gateway (with a bare client on it), real Chromium and a test host on its own
 * data folder. With `agent`, the Gateway runs the scripted model and its first (slow) agent turn
 * is taken before any test. `stop` stops whatever did start, even after a failed `start`.
 */
export class E2eRig {
  private readonly gateway: GatewayRig;
  private gw?: TestGateway;
  private browser?: Browser;
  private th?: TestHost;
  private model: ScriptedModel | null = null;
  private readonly opts: E2eRigOptions;

  constructor(opts: E2eRigOptions = {}) {
    this.opts = opts;
    this.gateway = new GatewayRig(opts.agent ? async () => (this.model = await startScriptedModel()) : undefined, opts.tools);
  }

  async start(): Promise<E2eParts> {
    // Both start at once; whichever did start is kept for stop() even if the other failed.
    const [started, launched] = await Promise.allSettled([this.gateway.start(), launchChromium()]);
    if (launched.status === "fulfilled") this.browser = launched.value;
    if (started.status === "rejected") throw started.reason;
    if (launched.status === "rejected") throw launched.reason;
    const { gw, client } = started.value;
    this.gw = gw;
    const th = (this.th = await startTestHost(gw, this.opts.host));
    if (this.opts.agent) await warmUpAgent(client, gw);
    return { gw, browser: launched.value, client, th, model: this.model };
  }

  /** Stops the test host and starts a new one on the same data folder (a restart of the app). */
  async restartHost(): Promise<TestHost> {
    if (!this.gw || !this.th) throw new Error("restartHost before start");
    const home = this.th.home;
    await this.th.stop();
    this.th = await startTestHost(this.gw, { ...this.opts.host, home });
    return this.th;
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    await this.th?.stop();
    if (this.th) removeHome(this.th.home);
    await this.gateway.stop();
  }
}

/** A page that records console errors and every request that is not to the host. */
export async function openPage(
  browser: Browser,
  url: string,
  opts: { colorScheme?: "light" | "dark"; width?: number; reducedMotion?: boolean } = {},
) {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 400, height: 900 },
    colorScheme: opts.colorScheme ?? "light",
    reducedMotion: opts.reducedMotion ? "reduce" : "no-preference",
  });
  const page = await context.newPage();
  const origin = new URL(url).origin;
  const foreign: string[] = [];
  const errors: string[] = [];
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(origin) || u.startsWith("data:")) return route.continue();
    foreign.push(u);
    return route.abort();
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(url);
  return { page, context, foreign, errors };
}

/** The card element for a session. */
export function card(page: Page, sessionKey: string) {
  return page.locator(`article.card[data-key*="${sessionKey}"]`);
}

/** A new session whose card `input` is put through the Gateway; resolves once `page` shows that card. */
export async function newCardShown(agent: BareClient, page: Page, input: CardInput): Promise<{ key: string; c: Locator }> {
  const key = await agent.createSession();
  await agent.put(key, input);
  const c = card(page, key);
  await c.waitFor({ timeout: 15_000 });
  return { key, c };
}
