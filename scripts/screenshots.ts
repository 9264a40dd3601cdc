// `npm run screenshots`: the real pages, fed by a real local Gateway, captured in Chromium
// into docs/screenshots/ for the README. Needs a build (`npm run build`) and Chromium.
// The Gateway runs real agent turns against the scripted model (test/harness/scripted-model.ts),
// so the last image shows a live run's activity strip under its card. A second Gateway, with exec
// approvals on, gives the popover with a command waiting for approval (popover-needs.png).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { connectBareClient } from "../test/harness/bare-client.ts";
import { startGateway } from "../test/harness/gateway.ts";
import { startScriptedModel } from "../test/harness/scripted-model.ts";
import { launchChromium } from "../test/browser/chromium.ts";
import { startTestHost, removeHome } from "../test/e2e/support.ts";

const out = join(import.meta.dirname, "..", "docs", "screenshots");
mkdirSync(out, { recursive: true });
const model = await startScriptedModel();
const gw = await startGateway({ model });
const agent = await connectBareClient(gw);
const session = async (label: string): Promise<string> => ((await agent.request("sessions.create", { label })) as { key: string }).key;

const review = await session("Review open PRs");
const release = await session("Release 2026.12");
const repair = await session("Repair session owner");
const ci = await session("Wait for CI");
await agent.put(release, {
  plan: [
    { step: "Bump versions", status: "completed" },
    { step: "Build artefacts", status: "completed" },
    { step: "Publish", status: "completed" },
  ],
  markdown: "Published **2026.12.0**. Release notes: https://example.com/releases/2026.12.0",
});
const repairCard = {
  markdown: "Owner check fails for sessions created before the migration; fixing `resolveOwner()` in `src/gateway/session-owner.ts`.",
  plan: [
    { step: "Reproduce the failing owner check", status: "completed" as const },
    { step: "Fix resolveOwner() for pre-migration sessions", status: "in_progress" as const },
    { step: "Run the session suite", status: "pending" as const },
    { step: "Write the changelog entry", status: "pending" as const },
  ],
};
await agent.put(repair, repairCard);
await agent.put(ci, { markdown: "Waiting for CI on `main` — nothing to do until it finishes." });
await agent.put(review, {
  markdown:
    '<progress aria-label="PRs reviewed · 12/30" value="12" max="30"></progress>\n\nReviewing open PRs against the checklist in [CONTRIBUTING.md](https://example.com/CONTRIBUTING.md).\n\n| PR | Verdict |\n|---|---|\n| #4412 | approve |\n| #4418 | changes requested |',
  plan: [
    { step: "Collect open PRs", status: "completed" },
    { step: "Review each PR against the checklist", status: "in_progress" },
    { step: "Post a summary in the release thread", status: "pending" },
  ],
});

