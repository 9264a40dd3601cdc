// Needs you in the popover, end to end (issue 19): a real Gateway with the scripted model and
// exec approvals on (`tools.exec = {host: "gateway", mode: "ask"}`), the real browser host with
// answering on, real Chromium. A scripted `exec` call waits for approval: the popover shows it
// with its exact command, its Control UI link is that Gateway's `/approve/<id>` (fetched: the
// real Control UI page, not a redirect to setup), and when a second client answers it the entry
// leaves with its outcome. Answered from the page (Y13): "Allow once" lets the run finish with
// the command's output, "Deny" ends it without running it, and a question's chosen option
// reaches the agent; what the agent was given is read from the scripted model's next request.
// The run is started by a client of the desk's own device: the Gateway shows an approval only
// to that device (docs/gateway.md §10.3).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import { connectBareClient, p, type BareClient } from "../harness/bare-client.ts";
import type { ScriptedModel } from "../harness/scripted-model.ts";
import type { TestGateway } from "../harness/gateway.ts";
import {
  runEnded as runEnd,
  startExecTurn as execTurn,
  startQuestionTurn as questionTurn,
  toolResultBefore as toolResultOf,
} from "../harness/waiting-turns.ts";
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
let model: ScriptedModel;

/** A turn in a new session whose one tool call waits for approval (test/harness/waiting-turns.ts). */
const startExecTurn = async (command: string, finalText: string) => (await execTurn(user, command, finalText)).runId;

const runEnded = (runId: string) => runEnd(user, runId);

const toolResultBefore = (finalText: string) => toolResultOf(model, finalText);

describe("needs you in the popover (real Gateway)", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig({ agent: true, tools: { exec: { host: "gateway", mode: "ask" } }, host: { answerApprovals: true } });
  before(
    async () => {
      let started: ScriptedModel | null;
      ({ gw, browser, th, model: started } = await rig.start());
      assert.ok(started, "the scripted model runs");
      model = started;
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

  test(
    "answered from the popover: Allow once lets the run finish with the command's output; Deny ends it without running it",
    { timeout: 240_000 },
    async () => {
      const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
      try {
        // Allow once: the command runs and its output ("Linux") is what the agent gets.
        const allowRun = await startExecTurn("uname -s", "saw the system name");
        const allowItem = page.locator("li.need", { has: page.locator("pre.command", { hasText: /^uname -s$/ }) });
        await allowItem.waitFor(WAIT);
        await allowItem.getByRole("button", { name: "Allow once: uname -s" }).click();
        await allowItem.waitFor({ state: "detached", timeout: 30_000 });
        const allowed = page.locator("li.resolved", { hasText: "uname -s" });
        await allowed.waitFor({ timeout: 15_000 });
        assert.equal(await allowed.locator(".outcome").textContent(), "allowed once in Progress Desk");
        await runEnded(allowRun);
        assert.match(toolResultBefore("saw the system name"), /Linux/, "the command ran and its output reached the agent");

        // Deny: the run ends; the command did not run (no output), the agent is told it was denied.
        const denyRun = await startExecTurn("uname -o", "was refused");
        const denyItem = page.locator("li.need", { has: page.locator("pre.command", { hasText: /^uname -o$/ }) });
        await denyItem.waitFor(WAIT);
        await denyItem.getByRole("button", { name: "Deny: uname -o" }).click();
        await denyItem.waitFor({ state: "detached", timeout: 30_000 });
        const denied = page.locator("li.resolved", { hasText: "uname -o" });
        await denied.waitFor({ timeout: 15_000 });
        assert.match((await denied.locator(".outcome").textContent()) ?? "", /^denied/);
        await runEnded(denyRun);
        const result = toolResultBefore("was refused");
        assert.match(result, /denied/i, result);
        assert.doesNotMatch(result, /GNU\/Linux/, "uname -o never ran");
        assert.deepEqual(
          errors.filter((e) => !/favicon/.test(e)),
          [],
        );
      } finally {
        await context.close();
      }
    },
  );

  test("a question answered from the popover (an option chosen, Send) reaches the agent", { timeout: 240_000 }, async () => {
    const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
    const runId = `run-q-${Math.random().toString(16).slice(2)}`;
    try {
      await questionTurn(user, "colour chosen", runId);
      const item = page.locator("li.need", { has: page.locator("legend", { hasText: "Which colour?" }) });
      await item.waitFor(WAIT);
      await item.getByRole("radio", { name: /Blue/ }).check();
      await item.getByRole("button", { name: "Send answer" }).click();
      await item.waitFor({ state: "detached", timeout: 30_000 });
      await runEnded(runId);
      const result = toolResultBefore("colour chosen");
      assert.match(result, /"status": "answered"/);
      assert.match(result, /"colour": \[\s*"Blue"\s*\]/);
      assert.deepEqual(
        errors.filter((e) => !/favicon/.test(e)),
        [],
      );
    } finally {
      await context.close();
      // A question left pending would hold up the main session's next turn.
      const asked = user.events.find((e) => e.event === "question.requested" && p(e).runId === runId);
      if (asked) await user.request("question.resolve", { id: p(asked).id, cancel: true }).catch(() => {});
    }
  });
});
