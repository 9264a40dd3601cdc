// Issue 21, what a page hears (main/core/page-changes.ts): sessions without a card say so once at
// start-up and whenever the Gateway lists them again; no page hears that, because a page shows only
// slots that say something. A card that goes away still reaches the page, which drops it. A real
// Gateway, the host and the popover in real Chromium; the page's WebSocket frames are read as sent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import { until } from "../harness/until.ts";
import { card, E2eRig, type TestHost } from "./support.ts";

const chromium = chromiumAvailable();
const WAIT = { timeout: 15_000 };
const STEPS = [{ step: "Build", status: "completed" as const }];

type Heard = { sessionKey: string; hasCard: boolean };

describe("what a page hears of cards (real Gateway)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig();
  let browser: Browser;
  let client: BareClient;
  let th: TestHost;
  before(async () => ({ browser, client, th } = await rig.start()), { timeout: 120_000 });
  after(() => rig.stop());

  test("sessions without a card are never sent to the page; a card that goes away is, once", async () => {
    const empty = [await client.createSession(), await client.createSession(), await client.createSession()];
    const shown = await client.createSession();
    await client.put(shown, { markdown: "Shown at start", plan: STEPS });
    // The core has read every session (the card's own read among them) before the page connects.
    await until(
      "the core has read the card",
      () => th.desk.snapshot().gateways[0]?.cards.some((e) => e.sessionKey === shown && e.card !== null) === true,
      15_000,
    );

    const context = await browser.newContext({ viewport: { width: 400, height: 900 } });
    const page = await context.newPage();
    const heard: Heard[] = [];
    page.on("websocket", (ws) =>
      ws.on("framereceived", (f) => {
        const msg = JSON.parse(String(f.payload)) as { event?: unknown; events?: unknown[] };
        for (const e of msg.events ?? (msg.event ? [msg.event] : []))
          if ((e as { change?: { type?: string } }).change?.type === "card") {
            const entry = (e as { change: { entry: { sessionKey: string; card: unknown } } }).change.entry;
            heard.push({ sessionKey: entry.sessionKey, hasCard: entry.card !== null });
          }
      }),
    );
    await page.goto(th.host.url);
    await card(page, shown).waitFor(WAIT);

    // New sessions without a card: the core reads each (they are new to it) and finds nothing.
    const later = [await client.createSession(), await client.createSession()];
    await until(
      "the core has listed the new sessions",
      () => later.every((k) => th.desk.snapshot().gateways[0]?.sessions.some((s) => s.key === k)),
      15_000,
    );
    // A card put and then cleared: the page hears both.
    const gone = await client.createSession();
    await client.put(gone, { markdown: "Here for a moment", plan: STEPS });
    await card(page, gone).waitFor(WAIT);
    await client.put(gone, { plan: [] });
    await card(page, gone).waitFor({ state: "detached", ...WAIT });

    const silent = [...empty, ...later];
    assert.deepEqual(
      heard.filter((h) => silent.includes(h.sessionKey)),
      [],
      "no message about a session that never had a card",
    );
    assert.deepEqual(
      heard.filter((h) => h.sessionKey === gone).map((h) => h.hasCard),
      [true, false],
      "the card, then its going",
    );
    await context.close();
  });
});
