// N1–N6, rule by rule: which change is a milestone and which is not (near misses included),
// what is still true when a queued notice goes out, quiet-hour windows and their end, and the
// exact words of single notices and summaries. Written from the mutation run's survivors; the
// scenario tests stay in notification-policy.test.ts. Fake clock and scheduler (named as such).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import type { Milestone } from "../../common/contract.ts";
import { NotificationPolicy, type PolicyOptions } from "../../main/core/notifications/policy.ts";
import type { Notice, NotificationSettings } from "../../main/core/notifications/notice.ts";
import type { CardEntry, CardState, RefreshState, RunOutcome, StepStatus } from "../../common/model.ts";
import { FakeClock } from "./fake-clock.ts";
import { notificationSettings } from "./notification-settings.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOON = 100 * DAY + 12 * HOUR;

type Quiet = NotificationSettings["quietHours"];
function settings(quietHours?: Quiet, off: Milestone[] = []): NotificationSettings {
  return notificationSettings({ off, ...(quietHours ? { quietHours } : {}) });
}

type Harness = { clock: FakeClock; policy: NotificationPolicy; sent: Notice[]; set: (s: NotificationSettings) => void };

function harness(opts: Partial<PolicyOptions> = {}, start = NOON, s = settings()): Harness {
  const clock = new FakeClock(start);
  const sent: Notice[] = [];
  let current = s;
  const policy = new NotificationPolicy({
    now: () => clock.now,
    schedule: clock.schedule,
    deliver: (n) => sent.push(n),
    settings: () => current,
    minutesOfDay: (ms) => (((ms % DAY) + DAY) % DAY) / MIN,
    ...opts,
  });
  return { clock, policy, sent, set: (x) => (current = x) };
}

type Spec = {
  key?: string;
  rev: number;
  steps?: string;
  note?: string | null;
  at?: number;
  paused?: boolean;
  outcome?: RunOutcome | null;
  refresh?: RefreshState | null;
};
const STATUS: Record<string, StepStatus> = { c: "completed", i: "in_progress", p: "pending" };

function card(h: Harness, s: Spec): CardEntry {
  const steps = [...(s.steps ?? "")].map((code, i) => ({ step: `Step ${i + 1}`, status: STATUS[code]! }));
  const completed = steps.filter((x) => x.status === "completed").length;
  const total = steps.length;
  const state: CardState = total === 0 ? "note" : completed === total ? "complete" : s.paused || s.outcome ? "paused" : "active";
  const key = s.key ?? "agent:main:a";
  return {
    gatewayId: "gw1",
    sessionKey: key,
    agentId: null,
    title: `Title ${key.slice(-1)}`,
    card: { sessionKey: key, revision: s.rev, updatedAt: s.at ?? h.clock.now, markdown: s.note ?? null, steps },
    derived: { completed, total, current: null, state, outcome: s.outcome ?? null },
    freshness: "live",
    confirmedAt: h.clock.now,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: s.refresh ?? null,
  };
}

const cleared = (h: Harness, key = "agent:main:a"): CardEntry => ({ ...card(h, { key, rev: 1 }), card: null, derived: null });
const failedRefresh = (at: number, status: "failed" | "timed_out" = "failed"): RefreshState =>
  ({ status, key: `k${at}`, error: "x", code: "X", terminal: false, at }) as RefreshState;
const told = (h: Harness): string[] => h.sent.map((n) => `${n.kind}: ${n.body}`);
/** A card known from before the policy started (no milestone for it). */
const baseline = (h: Harness, s: Spec): void => h.policy.observe(card(h, { at: NOON - HOUR, ...s }));

