// `npm run demo`: a real local OpenClaw Gateway (the test harness's cached `openclaw`) with the
// scripted model, real agent turns on five sessions so the agents write their own cards, and the
// Progress Desk browser host showing them live. Steps are a few seconds apart (the card history
// uses the desk's real clock), so cards show durations ("5 s"), the long migration card an
// estimate of what is left, and the dashboard (every demo card pinned) their timelines. Last,
// an agent stops for the person's approval of a command, shown in "Needs you" until answered.
// Runs until Ctrl-C.
//   --once  exit after the story (for testing)
//   --fast  no pacing delays
import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { connectBareClient, p, type BareClient, type PlanStep } from "../test/harness/bare-client.ts";
import { startGateway, type TestGateway } from "../test/harness/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../test/harness/scripted-model.ts";
import { startTestHost, type TestHost } from "../test/e2e/support.ts";
import { openInBrowser } from "../main/cli/browser-open.ts";
import { gatewaySessionKey } from "../common/keys.ts";
import { timingMarks } from "../common/timing-view.ts";

const { values } = parseArgs({ options: { once: { type: "boolean" }, fast: { type: "boolean" } } });
const once = values.once === true;
const fast = values.fast === true;
const root = join(import.meta.dirname, "..");
const t0 = Date.now();

