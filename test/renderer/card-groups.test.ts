// Issue 11, popover at scale: which cards stay on top, which fold into "finished" and "idle"
// groups, and what the group headers say.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CardEntry, SessionInfo } from "../../common/model.ts";
import {
  cardSections,
  groupLabel,
  groupOf,
  IDLE_MS,
  RECENT_FINISHED_MS,
  runningSessions,
  startOfDay,
} from "../../renderer/lib/card-groups.ts";
import { card, endedRun, entry, GW, steps } from "./fixtures.ts";

// A fixed local afternoon, so "today" and "before today" do not depend on when the test runs.
const NOW = new Date(2026, 11, 3, 15, 0, 0).getTime();
const HOUR = 60 * 60_000;
const NO_RUN = null;

let seq = 0;
/** A card slot of its own session, last updated `age` ms before NOW. */
function slot(kind: "active" | "paused" | "stopped" | "complete" | "note", age: number, extra: Partial<CardEntry> = {}): CardEntry {
  const key = `agent:main:dashboard:${kind}-${++seq}`;
  const updatedAt = NOW - age;
  const plans = {
    active: steps("completed", "in_progress"),
    paused: steps("completed", "in_progress"),
    stopped: steps("completed", "in_progress"),
    complete: steps("completed", "completed"),
    note: [],
  };
  const run =
    kind === "active"
      ? { status: "running" as const, hasActiveRun: true, startedAt: updatedAt - 1000, endedAt: null }
      : kind === "stopped"
        ? { ...endedRun("failed"), startedAt: updatedAt - 1000, endedAt: updatedAt + 1000 }
        : NO_RUN;
  return entry({ sessionKey: key, card: card({ sessionKey: key, updatedAt, steps: plans[kind] }), run, confirmedAt: NOW, ...extra });
}

describe("groupOf", () => {
  test("an active card stays on top however old", () => {
    assert.equal(groupOf(slot("active", 3 * IDLE_MS), NOW), null);
  });

  test("a finished card stays on top for an hour, then folds into finished", () => {
    assert.equal(groupOf(slot("complete", RECENT_FINISHED_MS - 1000), NOW), null);
    assert.equal(groupOf(slot("complete", RECENT_FINISHED_MS + 1000), NOW), "finished");
  });

  test("a paused card stays on top for a day, then folds into idle", () => {
    assert.equal(groupOf(slot("paused", IDLE_MS - 1000), NOW), null);
    assert.equal(groupOf(slot("paused", IDLE_MS + 1000), NOW), "idle");
  });

  test("a stopped run's card and a note-only card idle after a day too", () => {
    assert.equal(groupOf(slot("stopped", IDLE_MS + 1000), NOW), "idle");
    assert.equal(groupOf(slot("note", IDLE_MS + 1000), NOW), "idle");
    assert.equal(groupOf(slot("note", IDLE_MS - 1000), NOW), null);
  });

  test("a session that runs again keeps its card on top", () => {
    const e = slot("paused", 2 * IDLE_MS);
    assert.equal(groupOf(e, NOW, new Set([`${e.gatewayId}\u0000${e.sessionKey}`])), null);
    const done = slot("complete", 2 * HOUR);
    assert.equal(groupOf(done, NOW, new Set([`${done.gatewayId}\u0000${done.sessionKey}`])), null);
  });

  test("a slot with something other than a card to say is never folded away", () => {
    const old = slot("paused", 3 * IDLE_MS);
    assert.equal(groupOf({ ...old, error: { code: "MALFORMED_CARD", message: "bad" } }, NOW), null);
    assert.equal(groupOf({ ...old, updateRequired: true }, NOW), null);
    assert.equal(groupOf({ ...old, card: null, derived: null }, NOW), null);
  });
});

