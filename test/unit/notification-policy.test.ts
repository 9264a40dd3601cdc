// N1–N6: milestones, not noise, driven by a fake clock and a fake scheduler.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import type { CardRef, Milestone } from "../../common/contract.ts";
import { BODY_BUDGET, TITLE_BUDGET } from "../../main/core/notifications/notice-text.ts";
import { NotificationPolicy, type PolicyOptions } from "../../main/core/notifications/policy.ts";
import type { Notice, NotificationSettings } from "../../main/core/notifications/notice.ts";
import { noteLine } from "../../common/note-line.ts";
import type {
  CardEntry,
  CardState,
  Freshness,
  RefreshState,
  RunOutcome,
  SessionActivity,
  StallFlag,
  StepStatus,
} from "../../common/model.ts";
import { FakeClock } from "./fake-clock.ts";
import { notificationSettings } from "./notification-settings.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Day 100 at 12:00 on the fake clock; the fake local time is the clock modulo a day. */
const NOON = 100 * DAY + 12 * HOUR;

function settings(
  patch: { enabled?: boolean; off?: Milestone[]; quietHours?: NotificationSettings["quietHours"] } = {},
): NotificationSettings {
  return notificationSettings(patch);
}

type Harness = {
  clock: FakeClock;
  policy: NotificationPolicy;
  sent: Notice[];
  set: (s: NotificationSettings) => void;
  visible: Set<string>;
  gateways: { count: number };
};

function harness(opts: Partial<PolicyOptions> = {}, start = NOON): Harness {
  const clock = new FakeClock(start);
  const sent: Notice[] = [];
  let current = settings();
  const visible = new Set<string>();
  const gateways = { count: 1 };
  const policy = new NotificationPolicy({
    now: () => clock.now,
    schedule: clock.schedule,
    deliver: (n) => sent.push(n),
    settings: () => current,
    isVisibleInFocusedWindow: (ref) => visible.has(ref.sessionKey),
    gatewayLabel: (id) => (id === "gw1" ? "Work" : id === "gw2" ? "Home" : null),
    gatewayCount: () => gateways.count,
    minutesOfDay: (ms) => (((ms % DAY) + DAY) % DAY) / MIN,
    ...opts,
  });
  return { clock, policy, sent, set: (s) => (current = s), visible, gateways };
}

type CardSpec = {
  key?: string;
  gw?: string;
  title?: string;
  rev: number;
  /** One letter per step: c completed, i in_progress, p pending. */
  steps?: string;
  names?: string[];
  note?: string | null;
  at?: number;
  paused?: boolean;
  outcome?: RunOutcome | null;
  freshness?: Freshness;
  refresh?: RefreshState | null;
  hidden?: boolean;
};

const STATUS: Record<string, StepStatus> = { c: "completed", i: "in_progress", p: "pending" };

/** A confirmed card entry; `at` defaults to the harness clock's now. */
function card(h: Harness, s: CardSpec): CardEntry {
  const steps = [...(s.steps ?? "")].map((code, i) => ({ step: s.names?.[i] ?? `Step ${i + 1}`, status: STATUS[code]! }));
  const completed = steps.filter((x) => x.status === "completed").length;
  const total = steps.length;
  const current = steps.find((x) => x.status === "in_progress")?.step ?? steps.find((x) => x.status === "pending")?.step ?? null;
  const state: CardState = total === 0 ? "note" : completed === total ? "complete" : s.paused || s.outcome ? "paused" : "active";
  return {
    gatewayId: s.gw ?? "gw1",
    sessionKey: s.key ?? "agent:main:a",
    agentId: null,
    title: s.title ?? "Repair session owner",
    card: { sessionKey: s.key ?? "agent:main:a", revision: s.rev, updatedAt: s.at ?? h.clock.now, markdown: s.note ?? null, steps },
    derived: { completed, total, current: state === "complete" ? null : current, state, outcome: s.outcome ?? null },
    freshness: s.freshness ?? "live",
    confirmedAt: h.clock.now,
    error: null,
    hidden: s.hidden ?? false,
    updateRequired: false,
    refresh: s.refresh ?? null,
  };
}

function cleared(h: Harness, key = "agent:main:a"): CardEntry {
  return { ...card(h, { key, rev: 1 }), card: null, derived: null };
}

/** A session's activity with the given stall flag (or none). */
function activity(h: Harness, stall: StallFlag | null, key = "agent:main:a", gw = "gw1"): SessionActivity {
  return { gatewayId: gw, sessionKey: key, live: true, runId: "r1", current: null, lines: [], stall, updatedAt: h.clock.now };
}