describe("milestones: what counts and what does not", () => {
  test("a new card that is already complete or already stopped is told as that", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "cc" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ci", outcome: "killed" }));
    h.policy.observe(card(h, { key: "agent:main:c", rev: 1, steps: "ci", outcome: "timeout" }));
    assert.deepEqual(told(h), [
      "allCompleted: Completed · 2/2",
      "pausedOrBlocked: Run stopped · 1/2 · At: Step 2",
      "pausedOrBlocked: Run timed out · 1/2 · At: Step 2",
    ]);
  });

  test("a new revision that changes only the note is nothing; a later outcome on a paused card is", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "cip" });
    h.policy.observe(card(h, { rev: 2, steps: "cip", note: "more detail" }));
    assert.deepEqual(told(h), []);
    h.policy.observe(card(h, { rev: 3, steps: "cip", paused: true }));
    h.clock.advance(2 * MIN);
    h.policy.observe(card(h, { rev: 4, steps: "cip", outcome: "failed" }));
    h.clock.advance(2 * MIN);
    h.policy.observe(card(h, { rev: 5, steps: "cip", outcome: "failed", note: "still failed" }));
    assert.deepEqual(told(h), ["pausedOrBlocked: Paused · 1/3 · At: Step 2", "pausedOrBlocked: Run failed · 1/3 · At: Step 2"]);
  });

  test("a card back after a clear: the same card is nothing, another revision written at the same time is new", () => {
    const h = harness();
    const at = NOON - HOUR;
    baseline(h, { rev: 3, steps: "ip", at });
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 3, steps: "ip", at }));
    assert.deepEqual(told(h), [], "the cleared card again");
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 4, steps: "ip", at }));
    assert.deepEqual(told(h), ["newCard: Started · 0/2 · Now: Step 1"]);
  });

  test("a card back after a clear but written before the last one seen is nothing", () => {
    const h = harness();
    baseline(h, { rev: 3, steps: "ip", at: NOON - HOUR });
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR - MIN }));
    assert.deepEqual(told(h), []);
  });

  test("a failed refresh from before the policy started is not told; a pending one never is", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "ip", refresh: failedRefresh(NOON - HOUR) });
    h.policy.observe(
      card(h, { rev: 1, steps: "ip", at: NOON - HOUR, refresh: { ...failedRefresh(NOON), status: "pending" } as RefreshState }),
    );
    assert.deepEqual(told(h), []);
    h.policy.observe(card(h, { rev: 1, steps: "ip", at: NOON - HOUR, refresh: failedRefresh(NOON, "timed_out") }));
    assert.deepEqual(told(h), ["refreshFailed: Refresh timed out · 0/2 · Now: Step 1"]);
  });
});

describe("queued notices: only what is still true goes out", () => {
  /** Session a has just been told something, so the next milestone waits for the interval. */
  const busy = (): Harness => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    assert.equal(h.sent.length, 1);
    return h;
  };

  test("completion undone by an added step is dropped", () => {
    const h = busy();
    h.policy.observe(card(h, { rev: 2, steps: "ccc" }));
    h.policy.observe(card(h, { rev: 3, steps: "cccp" }));
    h.clock.advance(2 * MIN);
    assert.equal(h.sent.length, 1, told(h).join(" | "));
  });

  test("a pause followed by a resume is dropped", () => {
    const h = busy();
    h.policy.observe(card(h, { rev: 1, steps: "ipp", paused: true }));
    h.policy.observe(card(h, { rev: 2, steps: "ipp" }));
    h.clock.advance(2 * MIN);
    assert.equal(h.sent.length, 1, told(h).join(" | "));
  });

  test("a step or a failed refresh whose card was cleared is dropped", () => {
    const h = busy();
    h.policy.observe(card(h, { rev: 2, steps: "cip", refresh: failedRefresh(NOON) }));
    h.policy.observe(cleared(h));
    h.clock.advance(2 * MIN);
    assert.equal(h.sent.length, 1, told(h).join(" | "));
  });

  test("a failed refresh that was followed by a good one is dropped", () => {
    const h = busy();
    h.policy.observe(card(h, { rev: 1, steps: "ipp", refresh: failedRefresh(NOON) }));
    h.policy.observe(card(h, { rev: 1, steps: "ipp", refresh: null }));
    h.clock.advance(2 * MIN);
    assert.equal(h.sent.length, 1, told(h).join(" | "));
  });

  test("several steps while waiting are counted from before the first one", () => {
    const h = busy();
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    h.clock.advance(2 * MIN);
    assert.deepEqual(told(h).slice(1), ["stepCompleted: 2 steps completed · 2/3 · Now: Step 3"]);
  });
});

