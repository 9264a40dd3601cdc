// Needs you in the popover, end to end (issue 19): a real Gateway with the scripted model and
// exec approvals on (`tools.exec = {host: "gateway", mode: "ask"}`), the real browser host with
// answering on, real Chromium. A scripted `exec` call waits for approval: the popover shows it
// with its exact command, its Control UI link is that Gateway's `/approve/<id>` (fetched: the
// real Control UI page, not a redirect to setup), and when a second client answers it the entry
// leaves with its outcome. The run is started by a client of the desk's own device: the Gateway
// shows an approval only to that device (docs/gateway.md §10.3).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import { connectBareClient, type BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { E2eRig, openPage, type TestHost } from "./support.ts";

// Callbacks below run inside the page; the Node-side program has no DOM types.
declare const window: any;
declare const document: any;
declare const location: any;

const chromium = chromiumAvailable();
const ALL_SCOPES = ["operator.read", "operator.write", "operator.approvals", "operator.questions"];
const WAIT = { timeout: 90_000 };

let gw: TestGateway;
let th: TestHost;
let browser: Browser;
let user: BareClient;

describe("needs you in the popover (real Gateway)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig({ agent: true, tools: { exec: { host: "gateway", mode: "ask" } }, host: { answerApprovals: true } });
  before(
    async () => {
      ({ gw, browser, th } = await rig.start());
      user = await connectBareClient(gw, { scopes: ALL_SCOPES, identity: th.vault.deviceIdentity(), displayName: "second client" });
    },
    { timeout: 300_000 },
  );

  after(async () => {
    await user?.close();
    await rig.stop();
  });

  test(
    "an exec approval appears with its command; its link is the Control UI's /approve/<id> on that Gateway; answered elsewhere it leaves with its outcome",
    { timeout: 240_000 },
    async () => {
      const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
      try {
        await page.addInitScript(() => {
          window.__opens = [];
          window.open = (...args: unknown[]) => {
            window.__opens.push(args);
            return null;
          };
        });
        await page.reload();
        const command = `echo needs-e2e-${Math.random().toString(16).slice(2, 8)}`;
        const key = await user.createSession();
        await user.request("chat.send", {
          sessionKey: key,
          idempotencyKey: `run-${Math.random().toString(16).slice(2)}`,
          message: `Run it.\nSCRIPT:${JSON.stringify([{ tool: "exec", args: { command } }, { text: "ran it" }])}`,
        });

        const item = page.locator("li.need", { has: page.locator("pre.command", { hasText: command }) });
        await item.waitFor(WAIT);
        assert.equal(await item.locator("pre.command").textContent(), command, "the exact command, as the Gateway sent it");
        assert.equal(await item.locator(".kind").textContent(), "Command approval");
        assert.match((await item.locator(".where").textContent()) ?? "", /on gateway/);
        assert.match((await item.locator(".expires").textContent()) ?? "", /^expires in (29|30) min$/);

        const gateway = th.desk.snapshot().gateways[0]!;
        const entry = gateway.needs.entries.find((e) => e.command === command);
        assert.ok(entry, "the core holds the entry");
        const link = `http://127.0.0.1:${gw.port}/approve/${entry.id}`;

        await item.getByRole("button", { name: /Review in Control UI/ }).click();
        await page.waitForFunction(() => window.__opens.length > 0, undefined, { timeout: 15_000 });
        assert.deepEqual(await page.evaluate(() => window.__opens), [[link, "_blank", "noopener,noreferrer"]]);
        assert.ok(!link.includes(gw.token), "no token in the link");

        // The link is the real Control UI page of that approval, served as is (not sent to setup).
        const res = await fetch(link, { redirect: "manual" });
        assert.equal(res.status, 200, "served, not redirected");
        assert.match(res.headers.get("content-type") ?? "", /text\/html/);
        assert.match(await res.text(), /<html/i);
        const ui = await context.newPage();
        await ui.goto(link, { waitUntil: "domcontentloaded" });
        await ui.waitForFunction(() => document.querySelector("script") !== null, undefined, { timeout: 30_000 });
        assert.equal(await ui.evaluate(() => location.pathname), `/approve/${entry.id}`, "the app stays on the approval's page");
        await ui.close();

        // Answered by a second client: the entry leaves the popover and its outcome shows.
        await user.request("approval.resolve", { id: entry.id, kind: "exec", decision: "deny" });
        await item.waitFor({ state: "detached", timeout: 30_000 });
        const resolved = page.locator("li.resolved", { hasText: command });
        await resolved.waitFor({ timeout: 15_000 });
        assert.equal(await resolved.locator(".outcome").textContent(), "denied in second client");
        assert.deepEqual(
          errors.filter((e) => !/favicon/.test(e)),
          [],
        );
      } finally {
        await context.close();
      }
    },
  );
});