function polling(count: number, since = NOON): StallFlag {
  return { kind: "polling", count, label: "Shell · gh run view 42", tool: "exec", since, text: `Polling the same command ${count}×` };
}

function silent(minutes: number): StallFlag {
  return { kind: "silent", sinceMs: minutes * MIN, lastEventAt: NOON, text: `No new activity for ${minutes} min` };
}

const ref = (key = "agent:main:a", gw = "gw1"): CardRef => ({ gatewayId: gw, sessionKey: key, agentId: null });
const kinds = (sent: Notice[]): string[] => sent.map((n) => n.kind);
const bodies = (sent: Notice[]): string[] => sent.map((n) => n.body);

describe("notification policy: milestones (N1)", () => {
  test("a new card, a step, a pause, completion: one notice each with exact text", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp", names: ["Read logs", "Fix", "Test"], note: "## **Owner** table" }));
    h.clock.advance(MIN);
    h.policy.observe(card(h, { rev: 2, steps: "cip", names: ["Read logs", "Fix", "Test"] }));
    h.clock.advance(MIN);
    h.policy.observe(card(h, { rev: 2, steps: "cip", names: ["Read logs", "Fix", "Test"], paused: true }));
    h.clock.advance(MIN);
    h.policy.observe(card(h, { rev: 3, steps: "ccc", names: ["Read logs", "Fix", "Test"], note: "Shipped in [#42](https://x.test/42)" }));
    assert.deepEqual(kinds(h.sent), ["newCard", "stepCompleted", "pausedOrBlocked", "allCompleted"]);
    assert.deepEqual(bodies(h.sent), [
      "Started · 0/3 · Now: Read logs · Owner table",
      "Step completed · 1/3 · Now: Fix",
      "Paused · 1/3 · At: Fix",
      "Completed · 3/3 · Shipped in #42",
    ]);
    assert.ok(h.sent.every((n) => n.title === "Repair session owner"));
    assert.deepEqual(h.sent[0]!.card, ref());
    assert.equal(new Set(h.sent.map((n) => n.id)).size, 4);
  });

  test("a checklist replaced by a note-only card is blocked; a failed run is told with its outcome", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "cip", at: NOON - HOUR }));
    h.policy.observe(card(h, { rev: 2, note: "Waiting for **your** API key" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 5, steps: "ci", at: NOON - HOUR }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 5, steps: "ci", at: NOON - HOUR, outcome: "failed" }));
    assert.deepEqual(kinds(h.sent), ["pausedOrBlocked", "pausedOrBlocked"]);
    assert.deepEqual(bodies(h.sent), ["Blocked · Waiting for your API key", "Run failed · 1/2 · At: Step 2"]);
  });

  test("a failed and a timed-out refresh are told; the same failure re-sent is not", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR }));
    const failed: RefreshState = { status: "failed", key: "k1", error: "boom token=abc", code: "X", terminal: false, at: h.clock.now };
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR, refresh: failed }));
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR, refresh: failed, freshness: "stale" }));
    h.clock.advance(2 * MIN);
    h.policy.observe(
      card(h, { rev: 1, steps: "ip", at: NOON - HOUR, refresh: { status: "timed_out", key: "k2", baseline: 1, at: h.clock.now } }),
    );
    assert.deepEqual(bodies(h.sent), ["Refresh failed · 0/2 · Now: Step 1", "Refresh timed out · 0/2 · Now: Step 1"]);
    assert.ok(!h.sent.some((n) => n.body.includes("boom") || n.body.includes("token")));
  });

  test("a new card after a confirmed clear is new; the same card coming back is not", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 4, steps: "cc", at: NOON - HOUR }));
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 4, steps: "cc", at: NOON - HOUR })); // the same card again
    assert.equal(h.sent.length, 0);
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 1, steps: "pp" }));
    assert.deepEqual(bodies(h.sent), ["Started · 0/2 · Next: Step 1"]);
  });

  test("a lower revision written later is a reset, hence a new card; an older read is ignored", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 7, steps: "ci" }));
    h.clock.advance(2 * MIN);
    h.policy.observe(card(h, { rev: 3, steps: "cc", at: NOON - HOUR })); // older: never go back
    h.policy.observe(card(h, { rev: 1, steps: "i", note: "Fresh start" }));
    assert.deepEqual(bodies(h.sent), ["Started · 1/2 · Now: Step 2", "Started · 0/1 · Now: Step 1 · Fresh start"]);
  });

  test("note edits, re-reads, freshness changes and hidden entries are never milestones", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip", note: "first", at: NOON - HOUR }));
    h.policy.observe(card(h, { rev: 2, steps: "ip", note: "second" }));
    h.policy.observe(card(h, { rev: 2, steps: "ip", note: "second" }));
    h.policy.observe(card(h, { rev: 2, steps: "ip", note: "second", freshness: "stale" }));
    h.policy.observe(card(h, { rev: 2, steps: "ip", note: "second", freshness: "offline" }));
    h.policy.observe(card(h, { rev: 2, steps: "ip", note: "second", freshness: "live" }));
    h.policy.observe(card(h, { rev: 3, steps: "cc", hidden: true }));
    h.policy.observe(card(h, { key: "agent:main:n", rev: 1, note: "only a note", at: NOON - HOUR }));
    h.policy.observe(card(h, { key: "agent:main:n", rev: 2, note: "another note" }));
    assert.deepEqual(h.sent, []);
    assert.equal(h.clock.pending, 0);
  });
});