describe("summaries: labels, order and counts", () => {
  test("beyond the global cap, one summary names each kind, strongest first, with updates and sessions", () => {
    const h = harness({ globalMaxPerWindow: 1 });
    for (const k of "bcdef") baseline(h, { key: `agent:main:${k}`, rev: 1, steps: "ip" });
    h.policy.observe(card(h, { key: "agent:main:x", rev: 1, steps: "ip" })); // takes the one slot
    h.policy.observe(card(h, { key: "agent:main:a", rev: 1, steps: "ip" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "ci" }));
    h.policy.observe(card(h, { key: "agent:main:g", rev: 1, steps: "ip" }));
    h.policy.observe(card(h, { key: "agent:main:c", rev: 1, steps: "ip", at: NOON - HOUR, refresh: failedRefresh(NOON) }));
    h.policy.observe(card(h, { key: "agent:main:d", rev: 2, steps: "ip", paused: true }));
    h.policy.observe(card(h, { key: "agent:main:e", rev: 2, steps: "ip", outcome: "killed" }));
    h.policy.observe(card(h, { key: "agent:main:f", rev: 2, steps: "cc" }));
    h.clock.advance(2 * MIN);
    assert.equal(h.sent.length, 2, told(h).join(" | "));
    assert.equal(h.sent[1]!.kind, "summary");
    assert.equal(
      h.sent[1]!.body,
      "7 updates in 7 sessions: 1 completed, 1 paused, 1 stopped, 1 failed to refresh, 1 progressed, 2 started",
    );
    assert.equal(h.sent[1]!.title, "Progress Desk");
    assert.equal(h.sent[1]!.card, null);
  });
});

describe("quiet hours", () => {
  const at = (hh: number, mm: number): number => 100 * DAY + hh * HOUR + mm * MIN;
  const quietAt = (q: Quiet, time: number): boolean => {
    const h = harness({}, time, settings(q));
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    return h.sent.length === 0;
  };

  test("a window inside the day holds from its start up to (not including) its end", () => {
    const q = { enabled: true, start: "13:00", end: "14:00" };
    assert.equal(quietAt(q, at(12, 59)), false);
    assert.equal(quietAt(q, at(13, 0)), true);
    assert.equal(quietAt(q, at(13, 30)), true);
    assert.equal(quietAt(q, at(14, 0)), false);
    assert.equal(quietAt(q, at(22, 0)), false);
  });

  test("a window over midnight holds late and early, not in between", () => {
    const q = { enabled: true, start: "22:00", end: "08:00" };
    assert.equal(quietAt(q, at(23, 0)), true);
    assert.equal(quietAt(q, at(7, 59)), true);
    assert.equal(quietAt(q, at(8, 0)), false);
    assert.equal(quietAt(q, at(21, 59)), false);
  });

  test("switched off, an empty window or a clock that does not exist means no quiet hours", () => {
    assert.equal(quietAt({ enabled: false, start: "11:00", end: "13:00" }, at(12, 0)), false);
    assert.equal(quietAt({ enabled: true, start: "12:00", end: "12:00" }, at(12, 0)), false);
    assert.equal(quietAt({ enabled: true, start: "24:00", end: "13:00" }, at(12, 0)), false);
    assert.equal(quietAt({ enabled: true, start: "11:00", end: "12:60" }, at(12, 0)), false);
    assert.equal(quietAt({ enabled: true, start: "11:00", end: "x13:00" }, at(12, 0)), false);
    assert.equal(quietAt({ enabled: true, start: "11:00", end: "13:00x" }, at(12, 0)), false);
  });

  test("with the default local clock, what was held goes out as one summary exactly when the window ends", () => {
    const start = new Date(2026, 0, 5, 22, 30, 30, 500).getTime();
    const h = harness({ minutesOfDay: undefined }, start, settings({ enabled: true, start: "22:30", end: "22:31" }));
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    assert.equal(h.sent.length, 0, "held at 22:30:30.5 local");
    h.clock.advance(29_499);
    assert.equal(h.sent.length, 0, "still quiet just before 22:31");
    h.clock.advance(1);
    assert.deepEqual(told(h), ["summary: During quiet hours: Started · 0/2 · Now: Step 1"]);
  });
});

