// `node bench/activity.ts` (part of `npm run bench`): live activity lines, from the Gateway's
// broadcast `agent` `item` start event to the line drawn in the popover page, beside the bare
// event arrival time in the same run.
//   The agent side (the scripted model and a real Gateway using it) runs in a child process of
//   its own (this file again, PD_ACTIVITY_ROLE=agent; bench/gateway-host.ts says why), which
//   hands back the model's request log (receivedAt) at the end.
//   This process holds what is measured: a bystander bare client (no `tool-events`), the desk
//   core + browser host (startTestHost) and Chromium on the popover page, a card on the session
//   so its activity strip shows under it, then scripted runs of `exec` calls: the measured one
//   (calls about 4 a second) and a paced one (calls further apart than the core's window).
// Writes only the section between the activity-bench markers in docs/benchmarks.md. Reports
// figures; asserts nothing. Bounded (hard stop at 5 minutes); cleans up Gateway, model, browser.
import { spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, Page } from "playwright-core";
import { ACTIVITY_DEFAULTS } from "../main/core/activity/options.ts";
import type { DeskChange } from "../common/model.ts";
import { chromiumAvailable, launchChromium } from "../test/browser/chromium.ts";
import { openPage, removeHome, startTestHost, type TestHost } from "../test/e2e/support.ts";
import { connectBareClient, p, type BareClient, type EventFrame } from "../test/harness/bare-client.ts";
import { startGateway, type TestGateway } from "../test/harness/gateway.ts";
import { startScriptedModel, type ScriptedModel, type ScriptStep } from "../test/harness/scripted-model.ts";
import { withTimeout } from "./gateway-process.ts";
import { ms, summarize, type Summary } from "./stats.ts";
import { generatedLine, recordTargets, runBounded, size, writeDocSection } from "./harness.ts";

// Callbacks passed to page.evaluate run in the page; the Node-side program has no DOM types.
declare const document: any;
declare const window: any;
declare const MutationObserver: any;

const ROOT = path.join(import.meta.dirname, "..");
const DOC = path.join(ROOT, "docs", "benchmarks.md");
const START = "<!-- activity-bench:start -->";
const END = "<!-- activity-bench:end -->";
const ROLE_ENV = "PD_ACTIVITY_ROLE";

const CALLS = size(40, 20); // measured tool calls, one run
const WARMUP_CALLS = 5; // one untimed run first (page, host and core paths warm)
const STEP_DELAY_MS = 150; // the model's delay before each reply: calls arrive about 4 a second
// A second, shorter run with calls further apart than the core's coalescing window: what the
// pipeline itself costs when the window is not in the way (reported beside, no target).
const PACED = { calls: size(20, 10), stepDelayMs: 450 };
const HOLD_MS = 1500; // the final reply's delay, so the last line is drawn before the run ends
const TURN_TIMEOUT_MS = 120_000;
const HARD_LIMIT_MS = 5 * 60_000;
const COALESCE_MS = ACTIVITY_DEFAULTS.minIntervalMs; // the desk's default, one emit per session per window
/** Per call, visible in the page at most this long after the bare bystander received the event (p95 over the calls). */
const TARGET_SLACK_P95_MS = 50;
const SLACK_MS = 50;

const verdict = (ok: boolean) => (ok ? "**PASS**" : "**MISS**");
/** Wall clock with sub-millisecond resolution (performance.now on the Unix epoch). */
const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Harmless commands, each summarised differently by the Gateway so every call has its own
 * label (`echo …` would all be `print text`): `create folder act/m7`, `seq 1 8`, `expr 9 + 1`,
 * `create file act/m11.txt`. They run in the Gateway's temporary workspace.
 */
function command(prefix: "w" | "m" | "p", k: number): string {
  const n = k + { w: 100, m: 0, p: 200 }[prefix]; // every label of every run differs
  switch (k % 4) {
    case 0:
      return `mkdir -p act/${prefix}${k}`;
    case 1:
      return `seq 1 ${n}`;
    case 2:
      return `expr ${n} + 1`;
    default:
      return `touch act/${prefix}${k}.txt`;
  }
}

