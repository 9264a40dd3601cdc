// End-to-end plumbing: a real Gateway → the core → the browser host → real Chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { ProgressDesk } from "../../main/core/desk.ts";
import { jsonFileBackend, type SettingsStore } from "../../main/core/settings.ts";
import { fileStorage } from "../../main/core/vault.ts";
import { startHost, type Host } from "../../main/host/host-server.ts";
import { FAST_BACKOFF } from "../gateway/support.ts";
import { wireCore } from "../harness/wired-core.ts";

export const pagesDir = join(import.meta.dirname, "..", "..", "dist", "renderer");

export type TestHost = {
  host: Host;
  desk: ProgressDesk;
  settings: SettingsStore;
  home: string;
  /** Stops the host and the core; the data folder stays for a restart. */
  stop(): Promise<void>;
};

/** A host on its own data folder (`home`, reused to test a restart). */
export async function startTestHost(
  gw: { url: string; token: string },
  opts: { home?: string; refreshTimeoutMs?: number } = {},
): Promise<TestHost> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "pd-e2e-"));
  const { desk, settings, service } = await wireCore(gw, {
    storage: fileStorage(join(home, "credentials.json")),
    backend: jsonFileBackend(join(home, "settings.json")),
    desk: { backoff: FAST_BACKOFF, ...(opts.refreshTimeoutMs ? { refreshTimeoutMs: opts.refreshTimeoutMs } : {}) },
  });
  desk.configure(service.gateways());
  desk.start();
  const host = await startHost({ service, pagesDir });
  return {
    host,
    desk,
    settings,
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