describe("notification policy: no flood on startup or reconnect", () => {
  test("cards written before the policy started are a baseline; later changes count", () => {
    const h = harness();
    for (let i = 0; i < 10; i++) h.policy.observe(card(h, { key: `agent:main:s${i}`, rev: 3, steps: "cip", at: NOON - (i + 1) * HOUR }));
    h.policy.observe(card(h, { key: "agent:main:done", rev: 9, steps: "cc", at: NOON - 1 }));
    assert.equal(h.sent.length, 0);
    h.clock.advance(MIN);
    h.policy.observe(card(h, { key: "agent:main:s0", rev: 4, steps: "cci", at: h.clock.now }));
    assert.deepEqual(bodies(h.sent), ["Step completed · 2/3 · Now: Step 3"]);
  });

  test("going offline and coming back with the same revision is nothing; a change while offline counts once", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR }));
    h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR, freshness: "offline" }));
    h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR }));
    assert.equal(h.sent.length, 0);
    h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR, freshness: "offline" }));
    h.clock.advance(10 * MIN);
    h.policy.observe(card(h, { rev: 5, steps: "cc", at: NOON + 5 * MIN }));
    h.policy.observe(card(h, { rev: 5, steps: "cc", at: NOON + 5 * MIN, freshness: "offline" }));
    h.policy.observe(card(h, { rev: 5, steps: "cc", at: NOON + 5 * MIN }));
    assert.deepEqual(kinds(h.sent), ["allCompleted"]);
  });
});

