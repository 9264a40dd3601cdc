// The activity tracker fed with `agent` event payloads in the shapes the Gateway sends
// (docs/agent-events.md): lines, display modes, command text, truncation, secrets, caps,
// run end, coalescing, and the no-progress flags.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ActivityTracker } from "../../main/core/activity/tracker.ts";
import type { ActivityOptions } from "../../main/core/activity/options.ts";
import type { SessionActivity } from "../../common/model.ts";

const GW = "127.0.0.1-18789";
const KEY = "agent:main:dashboard:3f0c";
const CHILD = "agent:main:subagent:dc42";
const T0 = 1_796_243_960_000;

/** A fake clock and scheduler: timers run in order as time advances. */
function fakeTime() {
  let t = T0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    now: () => t,
    schedule(fn: () => void, ms: number) {
      const timer = { at: t + ms, fn, live: true };
      timers.push(timer);
      return () => void (timer.live = false);
    },
    advance(ms: number) {
      const target = t + ms;
      for (;;) {
        const due = timers.filter((x) => x.live && x.at <= target).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        due.live = false;
        t = due.at;
        due.fn();
      }
      t = target;
    },
  };
}

function setup(opts: Partial<ActivityOptions> = {}) {
  const time = fakeTime();
  const tracker = new ActivityTracker({ now: time.now, schedule: time.schedule, ...opts });
  const emits: SessionActivity[] = [];
  tracker.subscribe((a) => emits.push(a));
  let seq = 0;
  const ev = (runId: string, stream: string, data: object, extra: object = {}) => ({
    runId,
    stream,
    data,
    sessionKey: KEY,
    agentId: "main",
    seq: ++seq,
    ts: time.now(),
    isHeartbeat: false,
    ...extra,
  });
  const feed = (p: object) => tracker.handleAgentEvent(GW, p);
  const start = (run: string, extra: object = {}) => {
    feed(ev(run, "run_status", { phase: "preparing_workspace" }, extra));
    feed(ev(run, "lifecycle", { phase: "start", startedAt: time.now() }, { sessionId: "s1", ...extra }));
    feed(ev(run, "lifecycle", { phase: "model", provider: "fake", model: "scripted-1" }, { sessionId: "s1", ...extra }));
  };
  const end = (run: string, extra: object = {}) => {
    feed(ev(run, "lifecycle", { phase: "finishing", stopReason: "stop", aborted: false }, extra));
    feed(
      ev(
        run,
        "lifecycle",
        { phase: "end", stopReason: "stop", aborted: false, terminalReply: { disposition: "visible", text: "done" } },
        extra,
      ),
    );
  };
  let call = 0;
  /** One tool call as the Gateway reports it: item start, (update), end. */
  const tool = (
    run: string,
    name: string,
    meta: string | undefined,
    o: { status?: string; keepOpen?: boolean; extra?: object; title?: string } = {},
  ) => {
    const id = `call_${++call}`;
    const base = {
      itemId: `tool:${id}`,
      toolCallId: id,
      name,
      kind: "tool",
      title: o.title ?? (meta ? `${name} ${meta}` : name),
      ...(meta !== undefined ? { meta } : {}),
      commandBearing: name === "exec",
      ...(name === "progress_card" ? { hideFromChannelProgress: true } : {}),
    };
    feed(ev(run, "item", { ...base, phase: "start", status: "running", startedAt: time.now() }, o.extra));
    if (!o.keepOpen) feed(ev(run, "item", { ...base, phase: "end", status: o.status ?? "completed", endedAt: time.now() }, o.extra));
    return id;
  };
  return { time, tracker, emits, ev, feed, start, end, tool };
}

const labels = (a: SessionActivity | null) => a?.lines.map((l) => l.label);