describe("holding: quiet hours switched off, away and back", () => {
  const quietOn = settings({ enabled: true, start: "11:00", end: "13:00" });

  test("held in quiet hours that were then switched off: the next card change sends the quiet summary first", () => {
    const h = harness({}, NOON, quietOn);
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    assert.equal(h.sent.length, 0);
    h.set(settings());
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip" }));
    assert.deepEqual(told(h), ["summary: During quiet hours: Started · 0/2 · Now: Step 1", "newCard: Started · 0/2 · Now: Step 1"]);
  });

  test("the same for a stall flag as the next change", () => {
    const h = harness({}, NOON, quietOn);
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.set(settings());
    h.policy.observeActivity(activity(h, "agent:main:b"));
    assert.deepEqual(told(h), ["summary: During quiet hours: Started · 0/2 · Now: Step 1", "noProgress: No progress · Polling 6×"]);
  });

  test("nothing held: a change while not holding is told alone", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    assert.deepEqual(told(h), ["newCard: Started · 0/2 · Now: Step 1"]);
  });

  test("away long enough gives one away summary; a second away() does not restart the absence", () => {
    const h = harness();
    h.policy.away();
    h.clock.advance(4 * MIN);
    h.policy.away();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    assert.equal(h.sent.length, 0);
    h.clock.advance(2 * MIN);
    h.policy.back();
    assert.deepEqual(told(h), ["summary: While you were away: Started · 0/2 · Now: Step 1"]);
  });

  test("a short absence releases what was held as ordinary notices", () => {
    const h = harness();
    h.policy.away();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.clock.advance(MIN);
    h.policy.back();
    assert.deepEqual(told(h), ["newCard: Started · 0/2 · Now: Step 1"]);
  });

  test("back during quiet hours waits for their end, then sends the quiet summary", () => {
    const h = harness({}, NOON - 2 * HOUR);
    h.policy.away();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.set(quietOn);
    h.clock.advance(90 * MIN); // 11:30, quiet
    h.policy.back();
    assert.equal(h.sent.length, 0);
    h.clock.advance(90 * MIN - 1);
    assert.equal(h.sent.length, 0, "before 13:00");
    h.clock.advance(1);
    assert.deepEqual(told(h), ["summary: During quiet hours: Started · 0/2 · Now: Step 1"]);
  });

  test("quiet hours that end while away keep the notices held until back", () => {
    const h = harness({}, NOON, quietOn);
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.away();
    h.clock.advance(2 * HOUR);
    assert.equal(h.sent.length, 0);
    h.policy.back();
    assert.deepEqual(told(h), ["summary: While you were away: Started · 0/2 · Now: Step 1"]);
  });

  test("quiet hours that end during a short absence: back sends the quiet summary, not before", () => {
    const h = harness({}, NOON + 58 * MIN, quietOn);
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.away();
    h.clock.advance(2 * MIN); // 13:00: quiet hours over, but away
    assert.equal(h.sent.length, 0);
    h.clock.advance(MIN);
    h.policy.back();
    assert.deepEqual(told(h), ["summary: During quiet hours: Started · 0/2 · Now: Step 1"]);
  });

  test("quiet hours extended before they end: the end timer waits for the new end", () => {
    const h = harness({}, NOON, quietOn);
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.set(settings({ enabled: true, start: "11:00", end: "14:00" }));
    h.clock.advance(HOUR);
    assert.equal(h.sent.length, 0, "13:00, still quiet");
    h.clock.advance(HOUR);
    assert.equal(h.sent.length, 1, "14:00");
  });

  test("back() without away() and a second back() change nothing", () => {
    const h = harness();
    h.policy.back();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.back();
    assert.equal(h.sent.length, 1);
  });
});