describe("notification policy: throttling and duplicates (N2)", () => {
  test("milestones inside the session window coalesce into one notice at its end", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ippppp" }));
    for (let i = 1; i <= 3; i++) {
      h.clock.advance(10_000);
      h.policy.observe(card(h, { rev: 1 + i, steps: "c".repeat(i) + "i" + "p".repeat(5 - i) }));
    }
    assert.equal(h.sent.length, 1);
    h.clock.advance(29_999);
    assert.equal(h.sent.length, 1);
    h.clock.advance(1);
    assert.deepEqual(bodies(h.sent), ["Started · 0/6 · Now: Step 1", "3 steps completed · 3/6 · Now: Step 4"]);
    assert.equal(h.clock.now, NOON + MIN);
  });

  test("the strongest milestone still true wins; a pause followed by a resume is dropped", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR }));
    h.policy.observe(card(h, { rev: 2, steps: "ci" })); // sent at once
    h.policy.observe(card(h, { rev: 2, steps: "ci", paused: true }));
    h.policy.observe(card(h, { rev: 2, steps: "ci" })); // resumed: the pause no longer holds
    h.clock.advance(MIN);
    assert.deepEqual(kinds(h.sent), ["stepCompleted"]);
    h.policy.observe(card(h, { rev: 3, steps: "ci", paused: true, note: "x" }));
    h.policy.observe(card(h, { rev: 4, steps: "cc" }));
    assert.equal(h.sent.length, 2);
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip", at: NOON - HOUR }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "ci", paused: true }));
    assert.deepEqual(kinds(h.sent), ["stepCompleted", "pausedOrBlocked", "pausedOrBlocked"]);
    assert.equal(h.sent[2]!.body, "Paused · 1/2 · At: Step 2");
    h.clock.advance(MIN);
    assert.deepEqual(kinds(h.sent), ["stepCompleted", "pausedOrBlocked", "pausedOrBlocked", "allCompleted"]);
  });

  test("a burst of 100 revisions yields at most 3 notices, the last saying it completed", () => {
    const h = harness();
    const n = 20;
    let rev = 0;
    for (let done = 0; done < n; done++) {
      const inProgress = "c".repeat(done) + "i" + "p".repeat(n - done - 1);
      for (let edit = 0; edit < 4; edit++) {
        h.policy.observe(card(h, { rev: ++rev, steps: inProgress, note: `working on ${done} (${edit})` }));
        h.clock.advance(200);
      }
      h.policy.observe(card(h, { rev: ++rev, steps: "c".repeat(done + 1) + "p".repeat(n - done - 1) }));
      h.clock.advance(200);
    }
    assert.equal(rev, 100);
    h.clock.advance(2 * MIN);
    assert.ok(h.sent.length <= 3, JSON.stringify(h.sent));
    const last = h.sent.at(-1)!;
    assert.equal(last.kind, "allCompleted");
    assert.equal(last.body, "Completed · 20/20");
    assert.deepEqual(kinds(h.sent), ["newCard", "allCompleted"]);
    assert.equal(h.clock.pending, 0);
  });

  test("beyond the global cap, the rest coalesce into ONE summary at the window end", () => {
    const h = harness();
    for (const k of ["a", "b", "c", "d", "e", "f"])
      h.policy.observe(card(h, { key: `agent:main:${k}`, rev: 1, steps: "ci", at: NOON - HOUR }));
    const step = (k: string, rev: number, steps: string, paused = false): void =>
      h.policy.observe(card(h, { key: `agent:main:${k}`, rev, steps, paused }));
    step("a", 2, "cc");
    step("b", 2, "cc");
    h.clock.advance(10_000);
    step("c", 2, "cc");
    h.clock.advance(10_000);
    step("d", 2, "cc");
    step("e", 2, "cc");
    step("f", 2, "ci", true);
    step("e", 3, "cc"); // a duplicate state: nothing new
    assert.equal(h.sent.length, 3);
    h.clock.advance(39_999);
    assert.equal(h.sent.length, 3);
    h.clock.advance(1);
    assert.equal(h.sent.length, 4);
    assert.deepEqual(h.sent[3], {
      id: h.sent[3]!.id,
      kind: "summary",
      title: "Progress Desk",
      body: "3 updates in 3 sessions: 2 completed, 1 paused",
      card: null,
    });
    h.clock.advance(5 * MIN);
    assert.equal(h.sent.length, 4);
  });

  test("a capped single update goes out as itself when a slot frees", () => {
    const h = harness({ globalMaxPerWindow: 1 });
    h.policy.observe(card(h, { key: "agent:main:a", rev: 1, steps: "p" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "p", title: "Second" }));
    assert.equal(h.sent.length, 1);
    h.clock.advance(MIN);
    assert.deepEqual(
      h.sent.map((n) => [n.kind, n.title, n.card?.sessionKey]),
      [
        ["newCard", "Repair session owner", "agent:main:a"],
        ["newCard", "Second", "agent:main:b"],
      ],
    );
  });

  test("the same kind for the same revision is never told twice", () => {
    const h = harness({ perSessionIntervalMs: 0 });
    h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR }));
    for (let i = 0; i < 3; i++) {
      h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR, paused: true }));
      h.policy.observe(card(h, { rev: 2, steps: "ci", at: NOON - HOUR }));
    }
    assert.deepEqual(kinds(h.sent), ["pausedOrBlocked"]);
  });

  test("a card cleared and started again inside the window is told after its predecessor", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ci", at: NOON - HOUR }));
    h.policy.observe(card(h, { rev: 2, steps: "cc", note: "v1 released" }));
    h.clock.advance(5_000);
    h.policy.observe(card(h, { rev: 3, steps: "cc", note: "v1 released, tagged" })); // edit only
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 1, steps: "ip", note: "v2" }));
    h.policy.observe(card(h, { rev: 2, steps: "ci", note: "v2" }));
    h.clock.advance(2 * MIN);
    assert.deepEqual(bodies(h.sent), ["Completed · 2/2 · v1 released", "Step completed · 1/2 · Now: Step 2 · v2"]);
  });
});

