// No-progress detector rules the mutation run found unpinned: a card change is a sign of
// life for the silence rule, a sub-agent's idle time counts from its own start on real
// (epoch) clocks, and sameFlag tells flags apart by kind, text and the polled call's label.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { evaluateStall, noteCall, noteCardChange, sameFlag, watchRun, type StallOptions } from "../../main/core/stall-detector.ts";
import type { StallFlag } from "../../common/model.ts";

const MIN = 60_000;
const T0 = 1_760_000_000_000; // a real wall-clock time, as the app passes
const OPTS: StallOptions = { enabled: true, pollingRepeats: 3, silentMs: 10 * MIN, idleChildMs: 10 * MIN };

describe("signs of life", () => {
  test("a card change restarts the silence clock", () => {
    const w = watchRun(T0);
    noteCardChange(w, T0 + 9 * MIN);
    assert.equal(evaluateStall(w, T0 + 12 * MIN, OPTS), null, "3 min after the card changed is not silence");
    const flag = evaluateStall(w, T0 + 19 * MIN, OPTS);
    assert.equal(flag?.kind, "silent");
    assert.equal(flag?.text, "No new activity for 10 min");
  });
});

describe("idle sub-agent", () => {
  test("counts from the run's own start on an epoch clock", () => {
    const w = watchRun(T0, { parentKey: "agent:main:main" });
    assert.equal(evaluateStall(w, T0 + 1 * MIN, OPTS), null);
    const flag = evaluateStall(w, T0 + 10 * MIN, OPTS);
    assert.deepEqual(flag, {
      kind: "idle-child",
      sinceMs: 10 * MIN,
      parentKey: "agent:main:main",
      text: "Sub-agent produced nothing for 10 min",
    });
  });
});

describe("sameFlag", () => {
  const polling = (label: string, text = "Polling the same command 3×"): StallFlag => ({
    kind: "polling",
    count: 3,
    label,
    tool: "exec",
    since: T0,
    text,
  });
  const silent: StallFlag = { kind: "silent", sinceMs: 10 * MIN, lastEventAt: T0, text: "No new activity for 10 min" };
  const idle: StallFlag = { kind: "idle-child", sinceMs: 10 * MIN, parentKey: null, text: "No new activity for 10 min" };

  test("null is only the same as null", () => {
    assert.equal(sameFlag(null, null), true);
    assert.equal(sameFlag(null, silent), false);
    assert.equal(sameFlag(silent, null), false);
  });

  test("a different kind or text is a different flag", () => {
    assert.equal(sameFlag(silent, idle), false, "same text, other kind");
    assert.equal(sameFlag(silent, { ...silent, text: "No new activity for 11 min" }), false);
    assert.equal(sameFlag(polling("Shell · ls"), polling("Shell · ls", "Polling the same command 4×")), false);
  });

  test("the same silence is the same flag, even as its duration fields move", () => {
    assert.equal(sameFlag(silent, { ...silent, sinceMs: 10 * MIN + 5_000 }), true);
  });

  test("polling: the same text about another call is a different flag", () => {
    assert.equal(sameFlag(polling("Shell · ls"), polling("Shell · ls")), true);
    assert.equal(sameFlag(polling("Shell · ls"), polling("Shell · pwd")), false);
  });

  test("polling flags built by the detector compare by the repeated call", () => {
    const w = watchRun(T0);
    for (let i = 0; i < 3; i++)
      noteCall(w, { fingerprint: "exec:ls", tool: "exec", verb: "Shell", label: "Shell · ls", shell: true }, T0 + i);
    const first = evaluateStall(w, T0 + 10, OPTS);
    assert.equal(first?.kind, "polling");
    assert.equal(sameFlag(first, evaluateStall(w, T0 + 20, OPTS)), true);
  });
});
