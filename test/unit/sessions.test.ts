// docs/gateway.md §5: session rows and sessions.changed run fields.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { agentIdOfKey, mergeRunFields, parseSessionRow, sameSession, sessionKind } from "../../common/sessions.ts";
import type { SessionInfo } from "../../common/model.ts";

const KEY = "agent:main:dashboard:3f0c1a2b-1111-2222-3333-444455556666";

function row(extra: Record<string, unknown> = {}): SessionInfo {
  const r = parseSessionRow({
    key: KEY,
    sessionId: "s-1",
    status: "running",
    hasActiveRun: true,
    activeRunIds: ["r1"],
    startedAt: 100,
    endedAt: null,
    ...extra,
  });
  assert.ok(r);
  return r;
}

describe("parseSessionRow", () => {
  test("not a row → null", () => {
    for (const v of [null, undefined, 5, "x", {}, { key: "" }, { key: 7 }]) assert.equal(parseSessionRow(v), null);
  });

  test("title precedence: label > displayName > derivedTitle > key", () => {
    const all = { key: KEY, label: "Label", displayName: "Display", derivedTitle: "Derived" };
    assert.equal(parseSessionRow(all)?.title, "Label");
    assert.equal(parseSessionRow({ ...all, label: undefined })?.title, "Display");
    assert.equal(parseSessionRow({ ...all, label: "  ", displayName: undefined })?.title, "Derived");
    // with no title at all, the title comes from the key (never empty, names the session)
    assert.equal(parseSessionRow({ key: KEY, label: "", displayName: "\n" })?.title, "dashboard:3f0c1a2b");
    assert.equal(parseSessionRow({ key: "agent:research:global" })?.title, "research · global");
    assert.equal(parseSessionRow({ key: "global" })?.title, "global");
  });

  test("titles are stripped of invisible characters and trimmed", () => {
    assert.equal(parseSessionRow({ key: KEY, label: " Re\u200Bpair\u202E " })?.title, "Repair");
  });

  test("run fields", () => {
    const r = parseSessionRow({
      key: KEY,
      sessionId: "s1",
      agentId: "main",
      updatedAt: 5,
      status: "done",
      hasActiveRun: false,
      activeRunIds: [],
      startedAt: 1,
      endedAt: 4,
    });
    assert.deepEqual(
      { ...r, title: undefined, kind: undefined },
      {
        key: KEY,
        sessionId: "s1",
        agentId: "main",
        title: undefined,
        kind: undefined,
        parentKey: null,
        updatedAt: 5,
        status: "done",
        hasActiveRun: false,
        activeRunIds: [],
        startedAt: 1,
        endedAt: 4,
      },
    );
  });

  test("a sub-agent names its parent", () => {
    const r = parseSessionRow({ key: "agent:main:subagent:1", spawnedBy: "agent:main:dashboard:p", spawnDepth: 1 });
    assert.equal(r?.parentKey, "agent:main:dashboard:p");
    assert.equal(r?.kind, "subagent");
    assert.equal(parseSessionRow({ key: KEY, parentSessionKey: null })?.parentKey, null);
  });

  test("unknown or missing fields are null, not guessed", () => {
    const r = parseSessionRow({
      key: KEY,
      status: "sleeping",
      hasActiveRun: "yes",
      activeRunIds: "r1",
      startedAt: "1",
      endedAt: Number.NaN,
    });
    assert.equal(r?.status, null);
    assert.equal(r?.hasActiveRun, null);
    assert.equal(r?.activeRunIds, null);
    assert.equal(r?.startedAt, null);
    assert.equal(r?.endedAt, null);
    assert.equal(r?.sessionId, null);
    assert.equal(r?.updatedAt, null);
  });

  test("agentId from the row, else from the key", () => {
    assert.equal(parseSessionRow({ key: "agent:research:main" })?.agentId, "research");
    assert.equal(parseSessionRow({ key: "agent:research:main", agentId: "other" })?.agentId, "other");
    assert.equal(parseSessionRow({ key: "global" })?.agentId, null);
  });

  test("non-string activeRunIds entries are dropped", () => {
    assert.deepEqual(parseSessionRow({ key: KEY, activeRunIds: ["a", 1, null, "b"] })?.activeRunIds, ["a", "b"]);
  });
});