describe("notification policy: settings switches", () => {
  test("each milestone switch silences its kind; the next strongest still speaks", () => {
    const h = harness({ perSessionIntervalMs: 0 });
    h.set(settings({ off: ["newCard", "allCompleted"] }));
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.observe(card(h, { rev: 2, steps: "ci" }));
    h.policy.observe(card(h, { rev: 3, steps: "cc" }));
    assert.deepEqual(kinds(h.sent), ["stepCompleted"]);
    h.set(settings({ off: ["stepCompleted", "pausedOrBlocked", "refreshFailed"] }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cip", paused: true }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 3, steps: "ccc" }));
    assert.deepEqual(kinds(h.sent), ["stepCompleted", "newCard", "allCompleted"]);
  });

  test("enabled: false silences everything, including what was queued; state still advances", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" })); // queued
    h.set(settings({ enabled: false }));
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    h.clock.advance(2 * MIN);
    assert.deepEqual(kinds(h.sent), ["newCard"]);
    h.set(settings());
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    assert.equal(h.sent.length, 1);
  });
});

describe("notification policy: quiet hours and away (N2, N6)", () => {
  const quiet = settings({ quietHours: { enabled: true, start: "22:00", end: "08:00" } });

  test("quiet hours across midnight hold milestones and send one summary at their end", () => {
    const h = harness({}, 100 * DAY + 21 * HOUR + 50 * MIN);
    h.set(quiet);
    for (const k of ["a", "b", "c"]) h.policy.observe(card(h, { key: `agent:main:${k}`, rev: 1, steps: "ip", at: 0 }));
    h.policy.observe(card(h, { key: "agent:main:a", rev: 2, steps: "ci" }));
    assert.equal(h.sent.length, 1); // 21:51, before quiet hours
    h.clock.advance(20 * MIN); // 22:10
    h.policy.observe(card(h, { key: "agent:main:a", rev: 3, steps: "cc" }));
    h.clock.advance(3 * HOUR); // 01:10
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cc" }));
    h.policy.observe(card(h, { key: "agent:main:c", rev: 2, steps: "ip", paused: true }));
    h.clock.advance(6 * HOUR + 49 * MIN); // 07:59
    assert.equal(h.sent.length, 1);
    h.clock.advance(MIN); // 08:00
    assert.equal(h.sent.length, 2);
    assert.equal(h.clock.now % DAY, 8 * HOUR);
    assert.deepEqual(h.sent[1], {
      id: h.sent[1]!.id,
      kind: "summary",
      title: "Progress Desk",
      body: "During quiet hours: 2 cards completed, 1 paused",
      card: null,
    });
    assert.equal(h.clock.pending, 0);
  });

  test("a quiet-hours summary of one card keeps the card so a click opens it", () => {
    const h = harness({}, 100 * DAY + 23 * HOUR);
    h.set(quiet);
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: 0 }));
    h.policy.observe(card(h, { rev: 2, steps: "cc" }));
    h.clock.advance(9 * HOUR);
    assert.deepEqual(
      h.sent.map((n) => [n.kind, n.title, n.body, n.card?.sessionKey]),
      [["summary", "Repair session owner", "During quiet hours: Completed · 2/2", "agent:main:a"]],
    );
  });

  test("back after 5 minutes or more: one away summary instead of a backlog", () => {
    const h = harness();
    for (const k of ["a", "b", "c"]) h.policy.observe(card(h, { key: `agent:main:${k}`, rev: 1, steps: "ip", at: 0 }));
    h.policy.away();
    h.clock.advance(MIN);
    h.policy.observe(card(h, { key: "agent:main:a", rev: 2, steps: "ci" }));
    h.policy.observe(card(h, { key: "agent:main:a", rev: 3, steps: "cc" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cc" }));
    h.policy.observe(card(h, { key: "agent:main:c", rev: 2, steps: "ip", outcome: "killed" }));
    h.clock.advance(4 * MIN);
    assert.equal(h.sent.length, 0);
    h.policy.back();
    assert.deepEqual(bodies(h.sent), ["While you were away: 2 cards completed, 1 stopped"]);
    h.clock.advance(5 * MIN);
    assert.equal(h.sent.length, 1);
  });

  test("back after nothing changed sends nothing", () => {
    const h = harness();
    h.policy.away();
    h.clock.advance(HOUR);
    h.policy.back();
    assert.equal(h.sent.length, 0);
  });

  test("back after a short absence delivers the held milestones normally, throttled", () => {
    const h = harness();
    for (const k of ["a", "b"]) h.policy.observe(card(h, { key: `agent:main:${k}`, rev: 1, steps: "ipp", at: 0 }));
    h.policy.away();
    h.policy.observe(card(h, { key: "agent:main:a", rev: 2, steps: "cip" }));
    h.policy.observe(card(h, { key: "agent:main:a", rev: 3, steps: "cci" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "ipp", paused: true }));
    h.clock.advance(4 * MIN + 59_999);
    h.policy.back();
    assert.deepEqual(bodies(h.sent), ["2 steps completed · 2/3 · Now: Step 3", "Paused · 0/3 · At: Step 1"]);
  });
});

describe("notification policy: focus and own actions (N2, N3)", () => {
  test("a card visible in a focused window is not notified, nor held for later", () => {
    const h = harness();
    h.visible.add("agent:main:a");
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.away();
    h.policy.observe(card(h, { rev: 2, steps: "cc" }));
    h.clock.advance(10 * MIN);
    h.policy.back();
    h.visible.clear();
    h.clock.advance(10 * MIN);
    assert.equal(h.sent.length, 0);
  });

  test("a queued notice is dropped if its card is in view when it falls due", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.visible.add("agent:main:a");
    h.clock.advance(MIN);
    assert.deepEqual(kinds(h.sent), ["newCard"]);
  });

  test("own dismiss or refresh: that card's milestones in the grace time are silent, queued ones dropped", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ci", at: 0 }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ci", at: 0 }));
    h.policy.observe(card(h, { rev: 2, steps: "cc" })); // told
    h.policy.observe(card(h, { rev: 3, steps: "cc", note: "tagged" }));
    h.policy.noteOwnAction(ref());
    h.policy.observe(cleared(h)); // the dismiss
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cc" })); // another card: told
    h.policy.noteOwnAction(ref("agent:main:b"));
    h.clock.advance(5_000);
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip", note: "refreshed" })); // the refresh answer
    h.clock.advance(2 * MIN);
    assert.deepEqual(
      h.sent.map((n) => [n.kind, n.card?.sessionKey]),
      [
        ["allCompleted", "agent:main:a"],
        ["allCompleted", "agent:main:b"],
      ],
    );
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "ci" })); // after the grace time
    assert.deepEqual(kinds(h.sent), ["allCompleted", "allCompleted", "stepCompleted"]);
  });

  test("a refresh that fails right after the click is told unless the card is in view", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: 0 }));
    h.policy.noteOwnAction(ref());
    h.visible.add("agent:main:a");
    h.policy.observe(
      card(h, {
        rev: 1,
        steps: "ip",
        at: 0,
        refresh: { status: "failed", key: "k", error: "e", code: null, terminal: true, at: h.clock.now },
      }),
    );
    assert.equal(h.sent.length, 0);
    h.visible.clear();
    h.clock.advance(1000);
    h.policy.observe(
      card(h, {
        rev: 1,
        steps: "ip",
        at: 0,
        refresh: { status: "failed", key: "k", error: "e", code: null, terminal: true, at: h.clock.now },
      }),
    );
    assert.deepEqual(bodies(h.sent), ["Refresh failed · 0/2 · Now: Step 1"]);
  });
});