const say = (line: string) => process.stderr.write(`[demo ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
const pause = (ms: number) => (fast ? Promise.resolve() : new Promise<void>((r) => setTimeout(r, ms)));
/** A think time inside a turn (the run stays alive, so the card reads as active). */
const think = (ms: number) => (fast ? 0 : ms);
const TURN_TIMEOUT_MS = 90_000;

let model: ScriptedModel | undefined;
let gw: TestGateway | undefined;
let user: BareClient | undefined;
let th: TestHost | undefined;
let stopping: Promise<void> | null = null;

/** The person's Gateway client, connected before any story runs. */
function client(): BareClient {
  if (!user) throw new Error("the demo's Gateway client is not connected");
  return user;
}

/** The browser host the demo runs, started before any story runs. */
function testHost(): TestHost {
  if (!th) throw new Error("the demo's host is not started");
  return th;
}

function cleanup(): Promise<void> {
  stopping ??= (async () => {
    await th?.stop().catch(() => {});
    if (th) rmSync(th.home, { recursive: true, force: true });
    await user?.close().catch(() => {});
    await gw?.dispose().catch(() => {});
    await model?.stop().catch(() => {});
  })();
  return stopping;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    say(`${sig}: stopping the host and the Gateway…`);
    void cleanup().finally(() => process.exit(0));
  });
}

function steps(names: string[], done: number, working = true): PlanStep[] {
  return names.map((step, i) => ({ step, status: i < done ? "completed" : i === done && working ? "in_progress" : "pending" }));
}

async function turn(key: string, script: unknown[], what: string): Promise<void> {
  const r = await client().runTurn(key, script, { timeoutMs: TURN_TIMEOUT_MS });
  if (r.phase !== "end") throw new Error(`${what}: the run ended with ${r.phase}`);
}

const pinned: string[] = [];

/** A new session, its card pinned to the dashboard so its timeline shows there. */
async function session(label: string): Promise<string> {
  const { key } = await client().request<{ key: string }>("sessions.create", { label });
  pinned.push(gatewaySessionKey({ gatewayId: testHost().desk.gatewayIds()[0] ?? "", sessionKey: key }));
  testHost().settings.update({ pinned: [...pinned] });
  return key;
}

// A: a labelled progress bar counting up over several turns while the checklist advances, ending complete.
async function storyA(): Promise<string> {
  const key = await session("Review open PRs");
  const names = ["List open PRs", "Review each PR", "Post review summaries"];
  const bar = (n: number, note: string) => `<progress aria-label="PRs reviewed · ${n}/6" value="${n}" max="6"></progress>\n\n${note}`;
  say("A · Review open PRs: listing PRs");
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 0), markdown: bar(0, "Listing the open pull requests…") } },
      {
        tool: "progress_card",
        args: { plan: steps(names, 1), markdown: bar(0, "Six open PRs; starting with #801.") },
        delayMs: think(3000),
      },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: bar(1, "Reviewed #801.") }, delayMs: think(3000) },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: bar(2, "Reviewed #802.") }, delayMs: think(3000) },
      { text: "Reviewed two so far; continuing next turn.", delayMs: think(1500) },
    ],
    "A turn 1",
  );
  await pause(3000);
  say("A · Review open PRs: reviewing more");
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: bar(3, "Reviewed #805.") }, delayMs: think(2500) },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: bar(4, "Reviewed #807.") }, delayMs: think(3000) },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: bar(5, "Reviewed #809.") }, delayMs: think(3000) },
      { text: "Five down, one to go.", delayMs: think(1500) },
    ],
    "A turn 2",
  );
  await pause(3000);
  say("A · Review open PRs: last PR and summaries");
  await turn(
    key,
    [
      {
        tool: "progress_card",
        args: { plan: steps(names, 2), markdown: bar(6, "All six reviewed; posting summaries.") },
        delayMs: think(2500),
      },
      {
        tool: "progress_card",
        args: { plan: steps(names, 3), markdown: bar(6, "Done: 4 approved, 2 need changes.") },
        delayMs: think(3000),
      },
      { text: "All PRs reviewed.", delayMs: think(1000) },
    ],
    "A turn 3",
  );
  say("A · Review open PRs: complete");
  return key;
}

// B: advances two steps, then the run ends with work unfinished: the card shows paused.
async function storyB(): Promise<string> {
  const key = await session("Repair session owner");
  const names = ["Reproduce the owner mismatch", "Find the faulty write", "Patch the owner check", "Run the session suite"];
  say("B · Repair session owner: working");
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 0), markdown: "Reproducing the owner mismatch on a fresh session." } },
      {
        tool: "progress_card",
        args: { plan: steps(names, 1), markdown: "Reproduced: the owner flips after a reconnect." },
        delayMs: think(3000),
      },
      {
        tool: "progress_card",
        args: { plan: steps(names, 2), markdown: "Found it: the reconnect path rewrites `owner`." },
        delayMs: think(3000),
      },
      { text: "Stopping here for now; the patch needs a decision.", delayMs: think(3000) },
    ],
    "B turn",
  );
  say("B · Repair session owner: the run ended with work unfinished (paused)");
  return key;
}

// C: completes all steps, then the card is cleared and a new card starts.
async function storyC(): Promise<string> {
  const key = await session("Release 2026.12");
  const names = ["Bump versions", "Build artifacts", "Publish release notes"];
  say("C · Release 2026.12: releasing");
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 0), markdown: "Cutting **2026.12**." } },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: "Versions bumped; building." }, delayMs: think(2500) },
      { tool: "progress_card", args: { plan: steps(names, 2), markdown: "Artifacts built; writing notes." }, delayMs: think(2500) },
      { tool: "progress_card", args: { plan: steps(names, 3), markdown: "Released 2026.12." }, delayMs: think(2500) },
      { text: "Release done.", delayMs: think(1000) },
    ],
    "C turn 1",
  );
  say("C · Release 2026.12: complete");
  await pause(5000);
  const { card } = await client().get(key);
  await client().put(key, card ? { expectedRevision: card.revision } : {});
  say("C · Release 2026.12: card cleared");
  await pause(4000);
  const next = ["Announce the release", "Open the 2027.1 milestone"];
  say("C · Release 2026.12: a new card starts");
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(next, 0), markdown: "Follow-ups for 2026.12." } },
      { tool: "progress_card", args: { plan: steps(next, 1), markdown: "Announced; opening the next milestone." }, delayMs: think(3000) },
      { text: "Milestone next time.", delayMs: think(1500) },
    ],
    "C turn 2",
  );
  return key;
}

// E: a long plan, one step every few seconds in one run: after two steps the card shows an
// estimate of the time left ("under a minute left"), and the running step grows on the timeline.
async function storyE(): Promise<string> {
  const key = await session("Migrate the database");
  const names = [
    "Snapshot the database",
    "Write the migration",
    "Dry-run on a copy",
    "Apply to production",
    "Verify row counts",
    "Drop the old columns",
  ];
  say("E · Migrate the database: a long plan (watch the estimate and the dashboard timeline)");
  // Say it once, when the card first carries an estimate (after two timed steps).
  const off = testHost().desk.subscribe((c) => {
    if (c.type !== "card" || c.entry.sessionKey !== key || !c.entry.timing?.estimate) return;
    off();
    say(`E · Migrate the database: ${timingMarks(c.entry, Date.now()).join(" · ")}`);
  });
  await turn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 0), markdown: "Taking a snapshot first." } },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: "Snapshot taken; writing the migration." }, delayMs: think(4000) },
      { tool: "progress_card", args: { plan: steps(names, 2), markdown: "Migration written; dry run on a copy." }, delayMs: think(6000) },
      { tool: "progress_card", args: { plan: steps(names, 3), markdown: "Dry run clean; applying to production." }, delayMs: think(5000) },
      { tool: "progress_card", args: { plan: steps(names, 4), markdown: "Applied; verifying row counts." }, delayMs: think(20_000) },
      { tool: "progress_card", args: { plan: steps(names, 5), markdown: "Counts match; dropping the old columns." }, delayMs: think(6000) },
      { tool: "progress_card", args: { plan: steps(names, 6), markdown: "Migration done." }, delayMs: think(5000) },
      { text: "Migration complete.", delayMs: think(1000) },
    ],
    "E turn",
  ).finally(off);
  say("E · Migrate the database: complete (the dashboard lists it under Finished in the last day)");
  return key;
}

// D: a note-only card, then a refresh the scripted model answers with a newer card.
async function storyD(): Promise<string> {
  const key = await session("Wait for CI");
  say("D · Wait for CI: note-only card");
  await turn(
    key,
    [
      { tool: "progress_card", args: { markdown: "Waiting for CI on **#812** (`linux`, `macos`)." } },
      { text: "I'll check back when CI finishes.", delayMs: think(1000) },
    ],
    "D turn",
  );
  await pause(5000);
  const before = (await client().get(key)).card?.revision ?? 0;
  say("D · Wait for CI: refreshing (progressCard.refresh)");
  const since = client().events.length;
  await client().request("progressCard.refresh", { sessionKey: key, idempotencyKey: randomUUID() });
  await client().waitForEvent(
    (e) => e.event === "progressCard.changed" && p(e).sessionKey === key && Number(p(e).revision) > before,
    60_000,
    since,
  );
  say("D · Wait for CI: the refresh brought a newer card");
  return key;
}

// F: the agent needs to run a command and waits for the person's approval: the tray and the
// popover say "Needs you" with the exact command; "Allow once" in the popover lets the run go on
// and finish. With --once nobody is there to click, so the demo answers through the same core
// verb the popover calls, after showing the entry for a moment.
async function storyF(): Promise<string> {
  const key = await session("Check the build host");
  const names = ["Check the build host", "Report the platform"];
  const command = "uname -s";
  say(`F · Check the build host: the agent wants to run \`${command}\` and waits for your approval`);
  const desk = testHost().desk;
  const [gatewayId = ""] = desk.gatewayIds();
  const answered = new Promise<void>((resolve) => {
    const reminder = setInterval(() => say(`F · still waiting: press “Allow once” in the popover (${testHost().host.url})`), 60_000);
    const off = desk.subscribe((c) => {
      if (c.type !== "needs" || c.event === null) return;
      const { entry } = c.event;
      if (entry.sessionKey !== key || entry.kind !== "exec") return;
      if (c.event.kind === "arrived") {
        say(`F · Needs you: "${entry.command ?? ""}" — open the popover and press Allow once (⌘↩)`);
        if (once) {
          setTimeout(() => {
            say("F · (--once) answering Allow once through the popover's verb");
            desk.answerNeed({ gatewayId, id: entry.id }, { kind: "exec", decision: "allow-once" }).catch((err: unknown) => {
              say(`F · answering failed: ${(err as Error).message}`);
            });
          }, think(3000));
        }
      }
      if (c.event.kind === "resolved") {
        say(`F · ${c.event.record.text}`);
        clearInterval(reminder);
        off();
        resolve();
      }
    });
  });
  await client().runTurn(
    key,
    [
      { tool: "progress_card", args: { plan: steps(names, 0), markdown: `Checking the platform with \`${command}\`.` } },
      { tool: "exec", args: { command }, delayMs: think(1500) },
      { tool: "progress_card", args: { plan: steps(names, 1), markdown: "Got the platform; reporting." }, delayMs: think(1500) },
      { tool: "progress_card", args: { plan: steps(names, 2), markdown: "The build host runs **Linux**." }, delayMs: think(1500) },
      { text: "The build host runs Linux.", delayMs: think(1000) },
    ],
    // Long enough for a person to notice and answer; the Gateway itself gives up after 30 min.
    { timeoutMs: once ? TURN_TIMEOUT_MS : 31 * 60_000 },
  );
  await answered;
  say("F · Check the build host: complete");
  return key;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, "dist", "renderer")))
    throw new Error("the pages are not built: run `npm run build` first (npm run demo does)");
  say("Starting a local OpenClaw Gateway with a scripted model (the first run installs openclaw, about a minute)…");
  model = await startScriptedModel();
  // Exec approvals on: the agent's commands wait for the person (story F).
  gw = await startGateway({ model, tools: { exec: { host: "gateway", mode: "ask" } } });
  say(`Gateway ready at ${gw.url}`);
  say("Starting the Progress Desk browser host (answering approvals and questions on)…");
  th = await startTestHost(gw, { answerApprovals: true });
  // The person's own client is the desk's device: the Gateway shows an approval only to the
  // device that started the run, and registers one only when that client holds the approvals
  // scope (docs/gateway.md §10.3).
  user = await connectBareClient(gw, {
    identity: th.vault.deviceIdentity(),
    scopes: ["operator.read", "operator.write", "operator.approvals", "operator.questions"],
  });
  process.stdout.write(`${th.host.url}\n`);
  // Through a forwarding file in the demo's own data folder: the address (with its secret) is never an argument.
  const opened = await openInBrowser(th.host.url, { dataDir: th.home }).catch((err: unknown) => ({
    opened: false as const,
    reason: (err as Error).message,
  }));
  if (opened.opened) say("Opened the page above in your default browser: watch the cards appear.");
  else say(`Did not open a browser (${opened.reason}): paste the address above into a browser's address bar on this machine.`);
  say("Warming up the agent runtime (the first turn is slow)…");
  const warm = await user.createSession();
  await turn(warm, [{ text: "warmed up" }], "warm-up");
  say("Warm-up done. The story starts now.");

  say(`The dashboard (pinned cards, timelines): ${th.host.pageUrl("dashboard")}`);
  const a = storyA(); // runs alongside the others
  a.catch(() => {});
  const e = storyE(); // and so does the long migration
  e.catch(() => {});
  await pause(4000);
  const b = await storyB();
  await pause(4000);
  const c = await storyC();
  await pause(3000);
  const d = await storyD();
  await pause(3000);
  const f = await storyF();
  const keys: [string, string][] = [
    ["Review open PRs", await a],
    ["Repair session owner", b],
    ["Release 2026.12", c],
    ["Wait for CI", d],
    ["Migrate the database", await e],
    ["Check the build host", f],
  ];

  // What the host's page shows: the desk behind it (give it a moment to read the last changes).
  await new Promise((r) => setTimeout(r, 1500));
  const [gatewayId] = th.desk.gatewayIds();
  if (gatewayId === undefined) throw new Error("the test host has no Gateway");
  say(`Story done in ${((Date.now() - t0) / 1000).toFixed(0)} s. Cards now:`);
  for (const [label, key] of keys) {
    const { card } = await user.get(key);
    const entry = th.desk.entry(gatewayId, key);
    const steps = card?.steps ?? [];
    const done = steps.filter((s) => s.status === "completed").length;
    const text = (card?.markdown ?? "")
      .replace(/<[^>]*>/g, "")
      .replace(/\s+/g, " ")
      .trim();
    const marks = entry ? timingMarks(entry, Date.now()).join(" · ") : "";
    say(
      `  ${label.padEnd(21)} rev ${card?.revision ?? "-"} · ${entry?.derived?.state ?? "no card"} · ${done}/${steps.length} steps${marks ? ` · ${marks}` : ""} · ${text.slice(0, 60)}`,
    );
  }
  if (once) {
    await cleanup();
    say("Done (--once).");
    process.exit(0);
  }
  say(`Still running: the page is at ${th.host.url} — press Ctrl-C to stop.`);
}

main().catch(async (err: unknown) => {
  say(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await cleanup();
  process.exit(1);
});