describe("activity lines", () => {
  test("each tool call becomes one line, in order, with its glyph and label", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from docs/guide.md");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "ls", ".");
    h.tool("r1", "web_search", 'for "electron tray"', { status: "failed" });
    h.tool("r1", "write", "to notes/out.txt (18 chars)");
    h.tool("r1", "edit", "in notes/out.txt (3 chars)");
    h.tool("r1", "sessions_spawn", "kid");
    h.tool("r1", "memory_get", "notes");
    h.tool("r1", "update_plan", undefined, { keepOpen: true, title: "Update plan" });
    const a = h.tracker.get(GW, KEY)!;
    assert.equal(a.live, true);
    assert.equal(a.runId, "r1");
    assert.deepEqual(
      a.lines.map((l) => [l.glyph, l.label, l.tool, l.status]),
      [
        ["shell", "Shell · npm test", "exec", "done"],
        ["list", "List · .", "ls", "done"],
        ["search", 'Web search · "electron tray"', "web_search", "failed"],
        ["write", "Write · notes/out.txt (18 chars)", "write", "done"],
        ["edit", "Edit · notes/out.txt (3 chars)", "edit", "done"],
        ["agent", "Sub-agent · kid", "sessions_spawn", "done"],
        ["tool", "Memory get · notes", "memory_get", "done"],
        ["plan", "Plan", "update_plan", "running"],
      ],
      "the last 8 of 9 lines (the first, Read, dropped)",
    );
    assert.deepEqual(a.current, { glyph: "plan", label: "Plan", tool: "update_plan", at: T0, status: "running" });
  });

  test("a read line is `Read · path`; update events and sign-of-life streams add nothing", () => {
    const h = setup();
    h.start("r1");
    const base = {
      itemId: "tool:call_7",
      toolCallId: "call_7",
      name: "exec",
      kind: "tool",
      title: "Exec print text",
      meta: "print text",
      commandBearing: true,
    };
    h.feed(h.ev("r1", "item", { ...base, phase: "start", status: "running" }));
    for (let i = 0; i < 5; i++) {
      h.feed(h.ev("r1", "item", { ...base, phase: "update", status: "running" }));
      h.feed(
        h.ev("r1", "command_output", { itemId: "command:call_7", phase: "delta", name: "exec", output: `line${i}`, status: "running" }),
      );
      h.feed(h.ev("r1", "usage", { outputTokens: 5 }));
      h.feed(h.ev("r1", "assistant", { text: "thinking", delta: "thinking" }));
    }
    h.feed(h.ev("r1", "plan", { phase: "update", title: "Plan updated", steps: [], explanation: "0/1 complete" }));
    h.tool("r1", "read", "lines 1-5 from AGENTS.md");
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["Shell · print text", "Read · lines 1-5 from AGENTS.md"]);
  });

  test("`new` mode skips a line whose tool repeats the previous one; `current` still shows the latest call", () => {
    const h = setup({ mode: "new" });
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "exec", "npm run lint");
    h.tool("r1", "read", "from b.md");
    h.tool("r1", "exec", "git status", { keepOpen: true });
    const a = h.tracker.get(GW, KEY)!;
    assert.deepEqual(labels(a), ["Read · a.md", "Shell · npm test", "Read · b.md", "Shell · git status"]);
    assert.equal(a.current?.label, "Shell · git status");
    h.tracker.setOptions({ mode: "all" });
    assert.deepEqual(
      h.tracker.get(GW, KEY)?.lines.map((l) => [l.label, l.count ?? 1]),
      [
        ["Read · a.md", 1],
        ["Shell · npm test", 2],
        ["Shell · npm run lint", 1],
        ["Read · b.md", 1],
        ["Shell · git status", 1],
      ],
    );
  });

  test("`off` shows no lines and no current line, but still whether a run is live", () => {
    const h = setup({ mode: "off" });
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    const a = h.tracker.get(GW, KEY)!;
    assert.equal(a.live, true);
    assert.deepEqual(a.lines, []);
    assert.equal(a.current, null);
  });

  test("command text `status` hides the command and keeps the `Shell` line", () => {
    const h = setup({ commandText: "status" });
    h.start("r1");
    h.tool("r1", "read", "from docs/guide.md");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "exec", "rm -rf build && make release", { keepOpen: true });
    const a = h.tracker.get(GW, KEY)!;
    // Two commands that read the same fold into one line, as the person sees them.
    assert.deepEqual(
      a.lines.map((l) => [l.label, l.count ?? 1]),
      [
        ["Read · docs/guide.md", 1],
        ["Shell", 2],
      ],
    );
    assert.equal(a.current?.label, "Shell");
    assert.doesNotMatch(JSON.stringify(a), /npm|make release/);
  });

  test("a setting change emits every session again under the new options", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "exec", "npm test");
    h.time.advance(1000);
    const before = h.emits.length;
    h.tracker.setOptions({ commandText: "status" });
    h.time.advance(1000);
    assert.equal(h.emits.length, before + 1);
    assert.deepEqual(labels(h.emits.at(-1)!), ["Shell"]);
  });

  test("labels are cut to 120 characters with the path's end visible", () => {
    const h = setup();
    h.start("r1");
    const path = `src/${"deeply/nested/".repeat(12)}components/ProgressCardRenderer.svelte`;
    h.tool("r1", "read", `from ${path}`);
    h.tool("r1", "exec", `echo ${"word ".repeat(60)}end`);
    const [read, shell] = h.tracker.get(GW, KEY)!.lines;
    assert.ok([...read!.label].length <= 120, read!.label);
    assert.match(read!.label, /^Read · src\/.*…/);
    assert.match(read!.label, /ProgressCardRenderer\.svelte$/);
    assert.ok([...shell!.label].length <= 120);
    assert.match(shell!.label, /^Shell · echo word word .*…$/);
  });

  test("labels never carry secrets, output or file contents", () => {
    const h = setup();
    h.start("r1");
    // The Gateway sends an unrecognised command itself as `meta`.
    h.tool("r1", "exec", "OPENAI_API_KEY=sk-proj-abc123def456ghi789 ./deploy.sh --token hunter2token");
    h.feed(
      h.ev("r1", "command_output", { itemId: "command:call_1", phase: "end", name: "exec", output: "PRIVATE-OUTPUT-LINE", exitCode: 0 }),
    );
    // Only the run's own client gets `tool` events; with no `item`, they make the line.
    h.feed(
      h.ev("r1", "tool", {
        phase: "start",
        name: "exec",
        toolCallId: "call_99",
        args: {
          command: "curl -H 'Authorization: Bearer eyJhbGciOi.eyJzdWIiOjEy.c2lnbmF0dXJl' https://api.example.com",
          token: "arg-token-value",
          password: "pw-value",
        },
      }),
    );
    h.feed(
      h.ev("r1", "tool", {
        phase: "result",
        name: "exec",
        toolCallId: "call_99",
        isError: false,
        result: { content: [{ type: "text", text: "PRIVATE-FILE-CONTENTS" }] },
      }),
    );
    h.feed(
      h.ev("r1", "tool", { phase: "start", name: "read", toolCallId: "call_98", args: { path: "docs/guide.md", apiKey: "key-value-123" } }),
    );
    h.feed(
      h.ev("r1", "tool", {
        phase: "update",
        name: "read",
        toolCallId: "call_98",
        partialResult: { content: [{ type: "text", text: "PRIVATE-FILE-CONTENTS" }] },
      }),
    );
    h.time.advance(1000);
    const a = h.tracker.get(GW, KEY)!;
    assert.deepEqual(labels(a), [
      "Shell · OPENAI_API_KEY=*** ./deploy.sh --token ***",
      "Shell · curl -H 'Authorization: Bearer ***' https://api.example.com",
      "Read · docs/guide.md",
    ]);
    assert.deepEqual(
      a.lines.map((l) => l.status),
      ["done", "done", "running"],
    );
    const everything = JSON.stringify([a, h.emits]);
    for (const secret of ["sk-proj", "hunter2", "arg-token-value", "pw-value", "key-value-123", "eyJhbGciOi", "PRIVATE-"]) {
      assert.ok(!everything.includes(secret), `${secret} leaked`);
    }
  });

  test("invisible characters and line breaks in a summary are removed", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from docs/\u200bgui\u202ede.md\nsecond line");
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["Read · docs/guide.md second line"]);
  });

  test("lines per session are capped (default 8, configurable), oldest dropped", () => {
    const h = setup();
    h.start("r1");
    for (let i = 1; i <= 20; i++) h.tool("r1", "read", `from f${i}.md`);
    assert.deepEqual(
      labels(h.tracker.get(GW, KEY)),
      Array.from({ length: 8 }, (_, i) => `Read · f${i + 13}.md`),
    );
    h.tracker.setOptions({ maxLines: 3 });
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["Read · f18.md", "Read · f19.md", "Read · f20.md"]);
    h.tracker.setOptions({ maxLines: 10_000 });
    for (let i = 21; i <= 400; i++) h.tool("r1", "read", `from f${i}.md`);
    assert.equal(h.tracker.get(GW, KEY)!.lines.length, 50, "hard limit");
  });

  test("the run's end clears live and current and keeps the lines until the next run or 5 min", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.tool("r1", "exec", "npm test", { keepOpen: true });
    h.end("r1");
    let a = h.tracker.get(GW, KEY)!;
    assert.equal(a.live, false);
    assert.equal(a.runId, null);
    assert.equal(a.current, null);
    assert.deepEqual(labels(a), ["Read · a.md", "Shell · npm test"]);
    assert.equal(a.lines[1]!.status, "done", "an open call ends with its run");
    // A straggler of the finished run changes nothing.
    h.tool("r1", "exec", "late");
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["Read · a.md", "Shell · npm test"]);
    // The next run starts with no lines.
    h.start("r2");
    a = h.tracker.get(GW, KEY)!;
    assert.equal(a.live, true);
    assert.deepEqual(a.lines, []);
    h.tool("r2", "ls", ".");
    h.end("r2");
    h.time.advance(5 * 60_000 - 1);
    h.tracker.tick();
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["List · ."]);
    h.time.advance(1);
    h.tracker.tick();
    assert.equal(h.tracker.get(GW, KEY), null);
    assert.deepEqual(h.emits.at(-1), {
      gatewayId: GW,
      sessionKey: KEY,
      live: false,
      runId: null,
      current: null,
      lines: [],
      stall: null,
      updatedAt: h.time.now(),
    });
    assert.equal(h.tracker.needsTick(), false);
  });

  test("a run is live from its first event (run_status comes before lifecycle start)", () => {
    const h = setup();
    h.feed(h.ev("r1", "run_status", { phase: "preparing_workspace" }));
    assert.equal(h.tracker.get(GW, KEY)?.live, true);
    assert.equal(h.tracker.get(GW, KEY)?.runId, "r1");
  });

  test("an end for a run never seen live creates nothing", () => {
    const h = setup();
    h.feed(h.ev("r0", "lifecycle", { phase: "end", stopReason: "stop" }));
    assert.equal(h.tracker.get(GW, KEY), null);
    assert.equal(h.tracker.list().length, 0);
  });

  test("two runs on one session: live until both end", () => {
    const h = setup();
    h.start("r1");
    h.start("announce:r2");
    h.end("r1");
    assert.equal(h.tracker.get(GW, KEY)?.live, true);
    assert.equal(h.tracker.get(GW, KEY)?.runId, "announce:r2");
    h.end("announce:r2");
    assert.equal(h.tracker.get(GW, KEY)?.live, false);
  });

  test("sessions are kept apart per Gateway", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.tracker.handleAgentEvent(
      "other-gw",
      h.ev("r9", "item", { itemId: "tool:c", toolCallId: "c", name: "ls", kind: "tool", phase: "start", meta: "." }),
    );
    assert.deepEqual(labels(h.tracker.get(GW, KEY)), ["Read · a.md"]);
    assert.deepEqual(labels(h.tracker.get("other-gw", KEY)), ["List · ."]);
    h.tracker.forget("other-gw");
    assert.equal(h.tracker.get("other-gw", KEY), null);
    assert.notEqual(h.tracker.get(GW, KEY), null);
  });

  test("a lost connection ends the live runs; a stale `hasActiveRun:false` row does not end a busy run", () => {
    const h = setup();
    h.start("r1");
    h.tracker.noteSessionInfo(GW, { key: KEY, parentKey: null, hasActiveRun: false });
    assert.equal(h.tracker.get(GW, KEY)?.live, true, "events 0 s ago win over the row");
    h.time.advance(6000);
    h.tracker.noteSessionInfo(GW, { key: KEY, parentKey: null, hasActiveRun: false });
    assert.equal(h.tracker.get(GW, KEY)?.live, false);
    h.tool("r1", "read", "from a.md");
    assert.equal(h.tracker.get(GW, KEY)?.live, true, "events for it bring it back");
    h.tracker.resetGateway(GW);
    assert.equal(h.tracker.get(GW, KEY)?.live, false);
    assert.equal(h.tracker.get(GW, KEY)?.current, null);
  });

  test("the session cap drops the longest-idle finished session", () => {
    const h = setup({ maxSessions: 2 });
    const on = (key: string, run: string) => h.feed({ ...h.ev(run, "lifecycle", { phase: "start" }), sessionKey: key });
    on("a", "ra");
    h.feed({ ...h.ev("ra", "lifecycle", { phase: "end" }), sessionKey: "a" });
    h.time.advance(10);
    on("b", "rb");
    on("c", "rc");
    assert.deepEqual(
      h.tracker
        .list()
        .map((a) => a.sessionKey)
        .sort(),
      ["b", "c"],
    );
  });
});