describe("notification policy: text (N5)", () => {
  test("titles carry the Gateway label only when there are several Gateways", () => {
    const h = harness({ perSessionIntervalMs: 0 });
    h.policy.observe(card(h, { rev: 1, steps: "p" }));
    h.gateways.count = 2;
    h.policy.observe(card(h, { key: "agent:main:b", gw: "gw2", rev: 1, steps: "p", title: "Deploy" }));
    h.policy.observe(card(h, { key: "agent:main:c", gw: "gw9", rev: 1, steps: "p", title: "Unlabelled" }));
    assert.deepEqual(
      h.sent.map((n) => n.title),
      ["Repair session owner", "Home · Deploy", "Unlabelled"],
    );
    assert.deepEqual(h.sent[1]!.card, ref("agent:main:b", "gw2"));
  });

  test("long titles and bodies are cut with the shared rule", () => {
    const h = harness();
    const title = "Migrate every customer invoice from the legacy billing system to the new ledger service";
    const note = "Reconciling " + "thousands of historical invoice line items against ledger entries ".repeat(4);
    h.policy.observe(
      card(h, { rev: 1, steps: "ip", names: ["Export invoices from the legacy system in monthly batches", "b"], title, note }),
    );
    const [n] = h.sent;
    assert.ok(n);
    assert.equal(n.title, "Migrate every customer invoice from the legacy…");
    assert.ok([...n.title].length <= TITLE_BUDGET);
    assert.ok([...n.body].length <= BODY_BUDGET, n.body);
    assert.ok(n.body.endsWith("…"), n.body);
    assert.ok(n.body.startsWith("Started · 0/2 · Now: Export invoices from the legacy system in monthly batches · Reconciling"), n.body);
  });

  test("the note line is the first readable line, plain", () => {
    assert.equal(noteLine(null), null);
    assert.equal(noteLine("  \n\n"), null);
    assert.equal(
      noteLine('<progress value="3" max="10" aria-label="PRs"></progress>\n\n# **Reviewing** `PR 4` of [the list](https://x.test/l)'),
      "Reviewing PR 4 of the list",
    );
    assert.equal(
      noteLine("```sh\nrm -rf build\n```\n- [x] __Built__ the *app* with snake_case_name"),
      "Built the app with snake_case_name",
    );
    assert.equal(noteLine("> ## Quoted heading ##"), "Quoted heading");
    assert.equal(noteLine("---\n| Job | State |\n|---|---|\n| a | b |"), "Job · State");
    assert.equal(
      noteLine("Fish &amp; chips &lt;3 ![logo](x.png) <b>bold</b> <https://x.test/a>"),
      "Fish & chips <3 logo bold https://x.test/a",
    );
    assert.equal(noteLine("1. ~~Old~~ new \\*literal\\*"), "Old new *literal*");
    assert.equal(noteLine("**unbalanced bold"), "unbalanced bold");
  });

  test("an empty note is omitted and the body never carries error text", () => {
    const h = harness();
    h.policy.observe({
      ...card(h, { rev: 1, steps: "ci", note: "<progress value='1' max='2'></progress>" }),
      error: { code: "E", message: "secret stack trace" },
    });
    assert.deepEqual(bodies(h.sent), ["Started · 1/2 · Now: Step 2"]);
  });
});

