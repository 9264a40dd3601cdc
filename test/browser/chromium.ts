// Real Chromium for browser suites (playwright-core drives the system Chromium; Playwright's
// own browser download is not used). Suites skip with a clear reason where none exists (and
// fail under CI=true, see test/harness/required-tool.ts):
//   const chromium = chromiumAvailable();
//   describe("…", { skip: chromium.ok ? false : chromium.reason }, () => { … });
// Network: guardNetwork() blocks and records every request that is not for the local test
// server, so "no request leaves the page" is asserted, not assumed.
import { accessSync, constants } from "node:fs";
import { chromium } from "playwright-core";
import { missingTool } from "../harness/required-tool.ts";
import type { Browser, BrowserContext } from "playwright-core";

const DEFAULT_CHROMIUM = "/usr/bin/chromium";

function executablePath(): string {
  return process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
}

export function chromiumAvailable(): { ok: true } | { ok: false; reason: string } {
  const path = executablePath();
  try {
    accessSync(path, constants.X_OK);
    return { ok: true };
  } catch {
    const reason = process.env.CHROMIUM_PATH
      ? `CHROMIUM_PATH=${path} is not an executable file`
      : `no executable Chromium at ${path} (set CHROMIUM_PATH to use another one)`;
    return { ok: false, reason: missingTool(reason) };
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: executablePath(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    headless: true,
  });
}

export type NetworkLog = {
  /** Requests served by the test server (path only). */
  served: string[];
  /** Every other attempt: aborted, never sent. */
  blocked: string[];
  /** WebSocket attempts (always refused). */
  sockets: string[];
};

/**
 * Route every request of `context`: only `allowedPaths` on `origin` go through; anything else
 * is aborted and recorded, including other paths on the test server itself.
 */
export async function guardNetwork(context: BrowserContext, origin: string, allowedPaths: ReadonlySet<string>): Promise<NetworkLog> {
  const log: NetworkLog = { served: [], blocked: [], sockets: [] };
  await context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin && allowedPaths.has(url.pathname)) {
      log.served.push(url.pathname);
      await route.continue();
    } else {
      log.blocked.push(url.href);
      await route.abort("blockedbyclient");
    }
  });
  await context.routeWebSocket(/.*/, (ws) => {
    log.sockets.push(ws.url());
    void ws.close();
  });
  return log;
}

/**
 * Starts `other` (a page server, a Gateway…) and Chromium at once. If either fails, whatever did
 * start is stopped before the error is thrown: a browser left running when its server failed
 * would keep the test process, and so the whole run, alive with nothing to do.
 */
export async function launchChromiumBeside<T>(
  other: Promise<T>,
  stopOther: (started: T) => Promise<unknown> | unknown,
): Promise<[T, Browser]> {
  const [started, launched] = await Promise.allSettled([other, launchChromium()]);
  if (started.status === "fulfilled" && launched.status === "fulfilled") return [started.value, launched.value];
  if (launched.status === "fulfilled") await launched.value.close().catch(() => {});
  if (started.status === "fulfilled") await Promise.resolve(stopOther(started.value)).catch(() => {});
  throw started.status === "rejected" ? started.reason : (launched as PromiseRejectedResult).reason;
}