describe("sessionKind", () => {
  test("kinds from the key", () => {
    assert.equal(sessionKind("agent:main:main"), "main");
    assert.equal(sessionKind("agent:main:dashboard:3f0c"), "dashboard");
    assert.equal(sessionKind("agent:ops:cron:nightly:run:r-1"), "cron");
    assert.equal(sessionKind("agent:main:subagent:x"), "subagent");
    assert.equal(sessionKind("agent:main:telegram:dm:42"), "other");
    assert.equal(sessionKind("agent:main:main:thread"), "other");
    assert.equal(sessionKind("global"), "other");
  });
  test("a row spawned by another session is a subagent", () => {
    assert.equal(sessionKind("agent:main:dashboard:abc", { spawnedBy: "agent:main:main" }), "subagent");
    assert.equal(parseSessionRow({ key: "agent:main:dashboard:abc", spawnedBy: "agent:main:main" })?.kind, "subagent");
  });
  test("parseSessionRow sets the kind", () => {
    assert.equal(parseSessionRow({ key: "agent:main:main" })?.kind, "main");
    assert.equal(parseSessionRow({ key: KEY })?.kind, "dashboard");
  });
});

describe("agentIdOfKey", () => {
  test("agent-qualified keys only", () => {
    assert.equal(agentIdOfKey("agent:research:global"), "research");
    assert.equal(agentIdOfKey("agent:a_b-c9:x"), "a_b-c9");
    assert.equal(agentIdOfKey("global"), null);
    assert.equal(agentIdOfKey("agent:UPPER:x"), null);
    assert.equal(agentIdOfKey("agent:main"), null);
  });
});

describe("mergeRunFields (sessions.changed, §5.3)", () => {
  test("activeRunIds omitted → unchanged", () => {
    const base = row();
    const next = mergeRunFields(base, { sessionKey: KEY, reason: "update" });
    assert.deepEqual(next.activeRunIds, ["r1"]);
    assert.equal(next.hasActiveRun, true);
    assert.deepEqual(next, base);
  });

  test("activeRunIds null → unknown", () => {
    const next = mergeRunFields(row(), { activeRunIds: null });
    assert.equal(next.activeRunIds, null);
  });

  test("an array replaces (and [] means idle)", () => {
    const next = mergeRunFields(row(), { activeRunIds: ["r2", "r3"] });
    assert.deepEqual(next.activeRunIds, ["r2", "r3"]);
    const idle = mergeRunFields(row(), { activeRunIds: [] });
    assert.deepEqual(idle.activeRunIds, []);
    assert.equal(idle.hasActiveRun, false, "an empty list without hasActiveRun means no active run");
    // an explicit hasActiveRun wins over the list's length
    assert.equal(mergeRunFields(row({ hasActiveRun: false }), { activeRunIds: [], hasActiveRun: true }).hasActiveRun, true);
  });

  test("status, hasActiveRun and times from a run-lifecycle event", () => {
    const next = mergeRunFields(row(), {
      phase: "end",
      runId: "r1",
      status: "failed",
      hasActiveRun: false,
      activeRunIds: [],
      endedAt: 900,
    });
    assert.equal(next.status, "failed");
    assert.equal(next.hasActiveRun, false);
    assert.equal(next.endedAt, 900);
    assert.equal(next.startedAt, 100, "startedAt omitted → unchanged");
  });

  test("invalid values are ignored, the base is not mutated", () => {
    const base = row();
    const copy = structuredClone(base);
    const next = mergeRunFields(base, { status: "bogus", hasActiveRun: "no", startedAt: "x" });
    assert.deepEqual(next, copy);
    mergeRunFields(base, { status: "done", activeRunIds: [] });
    assert.deepEqual(base, copy);
  });

  test("a title in the payload replaces the title", () => {
    assert.equal(mergeRunFields(row(), { label: "New title" }).title, "New title");
    assert.equal(mergeRunFields(row({ label: "Old" }), { label: "  " }).title, "Old");
  });
});

describe("sameSession", () => {
  test("detects changes that matter", () => {
    const a = row();
    assert.equal(sameSession(undefined, a), false);
    assert.equal(sameSession(a, { ...a }), true);
    assert.equal(sameSession(a, { ...a, status: "done" }), false);
    assert.equal(sameSession(a, { ...a, activeRunIds: [] }), false);
    assert.equal(sameSession(a, { ...a, title: "x" }), false);
  });
});
