// The no-progress detector on its own: thresholds, which flag wins, texts, durations.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_STALL_OPTIONS,
  evaluateStall,
  formatDuration,
  noteCall,
  noteCardChange,
  noteEvent,
  sameFlag,
  watchRun,
} from "../../main/core/stall-detector.ts";

const MIN = 60_000;
const poll = { fingerprint: "exec:abc", tool: "exec", verb: "Shell", label: "Shell · gh run view 42", shell: true };

describe("stall detector", () => {
  test("defaults: 5 repeats, 10 min of silence, 10 min for a sub-agent, on", () => {
    assert.deepEqual(DEFAULT_STALL_OPTIONS, { enabled: true, pollingRepeats: 5, silentMs: 10 * MIN, idleChildMs: 10 * MIN });
  });

  test("polling needs N identical calls in a row; another call starts the count again", () => {
    const w = watchRun(0);
    for (let i = 1; i <= 4; i++) noteCall(w, poll, i * 1000);
    assert.equal(evaluateStall(w, 5000, DEFAULT_STALL_OPTIONS), null);
    noteCall(w, poll, 5000);
    assert.deepEqual(evaluateStall(w, 5000, DEFAULT_STALL_OPTIONS), {
      kind: "polling",
      count: 5,
      label: "Shell · gh run view 42",
      tool: "exec",
      since: 1000,
      text: "Polling the same command 5×",
    });
    noteCall(w, { ...poll, fingerprint: "exec:other" }, 6000);
    assert.equal(evaluateStall(w, 6000, DEFAULT_STALL_OPTIONS), null);
    noteCall(w, poll, 7000);
    assert.equal(w.lastCall?.count, 1);
  });

  test("a card change resets polling and counts as output", () => {
    const w = watchRun(0, { parentKey: "agent:main:main" });
    for (let i = 0; i < 7; i++) noteCall(w, poll, i);
    assert.equal(evaluateStall(w, 10, DEFAULT_STALL_OPTIONS)?.text, "Polling the same command 7×");
    noteCardChange(w, 20);
    assert.equal(evaluateStall(w, 20, DEFAULT_STALL_OPTIONS), null);
    assert.equal(w.produced, true);
  });

  test("non-command tools get their own wording", () => {
    const w = watchRun(0);
    for (let i = 0; i < 5; i++)
      noteCall(w, { fingerprint: "web_fetch:1", tool: "web_fetch", verb: "Fetch", label: "Fetch · https://x.dev", shell: false }, i);
    assert.equal(evaluateStall(w, 5, DEFAULT_STALL_OPTIONS)?.text, "Repeating the same Fetch call 5×");
  });

  test("silence wins over an older polling burst; any event clears it", () => {
    const w = watchRun(0);
    for (let i = 0; i < 5; i++) noteCall(w, poll, i);
    const flag = evaluateStall(w, 12 * MIN + 4, DEFAULT_STALL_OPTIONS);
    assert.deepEqual(flag, { kind: "silent", sinceMs: 12 * MIN, lastEventAt: 4, text: "No new activity for 12 min" });
    noteEvent(w, 12 * MIN + 5);
    assert.equal(evaluateStall(w, 12 * MIN + 5, DEFAULT_STALL_OPTIONS)?.kind, "polling");
  });

  test("a sub-agent that produced nothing is idle-child, before silent; a main run never is", () => {
    const child = watchRun(0, { parentKey: "agent:main:dashboard:1" });
    assert.equal(evaluateStall(child, 10 * MIN - 1, DEFAULT_STALL_OPTIONS), null);
    assert.deepEqual(evaluateStall(child, 10 * MIN, DEFAULT_STALL_OPTIONS), {
      kind: "idle-child",
      sinceMs: 10 * MIN,
      parentKey: "agent:main:dashboard:1",
      text: "Sub-agent produced nothing for 10 min",
    });
    const main = watchRun(0);
    noteEvent(main, 9 * MIN);
    assert.equal(evaluateStall(main, 10 * MIN, DEFAULT_STALL_OPTIONS), null);
  });

  test("a sub-agent with output is judged like any run", () => {
    const child = watchRun(0, { parentKey: null });
    noteCall(child, poll, 1000);
    assert.equal(evaluateStall(child, 10 * MIN, DEFAULT_STALL_OPTIONS), null);
    assert.equal(evaluateStall(child, 10 * MIN + 1000, DEFAULT_STALL_OPTIONS)?.kind, "silent");
  });

  test("disabled reports nothing; a threshold below 2 is treated as 2", () => {
    const w = watchRun(0);
    noteCall(w, poll, 0);
    assert.equal(evaluateStall(w, 60 * MIN, { ...DEFAULT_STALL_OPTIONS, enabled: false }), null);
    assert.equal(evaluateStall(w, 1, { ...DEFAULT_STALL_OPTIONS, pollingRepeats: 1 }), null);
    noteCall(w, poll, 1);
    assert.equal(evaluateStall(w, 1, { ...DEFAULT_STALL_OPTIONS, pollingRepeats: 1 })?.kind, "polling");
  });

  test("durations round down in whole units", () => {
    assert.deepEqual([0, 45_999, 60_000, 12 * MIN + 59_999, 60 * MIN, 65 * MIN, 125 * MIN].map(formatDuration), [
      "0 s",
      "45 s",
      "1 min",
      "12 min",
      "1 h",
      "1 h 5 min",
      "2 h 5 min",
    ]);
  });

  test("sameFlag compares what is shown", () => {
    const a = { kind: "silent" as const, sinceMs: 600_000, lastEventAt: 0, text: "No new activity for 10 min" };
    assert.equal(sameFlag(a, { ...a, sinceMs: 600_500 }), true);
    assert.equal(sameFlag(a, { ...a, text: "No new activity for 11 min" }), false);
    assert.equal(sameFlag(null, null), true);
    assert.equal(sameFlag(a, null), false);
  });
});