/** A session's activity with a polling stall flag (or none). */
function activity(h: Harness, key = "agent:main:a", flagged = true): import("../../common/model.ts").SessionActivity {
  const stall = flagged
    ? { kind: "polling" as const, count: 6, label: "Shell", tool: "exec", since: h.clock.now, text: "Polling 6×" }
    : null;
  return { gatewayId: "gw1", sessionKey: key, live: true, runId: "r1", current: null, lines: [], stall, updatedAt: h.clock.now };
}

describe("switches, own actions and what is in view", () => {
  test("notifications switched off: nothing is told, not even later", () => {
    const h = harness({}, NOON, { ...settings(), enabled: false });
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.observeActivity(activity(h));
    h.set(settings());
    h.clock.advance(HOUR);
    assert.deepEqual(told(h), []);
  });

  test("no-progress switched off: a stall flag is not told", () => {
    const h = harness({}, NOON, settings(undefined, ["noProgress"]));
    h.policy.observeActivity(activity(h));
    assert.deepEqual(told(h), []);
  });

  test("a stall on a known card counts steps from that card and keeps its title", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "cip" });
    h.policy.observeActivity(activity(h));
    assert.deepEqual(told(h), ["noProgress: No progress · Polling 6×"]);
    assert.equal(h.sent[0]!.title, "Title a");
  });

  test("own action: that card is silent for the grace period, then told again; a failed refresh is still told", () => {
    const h = harness({ ownActionGraceMs: 5 * MIN });
    baseline(h, { rev: 1, steps: "ipp" });
    h.policy.noteOwnAction({ gatewayId: "gw1", sessionKey: "agent:main:a", agentId: null });
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    assert.deepEqual(told(h), []);
    h.policy.observe(card(h, { rev: 2, steps: "cip", refresh: failedRefresh(h.clock.now) }));
    assert.deepEqual(told(h), ["refreshFailed: Refresh failed · 1/3 · Now: Step 2"]);
    h.clock.advance(5 * MIN);
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    assert.equal(h.sent.at(-1)!.body, "Step completed · 2/3 · Now: Step 3");
  });

  test("a card in a focused window is not told, and what was queued for it is dropped", () => {
    const inView = new Set<string>();
    const h = harness({ isVisibleInFocusedWindow: (r) => inView.has(r.sessionKey) });
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" })); // queued behind the interval
    inView.add("agent:main:a");
    h.policy.observe(card(h, { rev: 3, steps: "ccp", paused: true }));
    inView.delete("agent:main:a");
    h.clock.advance(5 * MIN);
    assert.deepEqual(told(h), ["newCard: Started · 0/3 · Now: Step 1"]);
  });

  test("a read error or an update-required entry is not a clear: the next revision is progress, not a new card", () => {
    for (const broken of [{ error: { code: "X", message: "boom" } }, { updateRequired: true }]) {
      const h = harness();
      baseline(h, { rev: 1, steps: "ip" });
      h.policy.observe({ ...card(h, { rev: 1 }), card: null, derived: null, ...broken } as CardEntry);
      h.policy.observe(card(h, { rev: 2, steps: "ci" }));
      assert.deepEqual(told(h), ["stepCompleted: Step completed · 1/2 · Now: Step 2"], JSON.stringify(broken));
    }
  });

  test("a real clear makes the next card a new one", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "ip" });
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 2, steps: "ci" }));
    assert.deepEqual(told(h), ["newCard: Started · 1/2 · Now: Step 2"]);
  });

  test("dispose: what was queued is never sent and later changes are ignored", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.policy.dispose();
    h.clock.advance(HOUR);
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip" }));
    h.policy.observeActivity(activity(h));
    assert.equal(h.sent.length, 1);
  });
});