describe("coalescing", () => {
  test("a storm of 10 events a second for 3 s gives 13 emits, the last with the last line", () => {
    const h = setup();
    h.start("r1");
    h.time.advance(0);
    const startEmits = h.emits.length;
    assert.equal(startEmits, 1, "the run start, emitted on the next turn");
    h.time.advance(1000);
    const t = h.time.now();
    for (let i = 0; i < 30; i++) {
      h.time.advance(t + i * 100 - h.time.now());
      h.tool("r1", "exec", `step ${i}`, { keepOpen: true });
      // Output updates in between cost nothing extra.
      h.feed(h.ev("r1", "command_output", { itemId: "command:x", phase: "delta", output: "x" }));
    }
    h.time.advance(1000);
    const storm = h.emits.slice(startEmits);
    assert.equal(storm.length, 13);
    assert.ok(storm.length <= 13);
    assert.equal(storm.at(-1)!.current?.label, "Shell · step 29");
    assert.equal(storm.at(-1)!.lines.at(-1)?.label, "Shell · step 29");
    // Never two emits of one session closer than 250 ms.
    const at = storm.map((a) => a.updatedAt);
    for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= 200, `gap ${at[i]! - at[i - 1]!}`);
  });

  test("minIntervalMs is configurable and each session has its own budget", () => {
    const h = setup({ minIntervalMs: 1000 });
    const emittedAt: number[] = [];
    h.tracker.subscribe((a) => void (a.sessionKey === KEY && emittedAt.push(h.time.now() - T0)));
    h.start("r1");
    h.feed({ ...h.ev("r2", "lifecycle", { phase: "start" }), sessionKey: "other" });
    h.time.advance(0);
    assert.deepEqual(h.emits.map((a) => a.sessionKey).sort(), [KEY, "other"]);
    for (let i = 0; i < 10; i++) {
      h.tool("r1", "read", `from f${i}.md`);
      h.time.advance(100);
    }
    h.time.advance(2000);
    assert.deepEqual(emittedAt, [0, 1000], "the run start at once, then the ten reads together 1 s after that emit");
    assert.deepEqual(
      h.emits.filter((a) => a.sessionKey === KEY).map((a) => [a.updatedAt - T0, a.lines.length]),
      [
        [0, 0],
        [900, 8],
      ],
    );
    assert.equal(h.emits.at(-1)!.lines.at(-1)?.label, "Read · f9.md");
  });

  test("leading edge: a call starting after a quiet gap is drawn at once, though the previous end's emit is pending", () => {
    // The cadence of an agent run: a call starts, ends 40 ms later, and the next starts 186 ms after that end,
    // so every start comes less than 250 ms after the previous emit. Each is still drawn on the next turn.
    const h = setup();
    h.start("r1");
    h.time.advance(1000);
    const drawnAfter: number[] = [];
    for (let i = 0; i < 12; i++) {
      const arrived = h.time.now();
      const label = `Shell · step ${i}`;
      const id = h.tool("r1", "exec", `step ${i}`, { keepOpen: true });
      h.time.advance(0);
      const first = h.emits.findIndex((a) => a.current?.label === label);
      drawnAfter.push(first < 0 ? Number.POSITIVE_INFINITY : h.emits[first]!.updatedAt - arrived);
      h.time.advance(40);
      const end = { itemId: `tool:${id}`, toolCallId: id, name: "exec", kind: "tool", phase: "end", status: "completed" };
      h.feed(h.ev("r1", "item", { ...end, endedAt: h.time.now() }));
      h.time.advance(186);
    }
    assert.deepEqual(drawnAfter, Array(12).fill(0), "every start drawn the moment it arrived");
    h.time.advance(1000);
    const last = h.emits.at(-1)!;
    assert.equal(last.lines.at(-1)?.label, "Shell · step 11");
    assert.equal(last.lines.at(-1)?.status, "done", "the last end is delivered (trailing)");
  });

  test("within a burst, emits after the first keep the window: never two closer than minIntervalMs", () => {
    const h = setup();
    h.start("r1");
    h.time.advance(1000);
    const at: number[] = [];
    h.tracker.subscribe(() => at.push(h.time.now()));
    const t = h.time.now();
    for (let i = 0; i < 20; i++) {
      h.time.advance(t + i * 60 - h.time.now());
      h.tool("r1", "read", `from f${i}.md`);
    }
    h.time.advance(1000);
    assert.equal(at[0], t, "the first change of the burst at once");
    for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= 250, `gap ${at[i]! - at[i - 1]!}`);
    assert.equal(h.emits.at(-1)!.lines.at(-1)?.label, "Read · f19.md");
  });

  test("events that change nothing shown emit nothing", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.time.advance(1000);
    const n = h.emits.length;
    for (let i = 0; i < 20; i++) h.feed(h.ev("r1", "usage", { outputTokens: i }));
    h.time.advance(1000);
    assert.equal(h.emits.length, n);
  });
});