describe("group labels", () => {
  const midnight = startOfDay(NOW);

  test("finished: today, before today, or both, with the count", () => {
    const today = [slot("complete", 2 * HOUR), slot("complete", 3 * HOUR)];
    const before = [slot("complete", NOW - midnight + HOUR)];
    assert.equal(groupLabel("finished", today, NOW), "2 finished earlier today");
    assert.equal(groupLabel("finished", before, NOW), "1 finished before today");
    assert.equal(groupLabel("finished", [...today, ...before], NOW), "3 finished earlier: 2 today, 1 before today");
  });

  test("idle: paused, paused or stopped, or not updated when notes are in it", () => {
    const paused = [slot("paused", 2 * IDLE_MS), slot("paused", 3 * IDLE_MS)];
    assert.equal(groupLabel("idle", paused, NOW), "2 paused for more than a day");
    assert.equal(groupLabel("idle", [...paused, slot("stopped", 2 * IDLE_MS)], NOW), "3 paused or stopped for more than a day");
    assert.equal(groupLabel("idle", [...paused, slot("note", 2 * IDLE_MS)], NOW), "3 not updated for more than a day");
  });

  test("startOfDay is local midnight", () => {
    assert.equal(new Date(startOfDay(NOW)).getHours(), 0);
    assert.equal(new Date(startOfDay(NOW)).getDate(), 3);
  });
});

describe("cardSections", () => {
  test("300 cards: every card lands in one place, order kept, counts in the labels", () => {
    const all: CardEntry[] = [];
    for (let i = 0; i < 100; i++) all.push(slot("active", i * 1000));
    for (let i = 0; i < 12; i++) all.push(slot("complete", 2 * HOUR + i * 1000));
    for (let i = 0; i < 18; i++) all.push(slot("complete", 2 * IDLE_MS + i * 1000));
    for (let i = 0; i < 140; i++) all.push(slot("paused", 2 * IDLE_MS + i * 1000));
    for (let i = 0; i < 30; i++) all.push(slot("paused", HOUR + i * 1000));
    const { top, groups } = cardSections(all, NOW);
    assert.equal(top.length, 130);
    assert.deepEqual(
      groups.map((g) => [g.id, g.entries.length, g.label]),
      [
        ["finished", 30, "30 finished earlier: 12 today, 18 before today"],
        ["idle", 140, "140 paused for more than a day"],
      ],
    );
    const placed = [...top, ...groups.flatMap((g) => g.entries)].map((e) => e.sessionKey);
    assert.equal(new Set(placed).size, 300);
    assert.deepEqual(
      top.map((e) => e.sessionKey),
      all.filter((e) => top.includes(e)).map((e) => e.sessionKey),
    );
  });

  test("no group without cards", () => {
    assert.deepEqual(cardSections([slot("active", 0)], NOW).groups, []);
  });

  test("a grouped card that resumes moves to the top", () => {
    const e = slot("paused", 2 * IDLE_MS);
    assert.equal(cardSections([e], NOW).groups[0]?.id, "idle");
    const resumed = slot("active", 0, { sessionKey: e.sessionKey });
    assert.deepEqual(
      cardSections([resumed], NOW).top.map((x) => x.sessionKey),
      [e.sessionKey],
    );
  });
});

describe("runningSessions", () => {
  const row = (key: string, extra: Partial<SessionInfo>): SessionInfo => ({
    key,
    sessionId: null,
    agentId: null,
    title: key,
    kind: "main",
    parentKey: null,
    updatedAt: null,
    status: null,
    hasActiveRun: null,
    activeRunIds: null,
    startedAt: null,
    endedAt: null,
    ...extra,
  });

  test("live runs as the core reads them; ended and unknown ones are not", () => {
    const set = runningSessions({
      [GW]: [
        row("a", { status: "running", hasActiveRun: true }),
        row("b", { status: null, hasActiveRun: true }),
        row("c", { status: "done", hasActiveRun: true }),
        row("d", {}),
      ],
    });
    assert.deepEqual([...set].sort(), [`${GW}\u0000a`, `${GW}\u0000b`]);
  });
});