describe("per-session interval", () => {
  test("the interval option is used, and a queued notice that no longer holds gives its slot to the next", () => {
    const h = harness({ perSessionIntervalMs: 10 * MIN });
    h.policy.observe(card(h, { rev: 1, steps: "ippp" }));
    h.clock.advance(5 * MIN);
    h.policy.observe(card(h, { rev: 2, steps: "cipp" }));
    h.clock.advance(4 * MIN);
    assert.equal(h.sent.length, 1, "still inside 10 minutes");
    h.clock.advance(MIN);
    assert.deepEqual(told(h).slice(1), ["stepCompleted: Step completed · 1/4 · Now: Step 2"]);
    h.clock.advance(MIN);
    h.policy.observe(card(h, { rev: 3, steps: "ccip" }));
    h.clock.advance(9 * MIN);
    assert.equal(h.sent.length, 3);
  });
});

describe("titles (N5)", () => {
  test("whitespace in a title is folded to single spaces; a Gateway label leads only with several Gateways", () => {
    let count = 1;
    const h = harness({ gatewayCount: () => count, gatewayLabel: (id) => (id === "gw1" ? "Work\n  site" : null) });
    h.policy.observe({ ...card(h, { rev: 1, steps: "ip" }), title: "Fix \n the\t\tbuild" });
    count = 2;
    h.policy.observe({ ...card(h, { key: "agent:main:b", rev: 1, steps: "ip" }), title: "Second   one" });
    assert.deepEqual(
      h.sent.map((n) => n.title),
      ["Fix the build", "Work site · Second one"],
    );
  });
});

describe("per-session queue: generations, switches and holding at flush time", () => {
  test("at most two generations of one card wait: of three cleared-and-restarted cards the middle one is dropped", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    for (const [rev, note] of [
      [2, "second"],
      [3, "third"],
      [4, "fourth"],
    ] as const) {
      h.clock.advance(1000);
      h.policy.observe(cleared(h));
      h.policy.observe(card(h, { rev, steps: "cc", note }));
    }
    h.clock.advance(5 * MIN);
    assert.deepEqual(told(h), [
      "newCard: Started · 0/2 · Now: Step 1",
      "allCompleted: Completed · 2/2 · second",
      "allCompleted: Completed · 2/2 · fourth",
    ]);
  });

  test("notifications switched off while a notice waits: it is never sent, not even when switched back on", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.set({ ...settings(), enabled: false });
    h.clock.advance(2 * MIN);
    h.set(settings());
    h.clock.advance(5 * MIN);
    assert.equal(h.sent.length, 1);
  });

  test("away when a waiting notice falls due: it is held and comes back in the away summary", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.policy.away();
    h.clock.advance(10 * MIN);
    assert.equal(h.sent.length, 1);
    h.policy.back();
    assert.deepEqual(told(h).slice(1), ["summary: While you were away: Step completed · 1/3 · Now: Step 2"]);
  });
});

describe("stall flags and own actions against what waits", () => {
  test("a stall flag on a card in a focused window is not told, and drops what waited for that card", () => {
    const inView = new Set<string>();
    const h = harness({ isVisibleInFocusedWindow: (r) => inView.has(r.sessionKey) });
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    inView.add("agent:main:a");
    h.policy.observeActivity(activity(h));
    inView.delete("agent:main:a");
    h.clock.advance(5 * MIN);
    assert.deepEqual(told(h), ["newCard: Started · 0/3 · Now: Step 1"]);
  });

  test("a stall flag raised in quiet hours is held for the quiet summary", () => {
    const h = harness({}, NOON, settings({ enabled: true, start: "11:00", end: "13:00" }));
    h.policy.observeActivity(activity(h, "agent:main:z"));
    assert.equal(h.sent.length, 0);
    h.clock.advance(HOUR);
    assert.deepEqual(told(h), ["summary: During quiet hours: No progress · Polling 6×"]);
    assert.equal(h.sent[0]!.title, "z");
  });

  test("an own action drops what waited for that card, and only that card", () => {
    const h = harness();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ipp" }));
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 2, steps: "cip" }));
    h.policy.noteOwnAction({ gatewayId: "gw1", sessionKey: "agent:main:a", agentId: null });
    h.clock.advance(5 * MIN);
    assert.deepEqual(
      h.sent.map((n) => `${n.card?.sessionKey} ${n.kind}`),
      ["agent:main:a newCard", "agent:main:b newCard", "agent:main:b stepCompleted"],
    );
  });

  test("the default grace for an own action is ten seconds", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "ipp" });
    h.policy.noteOwnAction({ gatewayId: "gw1", sessionKey: "agent:main:a", agentId: null });
    h.clock.advance(9_999);
    h.policy.observe(card(h, { rev: 2, steps: "cip" }));
    assert.equal(h.sent.length, 0);
    h.clock.advance(1);
    h.policy.observe(card(h, { rev: 3, steps: "cci" }));
    assert.deepEqual(told(h), ["stepCompleted: Step completed · 2/3 · Now: Step 3"]);
  });
});