function script(prefix: "w" | "m" | "p", n: number, delayMs: number): ScriptStep[] {
  const steps: ScriptStep[] = [{ tool: "exec", args: { command: `mkdir -p act/${prefix}` }, delayMs }];
  for (let k = 1; k < n; k++) steps.push({ tool: "exec", args: { command: command(prefix, k) }, delayMs });
  steps.push({ text: "done", delayMs: HOLD_MS });
  return steps;
}

// ——— the agent side: scripted model + Gateway, in a child process ———

type ModelRequest = { seq: number; receivedAt: number; kind: string; delayMs: number; toolCallId: string | null };
type AgentReady = { type: "ready"; url: string; port: number; token: string; pid: number };
type AgentMessage = AgentReady | { type: "error"; message: string } | { type: "requests"; list: ModelRequest[] };

async function agentSide(): Promise<void> {
  let model: ScriptedModel | null = null;
  let gw: TestGateway | null = null;
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    try {
      await gw?.dispose();
      await model?.stop();
    } finally {
      process.exit(code);
    }
  };
  process.on("message", (m: { type?: string }) => {
    if (m?.type === "dispose") void shutdown(0);
    if (m?.type === "requests" && model) {
      const list: ModelRequest[] = model.requests().map((r) => ({
        seq: r.seq,
        receivedAt: r.receivedAt,
        kind: r.kind,
        delayMs: r.reply?.delayMs ?? 0,
        toolCallId: r.reply?.toolCall?.id ?? null,
      }));
      process.send?.({ type: "requests", list } satisfies AgentMessage);
    }
  });
  process.on("disconnect", () => void shutdown(0));
  try {
    model = await startScriptedModel();
    gw = await startGateway({ model });
    if (closing) return;
    process.send?.({ type: "ready", url: gw.url, port: gw.port, token: gw.token, pid: gw.pid } satisfies AgentMessage);
  } catch (err) {
    process.send?.({ type: "error", message: err instanceof Error ? err.message : String(err) } satisfies AgentMessage);
    await shutdown(1);
  }
}

type AgentHandle = { url: string; token: string; requests(): Promise<ModelRequest[]>; dispose(): Promise<void> };

/** The child above, started like bench/gateway-process.ts starts bench/gateway-host.ts. */
async function startAgentSide(): Promise<AgentHandle> {
  const child = spawn(process.execPath, [import.meta.filename], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [ROLE_ENV]: "agent", PD_BENCH_REEXEC: "1" },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await withTimeout(
    new Promise<AgentReady>((resolve, reject) => {
      child.on("message", (m: AgentMessage) => {
        if (m.type === "ready") resolve(m);
        else if (m.type === "error") reject(new Error(`Gateway did not start: ${m.message}`));
      });
      void exited.then(() => reject(new Error("the agent side exited before the Gateway was ready")));
    }),
    120_000,
    "scripted model + Gateway start",
  ).catch(async (err: unknown) => {
    child.kill("SIGTERM");
    await exited;
    throw err;
  });
  return {
    url: ready.url,
    token: ready.token,
    requests: () =>
      withTimeout(
        new Promise<ModelRequest[]>((resolve) => {
          const on = (m: AgentMessage) => {
            if (m.type !== "requests") return;
            child.off("message", on);
            resolve(m.list);
          };
          child.on("message", on);
          child.send({ type: "requests" });
        }),
        10_000,
        "the model's request log",
      ),
    async dispose() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: "dispose" });
      await withTimeout(exited, 25_000, "agent side dispose").catch(async () => {
        child.kill("SIGTERM");
        await exited;
      });
    },
  };
}

// ——— observation ———

type Arrival = { runId: string; sessionKey: string; toolCallId: string; meta: string; gwTs: number; t: number; wall: number };
type Shown = { label: string; t: number; pageWall: number };
type Emitted = { label: string; t: number };

/**
 * Records when the bystander receives each `item` start: a waiter whose predicate runs on every
 * event as it arrives (bare-client.ts checks waiters synchronously in onEvent) and never matches.
 */