const th = await startTestHost(gw);
const [gatewayId] = th.desk.gatewayIds();
if (gatewayId === undefined) throw new Error("the test host has no Gateway");
th.settings.update({ pinned: [review, repair, release, ci].map((k) => `${gatewayId}\u0000${k}`) });
const browser = await launchChromium();
try {
  for (const [name, scheme, width] of [
    ["popover-light", "light", 400],
    ["popover-dark", "dark", 400],
    ["popover-narrow", "light", 320],
  ] as const) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme, deviceScaleFactor: 2 });
    await page.goto(th.host.url);
    await page.locator("article.card").nth(3).waitFor({ timeout: 20_000 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
    await page.close();
  }
  const dash = await browser.newPage({ viewport: { width: 1100, height: 760 }, colorScheme: "light", deviceScaleFactor: 2 });
  await dash.goto(th.host.url.replace("popover.html", "dashboard.html"));
  await dash.locator("article.card").first().waitFor({ timeout: 20_000 });
  await dash.waitForTimeout(300);
  await dash.screenshot({ path: join(out, "dashboard.png"), fullPage: true });
  await dash.close();

  // A live run on the repair card: its current line under the card, the earlier ones above it
  // (the card is open); the test command runs three times in a row, so the current line says
  // "×3". The agent rewrites its card first, as agents do (a card older than the live run would
  // show as paused, R6); that write makes no line, its effect is the card. The first turn after
  // the Gateway starts is slow: warm up on a session of its own (no card, so it shows nowhere).
  // The final reply waits, so the run stays live while the image is taken.
  const warm = await session("Warm-up");
  await agent.runTurn(warm, [{ text: "warmed up" }], { timeoutMs: 150_000 });
  const run = agent.runTurn(
    repair,
    [
      { tool: "progress_card", args: repairCard },
      { tool: "read", args: { path: "AGENTS.md" } },
      {
        tool: "write",
        args: { path: "src/gateway/session-owner.ts", content: "export const resolveOwner = (s) => s.owner ?? s.createdBy;\n" },
      },
      { tool: "exec", args: { command: "npm test" } },
      { tool: "exec", args: { command: "npm test" } },
      { tool: "exec", args: { command: "npm test" } },
      { text: "done", delayMs: 8000 },
    ],
    { timeoutMs: 120_000 },
  );
  run.catch(() => {});
  const live = await browser.newPage({ viewport: { width: 400, height: 900 }, colorScheme: "light", deviceScaleFactor: 2 });
  await live.goto(th.host.url);
  const current = live.locator(`article.card[data-key*="${repair}"] .activity .line.current`);
  await current.filter({ hasText: "Shell · run tests" }).filter({ hasText: "×3" }).waitFor({ timeout: 90_000 });
  await live.waitForTimeout(400);
  await live.screenshot({ path: join(out, "popover-activity.png"), fullPage: true });
  await live.close();
  await run;

  // Issue 12: a run whose steps the desk saw one by one, a few seconds apart (real time passes:
  // the history uses the desk's clock), so the dashboard draws its timeline and, with two steps
  // done, the card shows an estimate of what is left. The final reply waits, so the run stays live.
  const migrate = await session("Migrate the database");
  th.settings.update({ pinned: [migrate, review, repair, release, ci].map((k) => `${gatewayId}\u0000${k}`) });
  const migration = ["Snapshot the database", "Write the migration", "Dry-run on a copy", "Apply to production", "Verify row counts"];
  const upTo = (done: number) =>
    migration.map((step, i) => ({ step, status: i < done ? "completed" : i === done ? "in_progress" : "pending" }));
  const timed = agent.runTurn(
    migrate,
    [
      { tool: "progress_card", args: { plan: upTo(0), markdown: "Taking a snapshot first." } },
      { tool: "progress_card", args: { plan: upTo(1), markdown: "Snapshot taken; writing the migration." }, delayMs: 2000 },
      { tool: "progress_card", args: { plan: upTo(2), markdown: "Migration written; dry run on a copy." }, delayMs: 5000 },
      { tool: "progress_card", args: { plan: upTo(3), markdown: "Dry run clean; applying." }, delayMs: 3000 },
      { text: "done", delayMs: 15_000 },
    ],
    { timeoutMs: 120_000 },
  );
  timed.catch(() => {});
  const timeline = await browser.newPage({ viewport: { width: 1100, height: 760 }, colorScheme: "light", deviceScaleFactor: 2 });
  await timeline.goto(th.host.pageUrl("dashboard"));
  const migrateCard = timeline.locator(`article.card[data-key*="${migrate}"]`);
  await migrateCard.locator("p.timing .estimate").waitFor({ timeout: 60_000 });
  await migrateCard.getByRole("list", { name: "Timeline" }).getByRole("listitem").nth(3).waitFor({ timeout: 20_000 });
  await timeline.waitForTimeout(300);
  await timeline.screenshot({ path: join(out, "dashboard-timeline.png"), fullPage: true });
  await timeline.close();
  await timed;
  await needsYouScreenshot();
  console.log(`screenshots written to ${out}`);
} finally {
  await browser.close();
  await th.stop();
  removeHome(th.home);
  await agent.close();
  await gw.dispose();
  await model.stop();
}

/**
 * Issue 19: an agent stopped for an exec approval, in the popover. A Gateway of its own with
 * exec approvals on (the first one's agent runs commands without asking), a desk that answers
 * approvals, and the run started from the desk's own device (docs/gateway.md §10.3).
 */
async function needsYouScreenshot(): Promise<void> {
  const askModel = await startScriptedModel();
  const askGw = await startGateway({ model: askModel, tools: { exec: { host: "gateway", mode: "ask" } } });
  const askHost = await startTestHost(askGw, { answerApprovals: true, label: "Build host", color: "#2f7d4f" });
  const owner = await connectBareClient(askGw, {
    scopes: ["operator.read", "operator.write", "operator.approvals", "operator.questions"],
    identity: askHost.vault.deviceIdentity(),
  });
  try {
    const key = ((await owner.request("sessions.create", { label: "Clean the build cache" })) as { key: string }).key;
    await owner.put(key, {
      markdown: "Freeing disk space on the build host before the nightly run.",
      plan: [
        { step: "Measure cache size", status: "completed" },
        { step: "Remove stale artefacts", status: "in_progress" },
        { step: "Verify the nightly build", status: "pending" },
      ],
    });
    const warm = ((await owner.request("sessions.create", { label: "Warm-up" })) as { key: string }).key;
    await owner.runTurn(warm, [{ text: "warmed up" }], { timeoutMs: 150_000 });
    await owner.request("chat.send", {
      sessionKey: key,
      idempotencyKey: `shot-${Date.now()}`,
      message: `Clean it.\nSCRIPT:${JSON.stringify([{ tool: "exec", args: { command: "find /var/tmp/build-cache -type f -mtime +14 -delete", workdir: "/var/tmp" } }, { text: "done" }])}`,
    });
    const page = await browser.newPage({ viewport: { width: 400, height: 900 }, colorScheme: "light", deviceScaleFactor: 2 });
    await page.goto(askHost.host.url);
    await page.locator("li.need pre.command").waitFor({ timeout: 90_000 });
    await page.locator("article.card").first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, "popover-needs.png"), fullPage: true });
    await page.close();
  } finally {
    await owner.close();
    await askHost.stop();
    removeHome(askHost.home);
    await askGw.dispose();
    await askModel.stop();
  }
}
