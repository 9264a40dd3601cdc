// Live activity end to end (issue 5): a real Gateway and its agent runtime driven by the
// scripted model → the core → the browser host → real Chromium, and `watch --json`. The
// activity line shows under the card while the run lives and goes when it ends; a tool
// storm stays within the render budget; a polling loop is pointed out and cleared.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { chromiumAvailable } from "../browser/chromium.ts";
import type { BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { plan } from "../gateway/support.ts";
import { card, E2eRig, openPage, type TestHost } from "./support.ts";
import { until } from "../harness/until.ts";
import { spawnWatchJson } from "../harness/watch-cli.ts";

declare const document: any;
declare const window: any;
declare const MutationObserver: any;

const chromium = chromiumAvailable();
let gw: TestGateway;
let user: BareClient;
let th: TestHost;
let browser: Browser;
let watch: ChildProcess | null = null;
let watchOut = "";
const home = mkdtempSync(join(tmpdir(), "pd-activity-"));

describe("live activity in the popover and in watch", { skip: chromium.ok ? false : chromium.reason }, () => {
  const rig = new E2eRig({ agent: true });
  before(
    async () => {
      ({ gw, browser, client: user, th } = await rig.start());
      th.settings.update({ detector: { pollingRepeats: 4 } });
      watch = spawnWatchJson(gw, home, (c) => (watchOut += c));
    },
    { timeout: 300_000 },
  );

  after(async () => {
    watch?.kill("SIGINT");
    await rig.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test(
    "the current tool line shows under the card while the run lives, and goes when it ends; watch --json tells the same",
    { timeout: 90_000 },
    async () => {
      const { page, context, errors } = await openPage(browser, th.host.url, { reducedMotion: true });
      try {
        const key = await user.createSession();
        const turn = user.runTurn(key, [
          { tool: "progress_card", args: { plan: plan("completed", "in_progress", "pending"), markdown: "Running the checks" } },
          { tool: "read", args: { path: "AGENTS.md" } },
          { tool: "exec", args: { command: "echo hi" } },
          { text: "done", delayMs: 4000 },
        ]);
        const c = card(page, key);
        await c.locator(".activity .line.current .label", { hasText: "Shell · print text" }).waitFor({ timeout: 30_000 });
        assert.equal(await c.locator(".activity .stall").count(), 0);
        // Open: the recent lines (before the current one) are listed too, quieter than the card;
        // the card's own write is not one of them (issue 19: its effect is the card).
        assert.deepEqual(await c.locator(".activity .recent .label").allTextContents(), ["Read · AGENTS.md"]);
        assert.equal((await turn).phase, "end");
        await c.locator(".activity").waitFor({ state: "detached", timeout: 15_000 });
        assert.deepEqual(errors, []);

        const lines = await until("watch activity lines", () => {
          const parsed = watchOut
            .split("\n")
            .filter((l) => l.startsWith("{"))
            .map((l) => JSON.parse(l) as Record<string, any>);
          const mine = parsed.filter((l) => l.type === "activity" && l.sessionKey === key);
          return mine.some((l) => l.live === false) ? mine : null;
        });
        const live = lines.find((l) => l.live && l.current?.label === "Shell · print text");
        assert.ok(live, JSON.stringify(lines).slice(0, 600));
        assert.deepEqual(Object.keys(live).sort(), ["current", "gateway", "lines", "live", "runId", "sessionKey", "stall", "type"]);
        assert.deepEqual(Object.keys(live.current).sort(), ["at", "glyph", "label", "status", "tool"]);
        assert.equal(lines.at(-1)!.current, null, "the run's end clears the current line");
        assert.ok(!watchOut.includes('"hi\\n"') && !/"output"/.test(watchOut), "never tool output");
        assert.ok(
          lines.every((l) => l.current?.tool !== "progress_card" && l.lines.every((x: { tool: string }) => x.tool !== "progress_card")),
          "no card-write line in watch either",
        );
      } finally {
        await context.close();
      }
    },
  );

  test("a storm of tool calls costs a few renders a second", { timeout: 120_000 }, async () => {
    const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
    try {
      const key = await user.createSession();
      await user.put(key, { plan: plan("in_progress"), markdown: "Storm" });
      const c = card(page, key);
      await c.waitFor({ timeout: 30_000 });
      // Count the page's render batches that touch this card's activity strip.
      await page.evaluate((k) => {
        const target = document.querySelector(`article.card[data-key*="${k}"]`);
        window.__batches = 0;
        window.__start = 0;
        new MutationObserver(() => {
          if (!window.__start) window.__start = performance.now();
          window.__end = performance.now();
          window.__batches += 1;
        }).observe(target, { subtree: true, childList: true, characterData: true, attributes: true });
      }, key);
      const calls = 24;
      const steps = Array.from({ length: calls }, (_, i) => ({ tool: "exec", args: { command: `echo storm-${i}` } }));
      const turn = await user.runTurn(key, [...steps, { text: "done" }], { timeoutMs: 90_000 });
      assert.equal(turn.phase, "end");
      await c.locator(".activity").waitFor({ state: "detached", timeout: 15_000 });
      const r = (await page.evaluate(() => ({ batches: window.__batches, ms: window.__end - window.__start }))) as {
        batches: number;
        ms: number;
      };
      const items = user.events.filter(
        (e) => e.event === "agent" && (e.payload as any)?.sessionKey === key && (e.payload as any)?.stream === "item",
      ).length;
      // The core sends at most 4 updates a second per session; each may touch the strip once.
      const budget = Math.ceil((r.ms / 1000) * 4) + 3;
      console.log(`# storm: ${items} item events in ${(r.ms / 1000).toFixed(1)} s → ${r.batches} render batches (budget ${budget})`);
      assert.ok(items >= calls * 2, `the Gateway sent start and end items (${items})`);
      assert.ok(r.batches <= budget, `${r.batches} render batches for ${items} events in ${r.ms.toFixed(0)} ms`);
    } finally {
      await context.close();
    }
  });

  test(
    "a polling loop is pointed out under the card and cleared by the agent's next card write; the card itself is untouched",
    { timeout: 90_000 },
    async () => {
      const { page, context } = await openPage(browser, th.host.url, { reducedMotion: true });
      try {
        const key = await user.createSession();
        await user.put(key, { plan: plan("completed", "in_progress"), markdown: "Waiting for CI" });
        const c = card(page, key);
        await c.waitFor({ timeout: 30_000 });
        const poll = { tool: "exec", args: { command: "echo poll" } };
        const turn = user.runTurn(key, [
          poll,
          poll,
          poll,
          poll,
          { tool: "progress_card", args: { plan: plan("completed", "completed"), markdown: "CI passed" }, delayMs: 2500 },
          { text: "done", delayMs: 1500 },
        ]);
        // The card was written before this run, so R6 shows it paused while the run lives;
        // the flag is an observation beside it and changes nothing of that.
        await c.locator(".activity .line.current .label", { hasText: "Shell" }).waitFor({ timeout: 30_000 });
        const during = await c.getAttribute("data-state");
        await c.locator(".activity .stall", { hasText: "Polling the same command 4×" }).waitFor({ timeout: 30_000 });
        assert.equal(await c.getAttribute("data-state"), during, "the flag never changes the card's own state");
        assert.equal(await c.locator(".count").textContent(), "1/2");
        await c.locator(".count", { hasText: "2/2" }).waitFor({ timeout: 30_000 });
        assert.equal(await c.locator(".activity .stall").count(), 0, "progress resumed: the flag is gone");
        assert.equal((await turn).phase, "end");
      } finally {
        await context.close();
      }
    },
  );
});
