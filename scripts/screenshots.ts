// `npm run screenshots`: the real pages, fed by a real local Gateway, captured in Chromium
// into docs/screenshots/ for the README. Needs a build (`npm run build`) and Chromium.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { connectBareClient } from "../test/harness/bare-client.ts";
import { startGateway } from "../test/harness/gateway.ts";
import { launchChromium } from "../test/browser/chromium.ts";
import { startTestHost, removeHome } from "../test/e2e/support.ts";

const out = join(import.meta.dirname, "..", "docs", "screenshots");
mkdirSync(out, { recursive: true });
const gw = await startGateway();
const agent = await connectBareClient(gw);
const session = async (label: string): Promise<string> => ((await agent.request("sessions.create", { label })) as { key: string }).key;

const review = await session("Review open PRs");
const release = await session("Release 2026.12");
const repair = await session("Repair session owner");
const ci = await session("Wait for CI");
await agent.put(release, { plan: [{ step: "Bump versions", status: "completed" }, { step: "Build artefacts", status: "completed" }, { step: "Publish", status: "completed" }], markdown: "Published **2026.12.0**. Release notes: https://example.com/releases/2026.12.0" });
await agent.put(repair, {
  markdown: "Owner check fails for sessions created before the migration; fixing `resolveOwner()` in `src/gateway/session-owner.ts`.",
  plan: [
    { step: "Reproduce the failing owner check", status: "completed" },
    { step: "Fix resolveOwner() for pre-migration sessions", status: "in_progress" },
    { step: "Run the session suite", status: "pending" },
    { step: "Write the changelog entry", status: "pending" },
  ],
});
await agent.put(ci, { markdown: "Waiting for CI on `main` — nothing to do until it finishes." });
await agent.put(review, {
  markdown: '<progress aria-label="PRs reviewed · 12/30" value="12" max="30"></progress>\n\nReviewing open PRs against the checklist in [CONTRIBUTING.md](https://example.com/CONTRIBUTING.md).\n\n| PR | Verdict |\n|---|---|\n| #4412 | approve |\n| #4418 | changes requested |',
  plan: [
    { step: "Collect open PRs", status: "completed" },
    { step: "Review each PR against the checklist", status: "in_progress" },
    { step: "Post a summary in the release thread", status: "pending" },
  ],
});

const th = await startTestHost(gw);
const gatewayId = th.desk.gatewayIds()[0]!;
th.settings.update({ pinned: [review, repair, release, ci].map((k) => `${gatewayId}\u0000${k}`) });
const browser = await launchChromium();
try {
  for (const [name, scheme, width] of [["popover-light", "light", 400], ["popover-dark", "dark", 400], ["popover-narrow", "light", 320]] as const) {
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
  console.log(`screenshots written to ${out}`);
} finally {
  await browser.close();
  await th.stop();
  removeHome(th.home);
  await agent.close();
  await gw.dispose();
}