describe("no-progress flags", () => {
  const STALL = { pollingRepeats: 5, silentMs: 10 * 60_000, idleChildMs: 10 * 60_000 };

  test("polling: the same call 5 times raises the flag with its evidence; a card change clears it", () => {
    const h = setup({ stall: STALL });
    h.start("r1");
    for (let i = 0; i < 4; i++) h.tool("r1", "exec", "gh run view 42 --json status");
    assert.equal(h.tracker.get(GW, KEY)!.stall, null, "4 calls are not polling yet");
    h.tool("r1", "exec", "gh run view 42 --json status");
    assert.deepEqual(h.tracker.get(GW, KEY)!.stall, {
      kind: "polling",
      count: 5,
      label: "Shell · gh run view 42 --json status",
      tool: "exec",
      since: T0,
      text: "Polling the same command 5×",
    });
    h.tool("r1", "exec", "gh run view 42 --json status");
    assert.equal(h.tracker.get(GW, KEY)!.stall?.text, "Polling the same command 6×");
    h.tracker.noteCardChange(GW, KEY);
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
    assert.equal(h.tracker.get(GW, KEY)!.live, true, "an observation: the run itself is untouched");
  });

  test("polling: a different call clears it; a progress_card write clears it", () => {
    const h = setup({ stall: STALL });
    h.start("r1");
    for (let i = 0; i < 5; i++) h.tool("r1", "read", "from status.json");
    assert.deepEqual(
      { ...h.tracker.get(GW, KEY)!.stall, since: 0 },
      { kind: "polling", count: 5, label: "Read · status.json", tool: "read", since: 0, text: "Repeating the same Read call 5×" },
    );
    h.tool("r1", "read", "from other.json");
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
    for (let i = 0; i < 5; i++) h.tool("r1", "exec", "sleep 30");
    assert.equal(h.tracker.get(GW, KEY)!.stall?.kind, "polling");
    h.tool("r1", "progress_card", undefined);
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
  });

  test("polling: under `status` the evidence hides the command too", () => {
    const h = setup({ stall: STALL, commandText: "status" });
    h.start("r1");
    for (let i = 0; i < 5; i++) h.tool("r1", "exec", "curl localhost:8080/health");
    const flag = h.tracker.get(GW, KEY)!.stall;
    assert.equal(flag?.kind === "polling" && flag.label, "Shell");
  });

  test("silent: no event for 10 min on a live run, with the minutes; the next event clears it", () => {
    const h = setup({ stall: STALL });
    h.start("r1");
    h.tool("r1", "exec", "make build", { keepOpen: true });
    h.time.advance(10 * 60_000 - 1);
    h.tracker.tick();
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
    h.time.advance(1);
    h.tracker.tick();
    assert.deepEqual(h.tracker.get(GW, KEY)!.stall, {
      kind: "silent",
      sinceMs: 600_000,
      lastEventAt: T0,
      text: "No new activity for 10 min",
    });
    h.time.advance(2 * 60_000 + 30_000);
    h.tracker.tick();
    h.time.advance(0);
    assert.equal(h.emits.at(-1)!.stall?.text, "No new activity for 12 min");
    h.feed(h.ev("r1", "command_output", { phase: "delta", output: "…" }));
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
    assert.equal(h.tracker.get(GW, KEY)!.live, true);
  });

  test("silent: a finished run is never flagged, however long ago", () => {
    const h = setup({ stall: STALL, retainAfterEndMs: 60 * 60_000 });
    h.start("r1");
    h.end("r1");
    h.time.advance(30 * 60_000);
    h.tracker.tick();
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
  });

  test("idle-child: a sub-agent with no tool line and no card for 10 min", () => {
    const h = setup({ stall: { ...STALL, silentMs: 60 * 60_000 } });
    const child = { sessionKey: CHILD, spawnedBy: KEY };
    h.feed(h.ev("c1", "lifecycle", { phase: "start" }, child));
    h.time.advance(5 * 60_000);
    h.feed(h.ev("c1", "assistant", { text: "Let me think", delta: "Let me think" }, child));
    h.time.advance(5 * 60_000);
    h.tracker.tick();
    assert.deepEqual(h.tracker.get(GW, CHILD)!.stall, {
      kind: "idle-child",
      sinceMs: 600_000,
      parentKey: KEY,
      text: "Sub-agent produced nothing for 10 min",
    });
    h.feed(
      h.ev(
        "c1",
        "item",
        { itemId: "tool:c", toolCallId: "c", name: "exec", kind: "tool", phase: "start", meta: "print text", commandBearing: true },
        child,
      ),
    );
    assert.equal(h.tracker.get(GW, CHILD)!.stall, null);
  });

  test("idle-child: known from the session row's parent too; a main session is never idle-child", () => {
    const h = setup({ stall: { ...STALL, silentMs: 60 * 60_000 } });
    h.tracker.noteSessionInfo(GW, { key: "agent:main:worker", parentKey: KEY, hasActiveRun: true });
    h.feed({ ...h.ev("w1", "lifecycle", { phase: "start" }), sessionKey: "agent:main:worker" });
    h.start("r1");
    h.time.advance(11 * 60_000);
    h.tracker.tick();
    assert.equal(h.tracker.get(GW, "agent:main:worker")!.stall?.kind, "idle-child");
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
  });

  test("flags can be turned off", () => {
    const h = setup({ stall: { enabled: false } });
    h.start("r1");
    for (let i = 0; i < 9; i++) h.tool("r1", "exec", "sleep 5");
    h.time.advance(60 * 60_000);
    h.tracker.tick();
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
  });

  test("the run's end clears the flag", () => {
    const h = setup({ stall: STALL });
    h.start("r1");
    for (let i = 0; i < 5; i++) h.tool("r1", "exec", "sleep 5");
    assert.equal(h.tracker.get(GW, KEY)!.stall?.kind, "polling");
    h.end("r1");
    assert.equal(h.tracker.get(GW, KEY)!.stall, null);
  });
});

