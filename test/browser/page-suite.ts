// The set-up most browser suites share: one static server of the built pages and one Chromium
// for the whole file (a launch costs more than the tests on it), every context the suite opens
// closed at its end. Call `pageSuite()` inside the suite's `describe`; its hooks run there.
import { after, before } from "node:test";
import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import { launchChromiumBeside } from "./chromium.ts";
import { servePages } from "./fake-desk.ts";
import type { StaticServer } from "./server.ts";

export type PageSuite = {
  /** The pages server's origin, e.g. `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** A new context in the suite's Chromium, closed when the suite ends. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
};

export function pageSuite(): PageSuite {
  let server: StaticServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  before(async () => {
    [server, browser] = await launchChromiumBeside(servePages(), (s) => s.close());
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });
  const ready = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error("pageSuite() used outside its suite's tests");
    return part;
  };
  return {
    get origin() {
      return ready(server).origin;
    },
    async newContext(options) {
      const context = await ready(browser).newContext(options);
      contexts.push(context);
      return context;
    },
  };
}
