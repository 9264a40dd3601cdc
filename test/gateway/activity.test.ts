// Activity lines and no-progress flags from a real Gateway's broadcast `agent` events
// (scripted model). The observer is a bystander without `tool-events`, as Progress Desk is:
// the `item` stream reaches every operator client (docs/agent-events.md).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ActivityTracker } from "../../main/core/activity/tracker.ts";
import type { ActivityOptions } from "../../main/core/activity/options.ts";
import { connectBareClient, p, type BareClient } from "../harness/bare-client.ts";
import type { TestGateway } from "../harness/gateway.ts";
import { GatewayRig } from "../harness/gateway-rig.ts";
import { warmUpAgent } from "../harness/warm-up.ts";
import { startScriptedModel } from "../harness/scripted-model.ts";
import { until } from "../harness/until.ts";
import type { SessionActivity } from "../../common/model.ts";

const GW = "test-gateway";
const rig = new GatewayRig(() => startScriptedModel());
let gw: TestGateway;
let user: BareClient; // starts the turns
let observer: BareClient; // only watches
let pump: NodeJS.Timeout | undefined;
const trackers = new Set<ActivityTracker>();
let cursor = 0;

function feed(): void {
  while (cursor < observer.events.length) {
    const e = observer.events[cursor++]!;
    for (const t of trackers) {
      if (e.event === "agent") t.handleAgentEvent(GW, e.payload);
      else if (e.event === "progressCard.changed") t.noteCardChange(GW, p(e).sessionKey);
    }
  }
}

/** A tracker on the real clock, fed every observed event from now on; its emits for `key` are recorded. */
function track(key: () => string | null, opts: Partial<ActivityOptions> = {}) {
  const tracker = new ActivityTracker({
    now: Date.now,
    schedule: (fn, ms) => {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    },
    ...opts,
  });
  const emits: SessionActivity[] = [];
  tracker.subscribe((a) => void (a.sessionKey === key() && emits.push(a)));
  trackers.add(tracker);
  return { tracker, emits, stop: () => (trackers.delete(tracker), tracker.dispose()) };
}

before(
  async () => {
    ({ gw, client: user } = await rig.start());
    observer = await connectBareClient(gw);
    pump = setInterval(feed, 10);
    await warmUpAgent(user, gw);
  },
  { timeout: 300_000 },
);

after(async () => {
  if (pump) clearInterval(pump);
  for (const t of trackers) t.dispose();
  await observer?.close();
  await rig.stop();
});