test("an own action also drops what is held for that card while away", () => {
  const h = harness();
  h.policy.away();
  h.policy.observe(card(h, { rev: 1, steps: "ip" }));
  h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip" }));
  h.policy.noteOwnAction({ gatewayId: "gw1", sessionKey: "agent:main:a", agentId: null });
  h.clock.advance(10 * MIN);
  h.policy.back();
  assert.deepEqual(
    h.sent.map((n) => `${n.card?.sessionKey} ${n.body}`),
    ["agent:main:b While you were away: Started · 0/2 · Now: Step 1"],
  );
});

describe("summary and cardless text", () => {
  test("an away summary of several cards counts cards in its first group only", () => {
    const h = harness();
    h.policy.away();
    h.policy.observe(card(h, { rev: 1, steps: "ip" }));
    h.policy.observe(card(h, { key: "agent:main:b", rev: 1, steps: "ip" }));
    h.policy.observe(card(h, { key: "agent:main:c", rev: 1, steps: "cc" }));
    h.clock.advance(10 * MIN);
    h.policy.back();
    assert.deepEqual(told(h), ["summary: While you were away: 1 card completed, 2 started"]);
    assert.equal(h.sent[0]!.card, null);
  });

  test("held while away: a start whose card was cleared is dropped, the completed restart is told with its title and link", () => {
    const h = harness();
    h.policy.away();
    h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
    h.policy.observe(cleared(h));
    h.policy.observe(card(h, { rev: 2, steps: "cc" }));
    h.clock.advance(10 * MIN);
    h.policy.back();
    assert.deepEqual(told(h), ["summary: While you were away: Completed · 2/2"]);
    assert.equal(h.sent[0]!.title, "Title a");
    assert.equal(h.sent[0]!.card?.sessionKey, "agent:main:a");
  });

  test("a failed refresh on an entry whose card could not be read is told without card text", () => {
    const h = harness();
    baseline(h, { rev: 1, steps: "ip" });
    const unreadable = {
      ...card(h, { rev: 1 }),
      card: null,
      derived: null,
      error: { code: "X", message: "boom" },
      refresh: failedRefresh(NOON),
    };
    h.policy.observe(unreadable as CardEntry);
    assert.deepEqual(told(h), ["refreshFailed: Refresh failed"]);
  });
});

test("a reset card (lower revision) counts its steps from zero, not from the card it replaced", () => {
  const h = harness();
  h.policy.observe(card(h, { rev: 1, steps: "ipp" }));
  h.policy.observe(card(h, { rev: 5, steps: "ccp" })); // waits behind the interval
  h.clock.advance(1000);
  h.policy.observe(card(h, { rev: 1, steps: "cip" })); // reset: a new card
  h.policy.observe(card(h, { rev: 2, steps: "cci" }));
  h.clock.advance(5 * MIN);
  assert.deepEqual(told(h), [
    "newCard: Started · 0/3 · Now: Step 1",
    "stepCompleted: 2 steps completed · 2/3 · Next: Step 3",
    "stepCompleted: 2 steps completed · 2/3 · Now: Step 3",
  ]);
});