describe("notification policy: lifecycle", () => {
  test("dispose() cancels every timer and nothing more is delivered", () => {
    const h = harness();
    h.set(settings({ quietHours: { enabled: true, start: "13:00", end: "14:00" } }));
    for (const k of ["a", "b", "c", "d", "e"]) h.policy.observe(card(h, { key: `agent:main:${k}`, rev: 1, steps: "ip" })); // 3 + capped
    h.policy.observe(card(h, { key: "agent:main:a", rev: 2, steps: "ci" })); // session queue
    h.clock.advance(HOUR + MIN); // 13:01: quiet
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cc" })); // held until 14:00
    assert.ok(h.clock.pending > 0);
    const before = h.sent.length;
    h.policy.dispose();
    assert.equal(h.clock.pending, 0);
    h.policy.observe(card(h, { key: "agent:main:z", rev: 1, steps: "p" }));
    h.policy.away();
    h.policy.back();
    h.clock.advance(DAY);
    assert.equal(h.sent.length, before);
  });
});

describe("notification policy: no progress", () => {
  test("a polling flag is one notice with the exact text, opening the card", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ci", at: NOON - HOUR }));
    h.policy.observeActivity(activity(h, polling(6)));
    assert.deepEqual(h.sent, [
      {
        id: h.sent[0]!.id,
        kind: "noProgress",
        title: "Repair session owner",
        body: "No progress · Polling the same command 6×",
        card: ref(),
      },
    ]);
  });

  test("the same flag persisting is still one notice; a kind change is a new episode, coalesced", () => {
    const h = harness();
    h.policy.observeActivity(activity(h, polling(5)));
    for (let i = 6; i <= 9; i++) {
      h.clock.advance(10_000);
      h.policy.observeActivity(activity(h, polling(i)));
    }
    h.clock.advance(5 * MIN);
    assert.deepEqual(bodies(h.sent), ["No progress · Polling the same command 5×"]);
    h.policy.observeActivity(activity(h, silent(10)));
    h.clock.advance(5 * MIN);
    assert.deepEqual(bodies(h.sent), ["No progress · Polling the same command 5×", "No progress · No new activity for 10 min"]);
    h.policy.observeActivity(activity(h, silent(15)));
    h.clock.advance(5 * MIN);
    assert.equal(h.sent.length, 2);
    assert.equal(h.clock.pending, 0);
  });

  test("cleared and raised again after the session interval is a second notice", () => {
    const h = harness();
    h.policy.observeActivity(activity(h, polling(5)));
    h.clock.advance(30_000);
    h.policy.observeActivity(activity(h, null));
    h.clock.advance(30_000);
    h.policy.observeActivity(activity(h, polling(7, h.clock.now)));
    assert.deepEqual(bodies(h.sent), ["No progress · Polling the same command 5×", "No progress · Polling the same command 7×"]);
    assert.deepEqual(kinds(h.sent), ["noProgress", "noProgress"]);
  });

  test("raised again inside the interval waits; cleared before it falls due, nothing is delivered", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip" })); // told: the session's slot is used
    h.clock.advance(10_000);
    h.policy.observeActivity(activity(h, polling(5)));
    assert.equal(h.sent.length, 1);
    h.clock.advance(20_000);
    h.policy.observeActivity(activity(h, null));
    h.clock.advance(5 * MIN);
    assert.deepEqual(kinds(h.sent), ["newCard"]);
    assert.equal(h.clock.pending, 0);
    // Still up when the window ends: told then, with the flag's latest text.
    h.policy.observe(card(h, { rev: 2, steps: "ci" })); // told: the slot is used again
    h.policy.observeActivity(activity(h, polling(5)));
    h.policy.observeActivity(activity(h, polling(8)));
    assert.equal(h.sent.length, 2);
    h.clock.advance(MIN);
    assert.deepEqual(bodies(h.sent), [
      "Started · 0/2 · Now: Step 1",
      "Step completed · 1/2 · Now: Step 2",
      "No progress · Polling the same command 8×",
    ]);
  });

  test("switched off, or all notifications off: nothing", () => {
    const h = harness();
    h.set(settings({ off: ["noProgress"] }));
    h.policy.observeActivity(activity(h, polling(5)));
    h.set(settings({ enabled: false }));
    h.policy.observeActivity(activity(h, silent(10), "agent:main:b"));
    h.set(settings());
    h.policy.observeActivity(activity(h, polling(6)));
    h.policy.observeActivity(activity(h, silent(12), "agent:main:b"));
    h.clock.advance(5 * MIN);
    assert.deepEqual(h.sent, []);
  });

  test("switching it off silences one already queued", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.observeActivity(activity(h, polling(5)));
    h.set(settings({ off: ["noProgress"] }));
    h.clock.advance(5 * MIN);
    assert.deepEqual(kinds(h.sent), ["newCard"]);
  });

  test("a session visible in a focused window is not notified", () => {
    const h = harness();
    h.visible.add("agent:main:a");
    h.policy.observeActivity(activity(h, polling(5)));
    h.visible.clear();
    h.clock.advance(5 * MIN);
    h.policy.observeActivity(activity(h, polling(6)));
    h.clock.advance(5 * MIN);
    assert.deepEqual(h.sent, []);
  });

  test("while away it is held and counted in the away summary", () => {
    const h = harness();
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip", at: 0, title: "Deploy" }));
    h.policy.away();
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cc" }));
    h.policy.observeActivity(activity(h, polling(5)));
    h.policy.observeActivity(activity(h, silent(10), "agent:main:c"));
    h.policy.observeActivity(activity(h, null, "agent:main:c")); // no longer true: dropped
    h.clock.advance(10 * MIN);
    assert.equal(h.sent.length, 0);
    h.policy.back();
    assert.deepEqual(
      h.sent.map((n) => [n.kind, n.title, n.body, n.card]),
      [["summary", "Progress Desk", "While you were away: 1 card completed, 1 stalled", null]],
    );
  });

  test("a stalled session without a known card is titled from its key", () => {
    const h = harness();
    h.policy.observeActivity(activity(h, silent(12), "agent:ops:dashboard:3f0c1a2b-1111-2222-3333-444444444444", "gw2"));
    h.gateways.count = 2;
    h.policy.observeActivity(activity(h, polling(6), "agent:main:x"));
    assert.deepEqual(
      h.sent.map((n) => [n.kind, n.title, n.body, n.card]),
      [
        [
          "noProgress",
          "ops · dashboard:3f0c1a2b",
          "No progress · No new activity for 12 min",
          ref("agent:ops:dashboard:3f0c1a2b-1111-2222-3333-444444444444", "gw2"),
        ],
        ["noProgress", "Work · x", "No progress · Polling the same command 6×", ref("agent:main:x")],
      ],
    );
  });

  test("a stall outranks a step in one coalesced notice, and the card's text stays with the card", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.policy.observeActivity(activity(h, polling(5)));
    h.clock.advance(MIN);
    assert.deepEqual(bodies(h.sent), ["Started · 0/3 · Now: Step 1", "No progress · Polling the same command 5×"]);
    h.policy.observeActivity(activity(h, null));
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    h.policy.observeActivity(activity(h, silent(10)));
    h.policy.observeActivity(activity(h, null));
    h.clock.advance(MIN);
    assert.deepEqual(bodies(h.sent).slice(2), ["Step completed · 2/3 · Now: Step 3"]);
  });
});