describe("activity from real agent runs", () => {
  test(
    "read → exec ×3 → progress_card: lines in order, the repeats folded, no card-write line; per mode and command text",
    { timeout: 60_000 },
    async () => {
      let key: string | null = null;
      const all = track(() => key);
      const fresh = track(() => key, { mode: "new" });
      const status = track(() => key, { commandText: "status" });
      try {
        key = await user.createSession();
        const turn = await user.runTurn(key, [
          { tool: "read", args: { path: "AGENTS.md" } },
          { tool: "exec", args: { command: "echo hi" } },
          { tool: "exec", args: { command: "echo hi" } },
          { tool: "exec", args: { command: "echo hi" } },
          { tool: "progress_card", args: { plan: [{ step: "Check", status: "in_progress" }], markdown: "Checking" } },
          { text: "done" },
        ]);
        assert.equal(turn.phase, "end");
        const k = key;
        const last = await until("the run's end", () => {
          const a = all.tracker.get(GW, k);
          return a && !a.live && all.emits.at(-1)?.live === false ? a : null;
        });
        // The Gateway did report the card write as a tool item, by this name: the strip left it out.
        const cardItem = observer.events.find((e) => e.event === "agent" && p(e).sessionKey === k && p(e).data?.name === "progress_card");
        assert.ok(cardItem, "the progress_card item event was observed");
        assert.deepEqual(
          last.lines.map((l) => [l.glyph, l.label, l.tool, l.status, l.count ?? 1]),
          [
            ["read", "Read · AGENTS.md", "read", "done", 1],
            ["shell", "Shell · print text", "exec", "done", 3],
          ],
        );
        assert.equal(last.current, null);
        assert.equal(last.runId, null);
        assert.equal(last.stall, null);
        assert.deepEqual(
          fresh.tracker.get(GW, k)?.lines.map((l) => l.label),
          ["Read · AGENTS.md", "Shell · print text"],
        );
        assert.deepEqual(
          status.tracker.get(GW, k)?.lines.map((l) => [l.label, l.count ?? 1]),
          [
            ["Read · AGENTS.md", 1],
            ["Shell", 3],
          ],
        );
        assert.ok(
          all.emits.every((a) => a.current?.tool !== "progress_card" && a.lines.every((l) => l.tool !== "progress_card")),
          "no emit ever showed the card write",
        );
        // While the run lived, the emits showed it live with a current line, and lines only grew.
        const liveEmit = all.emits.find((a) => a.live && a.current !== null);
        assert.ok(liveEmit, "an emit while the run was live");
        assert.equal(liveEmit.runId, turn.runId);
        const labels = last.lines.map((l) => l.label);
        for (const a of all.emits)
          assert.deepEqual(
            a.lines.map((l) => l.label),
            labels.slice(0, a.lines.length),
          );
        assert.ok(all.emits.length <= 12, `${all.emits.length} emits for one short turn`);
      } finally {
        all.stop();
        fresh.stop();
        status.stop();
      }
    },
  );

  test("five identical exec calls raise the polling flag; the agent's progress_card write clears it", { timeout: 120_000 }, async () => {
    let key: string | null = null;
    const t = track(() => key, { stall: { pollingRepeats: 5 } });
    try {
      key = await user.createSession();
      const k = key;
      const poll = { tool: "exec", args: { command: "echo poll" } };
      const turn = user.runTurn(k, [
        poll,
        poll,
        poll,
        poll,
        poll,
        // The model takes a moment before writing the card, so the flag is shown for a while.
        { tool: "progress_card", args: { plan: [{ step: "Wait for CI", status: "in_progress" }] }, delayMs: 1500 },
        { text: "done" },
      ]);
      // Five model turns: generous on a loaded machine.
      const flagged = await until("the polling flag", () => t.emits.find((a) => a.stall?.kind === "polling"), 60_000);
      assert.deepEqual(flagged.stall, {
        kind: "polling",
        count: 5,
        label: "Shell · print text",
        tool: "exec",
        since: flagged.stall?.kind === "polling" ? flagged.stall.since : 0,
        text: "Polling the same command 5×",
      });
      assert.equal(flagged.live, true);
      const changed = await user.waitForEvent((e) => e.event === "progressCard.changed" && p(e).sessionKey === k, 30_000);
      assert.equal(p(changed).revision, 1);
      const cleared = await until("the flag cleared while the run is live", () =>
        t.emits.slice(t.emits.indexOf(flagged)).find((a) => a.live && a.stall === null),
      );
      // The card write made no line: the five polls are still the newest line, folded.
      assert.deepEqual([cleared.current?.label, cleared.current?.count], ["Shell · print text", 5]);
      assert.equal((await turn).phase, "end");
    } finally {
      t.stop();
    }
  });

  test("a quiet live run is flagged silent by tick(); a card change by another client clears it", { timeout: 60_000 }, async () => {
    let key: string | null = null;
    // The tracker's clock runs ahead on demand: the quiet stretch is skipped, not waited out.
    let ahead = 0;
    const t = track(() => key, { stall: { pollingRepeats: 5, silentMs: 1500 }, now: () => Date.now() + ahead });
    try {
      key = await user.createSession();
      const k = key;
      const turn = user.runTurn(k, [
        { tool: "exec", args: { command: "echo once" } },
        { text: "done", delayMs: 5000 },
      ]);
      await until("the exec line", () => t.tracker.get(GW, k)?.lines.at(-1)?.status === "done");
      // The model is "thinking" for 5 s, so the run stays live; 2 s pass for the tracker.
      t.tracker.tick();
      assert.equal(t.tracker.get(GW, k)!.stall, null, "not silent before silentMs");
      ahead = 2000;
      t.tracker.tick();
      const silent = t.tracker.get(GW, k)!;
      assert.equal(silent.live, true);
      assert.equal(silent.stall?.kind, "silent");
      assert.match(silent.stall?.text ?? "", /^No new activity for [12] s$/);
      await user.put(k, { markdown: "Still waiting for the model" });
      await until("the card change", () => t.tracker.get(GW, k)?.stall === null);
      assert.equal(t.tracker.get(GW, k)?.live, true, "an observation only: the run is still live");
      assert.equal((await turn).phase, "end");
    } finally {
      t.stop();
    }
  });
});