describe("the strip tidied (issue 19)", () => {
  test("the agent's progress_card writes make no line and no current line; the lines around them stay", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from docs/guide.md");
    h.tool("r1", "progress_card", undefined, { title: "Progress Card" });
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "progress_card", undefined, { keepOpen: true, title: "Progress Card" });
    const a = h.tracker.get(GW, KEY)!;
    assert.deepEqual(labels(a), ["Read · docs/guide.md", "Shell · npm test"]);
    assert.equal(a.current?.label, "Shell · npm test", "the newest line the strip shows");
    assert.doesNotMatch(JSON.stringify(h.emits), /progress_card|Progress card/);
  });

  test("a progress_card write seen only on the `tool` stream makes no line either", () => {
    const h = setup();
    h.start("r1");
    h.feed(h.ev("r1", "tool", { phase: "start", name: "progress_card", toolCallId: "c1", args: { markdown: "x" } }));
    h.feed(h.ev("r1", "tool", { phase: "result", name: "progress_card", toolCallId: "c1", isError: false }));
    assert.deepEqual(h.tracker.get(GW, KEY)!.lines, []);
  });

  test("the same call three times in a row is one line ×3 with the newest status and time; current carries the count", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "read", "from package.json");
    h.tool("r1", "exec", "npm test", { status: "failed" });
    h.time.advance(1000);
    h.tool("r1", "exec", "npm test", { status: "failed" });
    h.time.advance(1000);
    h.tool("r1", "exec", "npm test", { keepOpen: true });
    const a = h.tracker.get(GW, KEY)!;
    assert.deepEqual(a.lines, [
      { glyph: "read", label: "Read · package.json", tool: "read", at: T0, status: "done" },
      { glyph: "shell", label: "Shell · npm test", tool: "exec", at: T0 + 2000, status: "running", count: 3 },
    ]);
    assert.deepEqual(a.current, a.lines.at(-1));
  });

  test("a different line in between breaks the fold; a card write in between does not", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "read", "from log.txt");
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "progress_card", undefined);
    h.tool("r1", "exec", "npm test");
    h.tool("r1", "exec", "npm run lint");
    assert.deepEqual(
      h.tracker.get(GW, KEY)!.lines.map((l) => [l.label, l.count ?? 1]),
      [
        ["Shell · npm test", 2],
        ["Read · log.txt", 1],
        ["Shell · npm test", 2],
        ["Shell · npm run lint", 1],
      ],
    );
  });

  test("a folded line counts as one of the line bound, and its count survives the stored-call bound", () => {
    const h = setup({ maxLines: 3 });
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.tool("r1", "read", "from b.md");
    // 40 polls: more than the calls kept per session (3 lines × 4), all one line.
    for (let i = 0; i < 40; i++) h.tool("r1", "exec", "gh run view 42");
    h.tool("r1", "read", "from c.md");
    assert.deepEqual(
      h.tracker.get(GW, KEY)!.lines.map((l) => [l.label, l.count ?? 1]),
      [
        ["Shell · gh run view 42", 40],
        ["Read · c.md", 1],
      ],
    );
  });

  test("the bound of lines still holds with folds: the oldest lines go", () => {
    const h = setup({ maxLines: 2 });
    h.start("r1");
    h.tool("r1", "read", "from a.md");
    h.tool("r1", "exec", "make");
    h.tool("r1", "exec", "make");
    h.tool("r1", "read", "from b.md");
    assert.deepEqual(
      h.tracker.get(GW, KEY)!.lines.map((l) => [l.label, l.count ?? 1]),
      [
        ["Shell · make", 2],
        ["Read · b.md", 1],
      ],
    );
  });

  test("a new repeat of the folded line is emitted (the count changed)", () => {
    const h = setup();
    h.start("r1");
    h.tool("r1", "exec", "npm test");
    h.time.advance(1000);
    h.tool("r1", "exec", "npm test");
    h.time.advance(1000);
    assert.equal(h.emits.at(-1)?.lines.at(-1)?.count, 2);
  });
});