function tapItemStarts(c: BareClient, into: Arrival[]): void {
  const pred = (e: EventFrame) => {
    if (e.event !== "agent") return false;
    const t = performance.now();
    const wall = wallNow();
    const pl = p(e);
    if (pl.stream !== "item" || pl.data?.phase !== "start") return false;
    into.push({
      runId: String(pl.runId),
      sessionKey: String(pl.sessionKey),
      toolCallId: String(pl.data.toolCallId ?? pl.data.itemId ?? ""),
      meta: String(pl.data.meta ?? ""),
      gwTs: Number(pl.ts),
      t,
      wall,
    });
    return false;
  };
  c.waitForEvent(pred, HARD_LIMIT_MS, c.events.length).catch(() => {});
}

/** Every change of the session's current activity label in the page, timed on both sides. */
async function watchCurrentLine(page: Page, key: string, into: Shown[]): Promise<void> {
  await page.exposeFunction("__pdLine", (label: string, pageWall: number) => {
    into.push({ label, t: performance.now(), pageWall });
  });
  await page.evaluate((k: string) => {
    const sel = `article.card[data-key*="${k}"] .activity .line.current .label`;
    let last: string | null = null;
    const check = () => {
      const label: string | null = document.querySelector(sel)?.textContent ?? null;
      if (label === last) return;
      last = label;
      if (label !== null) void window.__pdLine(label, performance.timeOrigin + performance.now());
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    check();
  }, key);
}

const labelOf = (meta: string) => `Shell · ${meta}`;

type Result = {
  name: string;
  n: number;
  shown: number;
  missing: string[];
  unmatched: string[];
  spacing: Summary;
  modelToGateway: Summary;
  modelToBare: Summary;
  bareToDesk: Summary;
  bareToPage: Summary;
  bareToPageOwnClock: Summary;
  modelToPage: Summary;
  waitedForWindow: number;
};

function analyse(name: string, runId: string, arrivals: Arrival[], shown: Shown[], emitted: Emitted[], requests: ModelRequest[]): Result {
  const calls = arrivals.filter((a) => a.runId === runId).sort((a, b) => a.t - b.t);
  const byCall = new Map(requests.filter((r) => r.toolCallId).map((r) => [r.toolCallId!, r]));
  const spacing: number[] = [];
  const modelToGateway: number[] = [];
  const modelToBare: number[] = [];
  const bareToDesk: number[] = [];
  const bareToPage: number[] = [];
  const bareToPageOwn: number[] = [];
  const modelToPage: number[] = [];
  const missing: string[] = [];
  let waited = 0;
  for (const [i, a] of calls.entries()) {
    if (i > 0) spacing.push(a.t - calls[i - 1]!.t);
    const label = labelOf(a.meta);
    const req = byCall.get(a.toolCallId);
    const replyAt = req ? req.receivedAt + req.delayMs : null;
    if (replyAt !== null) {
      modelToGateway.push(a.gwTs - replyAt);
      modelToBare.push(a.wall - replyAt);
    }
    // Labels are unique within the run; the slack covers the desk's own connection receiving
    // the same frame a little before the bystander's (both sockets are read by this process).
    const d = emitted.find((e) => e.label === label && e.t >= a.t - SLACK_MS);
    if (d) {
      bareToDesk.push(d.t - a.t);
      if (d.t - a.t > 20) waited++;
    }
    const s = shown.find((x) => x.label === label && x.t >= a.t - SLACK_MS);
    if (!s) {
      // Counted, not dropped: a call never drawn is an infinite delay in every statistic it belongs to.
      missing.push(label);
      bareToPage.push(Number.POSITIVE_INFINITY);
      bareToPageOwn.push(Number.POSITIVE_INFINITY);
      modelToPage.push(Number.POSITIVE_INFINITY);
      continue;
    }
    bareToPage.push(s.t - a.t);
    bareToPageOwn.push(s.pageWall - a.wall);
    // No model reply to time it from: it cannot be shown to meet the target, so it counts as a failure too.
    modelToPage.push(replyAt !== null ? s.pageWall - replyAt : Number.POSITIVE_INFINITY);
  }
  const expected = new Set(calls.map((a) => labelOf(a.meta)));
  // Within this run: its next run starts well over HOLD_MS after its last call.
  const firstT = (calls[0]?.t ?? 0) - SLACK_MS;
  const lastT = (calls.at(-1)?.t ?? 0) + HOLD_MS / 2;
  const unmatched = [...new Set(shown.filter((x) => x.t >= firstT && x.t <= lastT && !expected.has(x.label)).map((x) => x.label))];
  return {
    name,
    n: calls.length,
    shown: bareToPage.filter(Number.isFinite).length,
    missing,
    unmatched,
    spacing: summarize(spacing),
    modelToGateway: summarize(modelToGateway),
    modelToBare: summarize(modelToBare),
    bareToDesk: summarize(bareToDesk),
    bareToPage: summarize(bareToPage),
    bareToPageOwnClock: summarize(bareToPageOwn),
    modelToPage: summarize(modelToPage),
    waitedForWindow: waited,
  };
}

// ——— report ———

function row(name: string, s: Summary): string {
  return `| ${name} | ${s.n} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} |`;
}

/** p95 as text: "never" when it falls on a call that was never drawn. */
const p95Text = (x: Summary) => (Number.isFinite(x.p95) ? `${ms(x.p95)} ms` : "never (a call not drawn falls within the top 5 %)");

function section(r: Result, paced: Result, startedAt: Date, seconds: number): string {
  const added = r.bareToPage;
  const target = {
    target: `Live activity: event → line visible, p95 ≤ bare event arrival + ${TARGET_SLACK_P95_MS} ms (every call counted)`,
    measured: `${Number.isFinite(added.p95) ? "+" : ""}${p95Text(added)} (p50 +${ms(added.p50)} ms); ${r.shown}/${r.n} calls drawn`,
    ok: r.n > 0 && added.p95 <= TARGET_SLACK_P95_MS,
  };
  recordTargets("activity", [target]);
  const rows = [
    `| ${target.target} | ${target.measured} | ≤ +${TARGET_SLACK_P95_MS} ms | ${verdict(target.ok)} |`,
    `| Model reply → visible, p95, beside model reply → bare arrival, p95 | ${p95Text(r.modelToPage)} vs ${ms(r.modelToBare.p95)} ms | — | — |`,
    `| Bare event arrival, p95 (model reply → \`item\` start at the bystander) | ${ms(r.modelToBare.p95)} ms (p50 ${ms(r.modelToBare.p50)}) | — | — |`,
    `| Same event → visible, calls ${ms(paced.spacing.p50, 0)} ms apart (paced run, ${paced.n} calls), p95 | ${ms(paced.bareToPage.p95)} ms (p50 ${ms(paced.bareToPage.p50)}) | — | — |`,
    `| Model reply → visible / model reply → bare arrival, p95 ratio | ${ms(r.modelToPage.p95 / r.modelToBare.p95)} (p50 ratio ${ms(r.modelToPage.p50 / r.modelToBare.p50)}) | — | — |`,
    `| Calls whose label became the current line | ${r.shown}/${r.n} | — | — |`,
  ];
  const notes = [r, paced].flatMap((x) => [
    ...(x.missing.length
      ? [
          `- ${x.name}: never the current line (coalesced away: the next call arrived before the core's window let this one out): ${x.missing.map((l) => `\`${l}\``).join(", ")}.`,
        ]
      : []),
    ...(x.unmatched.length
      ? [
          `- ${x.name}: current-line labels the page showed that match no call of the run: ${x.unmatched.map((l) => `\`${l}\``).join(", ")}.`,
        ]
      : []),
  ]);
  return [
    START,
    "## Live activity",
    "",
    generatedLine(
      "bench/activity.ts",
      startedAt,
      seconds,
      "one real isolated OpenClaw Gateway on loopback driven by the scripted model, headless Chromium through playwright-core on the popover page",
    ),
    "",
    "| Measure | Measured | Target | Result |",
    "|---|---:|---:|:---:|",
    ...rows,
    "",
    "| ms, per tool call | n | p50 | p95 | p99 | max |",
    "|---|---:|---:|---:|---:|---:|",
    row("Model reply → Gateway emits `item` start (its `ts`)", r.modelToGateway),
    row("**Bare event arrival**: model reply → `item` start at the bystander", r.modelToBare),
    row("Bare arrival → the desk core emits the activity change", r.bareToDesk),
    row("**Event → visible**: bare arrival → label in the page (Node clock, CDP hop back included)", r.bareToPage),
    row("Same, on the page's own clock (no CDP hop)", r.bareToPageOwnClock),
    row("Model reply → label in the page", r.modelToPage),
    row("Spacing between successive calls at the bystander", r.spacing),
    row(`Paced run (model waits ${PACED.stepDelayMs} ms per step): bare event arrival`, paced.modelToBare),
    row("Paced run: bare arrival → the desk core emits", paced.bareToDesk),
    row("Paced run: **event → visible** (Node clock)", paced.bareToPage),
    row("Paced run: spacing between successive calls", paced.spacing),
    "",
    ...notes,
    ...(notes.length ? [""] : []),
    `Method. A child process runs the scripted model (\`test/harness/scripted-model.ts\`) and a real Gateway using it (\`startGateway({model})\`); this process holds a bare client that starts the turns, a bystander bare client (no \`tool-events\`, as the desk), the desk core + browser host (\`startTestHost\`) and Chromium on the popover page. After a warm-up turn, the session gets a card (so its activity strip shows under it) and one untimed run of ${WARMUP_CALLS} calls; then the measured run of ${CALLS} \`exec\` calls, each a different harmless command the Gateway summarises differently (\`mkdir -p act/m4\` → \`Shell · create folder act/m4\`, \`seq 1 5\`, \`expr 6 + 1\`, \`touch act/m7.txt\` → \`Shell · create file act/m7.txt\`), the model waiting ${STEP_DELAY_MS} ms before each reply, and ${HOLD_MS} ms before the final text so the last line is drawn while the run lives; then a paced run of ${PACED.calls} such calls with the model waiting ${PACED.stepDelayMs} ms. ` +
      `Per call: the origin is the moment the bystander receives the call's \`agent\` \`item\` start (a waiter predicate run synchronously on each frame); visible is the moment a MutationObserver in the page sees that call's label as the text of \`.activity .line.current .label\` in the card and calls a function exposed with \`page.exposeFunction\`, timed on the Node side as in the renderer section (the page's own \`performance.timeOrigin + now()\` is reported beside it). The DOM change is measured, not the paint. ` +
      `The bare arrival is timed from the model's reply (its request log's \`receivedAt\` + the step's delay, in the child process; same machine clock, millisecond resolution), so it holds the Gateway's own work: parsing the reply, starting the tool, broadcasting the event. ` +
      `Target: per call, the label is the current line in the page at most ${TARGET_SLACK_P95_MS} ms after the bare bystander received the call's event, at p95 over the calls. ` +
      "Every call of the measured run is in the statistic: a call whose label never became the current line counts as an infinite delay (listed above), so one such call in the top 5 % fails the target. " +
      `The core coalesces each session's changes with a leading edge: a change after ${ACTIVITY_DEFAULTS.burstGapMs} ms without changes (a new call after the previous call's \`end\`) is emitted at once; later changes of the same burst at most once per ${COALESCE_MS} ms after the previous emit, the last state always delivered. ` +
      `${r.waitedForWindow} of ${r.bareToDesk.n} calls waited more than 20 ms at the core in the measured run (${paced.waitedForWindow} of ${paced.bareToDesk.n} in the paced one); the rest of the path is the host's WebSocket, the page's store and Svelte's update.`,
    END,
  ].join("\n");
}

function writeSection(text: string): void {
  writeDocSection(DOC, START, END, text);
}

// ——— main ———

async function main(): Promise<void> {
  const chromium = chromiumAvailable();
  if (!chromium.ok) {
    console.log(`bench/activity: skipped: ${chromium.reason}`);
    return;
  }
  const startedAt = new Date();
  const t0 = performance.now();
  let agent: AgentHandle | null = null;
  let browser: Browser | null = null;
  let th: TestHost | null = null;
  const bare: BareClient[] = [];
  try {
    console.log("bench/activity: starting the scripted model, a Gateway and Chromium…");
    const agentP = startAgentSide();
    const browserP = launchChromium();
    agentP.catch(() => {});
    browserP.catch(() => {});
    agent = await agentP;
    browser = await browserP;
    const user = await connectBareClient(agent);
    bare.push(user);
    const bystander = await connectBareClient(agent);
    bare.push(bystander);
    const arrivals: Arrival[] = [];
    tapItemStarts(bystander, arrivals);

    console.log("bench/activity: warm-up turn (the first turn after start is slow)…");
    const warm = await user.createSession();
    await user.runTurn(warm, [{ text: "warmed up" }], { timeoutMs: 150_000 });

    th = await startTestHost(agent);
    const key = await user.createSession();
    await user.put(key, {
      markdown: "Benchmark: live activity under this card",
      plan: [
        { step: "Warm up", status: "completed" },
        { step: "Run the measured calls", status: "in_progress" },
      ],
    });
    const emitted: Emitted[] = [];
    th.desk.subscribe((c: DeskChange) => {
      if (c.type !== "activity" || c.activity.sessionKey !== key || !c.activity.current) return;
      const label = c.activity.current.label;
      if (emitted.at(-1)?.label !== label) emitted.push({ label, t: performance.now() });
    });
    const { page } = await openPage(browser, th.host.url, { reducedMotion: true });
    await page.locator(`article.card[data-key*="${key}"]`).waitFor({ timeout: 20_000 });
    const shown: Shown[] = [];
    await watchCurrentLine(page, key, shown);

    console.log(`bench/activity: untimed run of ${WARMUP_CALLS} calls…`);
    const strip = page.locator(`article.card[data-key*="${key}"] .activity`);
    const runOnce = async (prefix: "w" | "m" | "p", n: number, delayMs: number) => {
      const turn = await user.runTurn(key, script(prefix, n, delayMs), { timeoutMs: TURN_TIMEOUT_MS });
      if (turn.phase !== "end") throw new Error(`run ${prefix} ended with ${turn.phase}`);
      await strip.waitFor({ state: "detached", timeout: 10_000 }); // the strip goes with the run
      return turn.runId;
    };
    await runOnce("w", WARMUP_CALLS, STEP_DELAY_MS);

    console.log(`bench/activity: measured run of ${CALLS} calls (${STEP_DELAY_MS} ms model delay per step)…`);
    const measuredRun = await runOnce("m", CALLS, STEP_DELAY_MS);
    console.log(`bench/activity: paced run of ${PACED.calls} calls (${PACED.stepDelayMs} ms model delay per step)…`);
    const pacedRun = await runOnce("p", PACED.calls, PACED.stepDelayMs);
    const requests = await agent.requests();

    const r = analyse("Measured run", measuredRun, arrivals, shown, emitted, requests);
    const paced = analyse("Paced run", pacedRun, arrivals, shown, emitted, requests);
    for (const [x, want] of [
      [r, CALLS],
      [paced, PACED.calls],
    ] as const) {
      if (x.n !== want) console.log(`  note: ${x.name}: ${x.n} item starts seen for ${want} calls`);
      console.log(`  ${x.name}: bare arrival (model reply → bystander) p50 ${ms(x.modelToBare.p50)} p95 ${ms(x.modelToBare.p95)} ms`);
      console.log(
        `  ${x.name}: event → visible (bystander → page) p50 ${ms(x.bareToPage.p50)} p95 ${ms(x.bareToPage.p95)} ms; shown ${x.shown}/${x.n}`,
      );
      console.log(
        `  ${x.name}: bystander → desk emit p50 ${ms(x.bareToDesk.p50)} p95 ${ms(x.bareToDesk.p95)} ms; call spacing p50 ${ms(x.spacing.p50)} ms`,
      );
      if (x.unmatched.length) console.log(`  ${x.name}: labels matching no call: ${x.unmatched.join(" | ")}`);
    }

    const seconds = (performance.now() - t0) / 1000;
    writeSection(section(r, paced, startedAt, seconds));
    console.log(`bench/activity: wrote the live-activity section of docs/benchmarks.md (${seconds.toFixed(0)} s)`);
  } finally {
    await browser?.close().catch(() => {});
    await th?.stop().catch(() => {});
    if (th) removeHome(th.home);
    for (const c of bare) await c.close().catch(() => {});
    await agent?.dispose().catch(() => {});
  }
}

if (process.env[ROLE_ENV] === "agent") {
  await agentSide();
} else {
  runBounded("bench/activity", main, HARD_LIMIT_MS, "the agent side stops when this process exits");
}
