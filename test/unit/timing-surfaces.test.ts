// Issue 12 on the surfaces outside the pages: `watch --json` card lines carry exactly the
// documented `timing` object, the terminal block says "running 12 min", and notifications
// say how long a step or the whole plan took when that is known.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cardLine, statusBlock } from "../../main/cli/watch-format.ts";
import { CardHistory } from "../../common/card-history.ts";
import { deriveTiming } from "../../common/card-timing.ts";
import { deriveCard } from "../../common/card.ts";
import { NotificationPolicy } from "../../main/core/notifications/policy.ts";
import type { Notice } from "../../main/core/notifications/notice.ts";
import type { CardEntry, DeskSnapshot, StepStatus } from "../../common/model.ts";
import { FakeClock } from "./fake-clock.ts";
import { notificationSettings } from "./notification-settings.ts";

const MIN = 60_000;
const T0 = 1_800_000_000_000;
const KEY = "agent:main:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";
const letters: Record<string, StepStatus> = { p: "pending", i: "in_progress", c: "completed" };

/** As if a run were writing the card: an unfinished card is active, not paused. */
const live = (d: NonNullable<CardEntry["derived"]>) => (d.state === "paused" ? { ...d, state: "active" as const } : d);

/** Plays (revision, statuses, minute) through a history, as the desk does, and returns the last entry with its timing. */
function played(rows: [number | null, string, number][], nowMin: number): CardEntry {
  const history = new CardHistory();
  let last: CardEntry | null = null;
  for (const [revision, statuses, m] of rows) {
    const at = T0 + m * MIN;
    const card =
      revision === null
        ? null
        : {
            sessionKey: KEY,
            revision,
            updatedAt: at,
            markdown: null,
            steps: [...statuses].map((l, i) => ({ step: `Step ${i + 1}`, status: letters[l]! })),
          };
    const e: CardEntry = {
      gatewayId: "gw",
      sessionKey: KEY,
      agentId: null,
      title: "Deploy",
      card,
      derived: card ? live(deriveCard(card, null)) : null,
      freshness: "live",
      confirmedAt: at,
      error: null,
      hidden: false,
      updateRequired: false,
      refresh: null,
    };
    history.observe(e);
    const h = history.current("gw", KEY, null);
    last = { ...e, timing: h && e.derived ? deriveTiming(h, e.derived.state, T0 + nowMin * MIN) : null };
  }
  return last!;
}

const snapshot = (e: CardEntry): DeskSnapshot => ({
  gateways: [
    {
      id: "gw",
      label: "Local",
      color: null,
      url: "ws://127.0.0.1:1",
      connection: { state: "connected", since: T0, serverVersion: null, scopes: [], limited: false, advice: "" },
      sessions: [],
      cards: [e],
      boards: { widgets: [] } as never,
      activity: [],
      needs: { answering: "off", advice: null, entries: [] },
      cardsKnown: true,
    },
  ],
});

describe("watch --json timing", () => {
  test("a card line gains exactly currentStepSince, lastChangeAt, steps[{step,startedAt,finishedAt}] and estimate", () => {
    const e = played(
      [
        [null, "", -1],
        [1, "ippp", 0],
        [2, "cipp", 10],
        [3, "ccip", 30],
      ],
      35,
    );
    const line = cardLine(e);
    assert.deepEqual(Object.keys(line.timing), ["currentStepSince", "lastChangeAt", "steps", "estimate"]);
    assert.deepEqual(line.timing, {
      currentStepSince: T0 + 30 * MIN,
      lastChangeAt: T0 + 30 * MIN,
      steps: [
        { step: "Step 1", startedAt: T0, finishedAt: T0 + 10 * MIN },
        { step: "Step 2", startedAt: T0 + 10 * MIN, finishedAt: T0 + 30 * MIN },
        { step: "Step 3", startedAt: T0 + 30 * MIN, finishedAt: null },
        { step: "Step 4", startedAt: null, finishedAt: null },
      ],
      estimate: { minMs: 15 * MIN, maxMs: 35 * MIN },
    });
    // Every field that was there before is still there.
    for (const k of [
      "type",
      "gateway",
      "sessionKey",
      "agentId",
      "revision",
      "updatedAt",
      "steps",
      "markdown",
      "derived",
      "title",
      "hidden",
    ])
      assert.ok(k in line, k);
  });

  test("a cleared card's line has empty timing", () => {
    const e = played(
      [
        [null, "", -1],
        [1, "ip", 0],
        [null, "", 3],
      ],
      4,
    );
    assert.deepEqual(cardLine(e).timing, { currentStepSince: null, lastChangeAt: null, steps: [], estimate: null });
  });

  test("a card hidden from this connection shows no timing either", () => {
    const e = {
      ...played(
        [
          [null, "", -1],
          [1, "ippp", 0],
          [2, "cipp", 10],
        ],
        12,
      ),
      hidden: true,
    };
    assert.deepEqual(cardLine(e).timing, { currentStepSince: null, lastChangeAt: null, steps: [], estimate: null });
  });
});

describe("watch terminal block", () => {
  test("says how long the current step has been running and what is left", () => {
    const e = played(
      [
        [null, "", -1],
        [1, "ippp", 0],
        [2, "cipp", 10],
        [3, "ccip", 30],
      ],
      42,
    );
    const lines = statusBlock(snapshot(e), 200, 12, T0 + 42 * MIN);
    assert.match(lines[1]!, /working · running 12 min · about 10–28 min left/);
  });

  test("no running time when the step's start was not seen", () => {
    const e = played([[1, "ippp", 0]], 12);
    assert.doesNotMatch(statusBlock(snapshot(e), 200, 12, T0 + 12 * MIN)[1]!, /running/);
  });
});

describe("notifications with durations", () => {
  function policy(): { clock: FakeClock; sent: Notice[]; p: NotificationPolicy } {
    const clock = new FakeClock(T0 - 2 * MIN);
    const sent: Notice[] = [];
    const p = new NotificationPolicy({
      now: () => clock.now,
      schedule: clock.schedule,
      deliver: (n) => sent.push(n),
      settings: () => notificationSettings(),
      perSessionIntervalMs: 0,
    });
    return { clock, sent, p };
  }

  test('"Step done in 12 min" when the step was seen starting and finishing', () => {
    const { clock, sent, p } = policy();
    const rows: [number | null, string, number][] = [
      [null, "", -1],
      [1, "ipp", 0],
      [2, "cip", 12],
    ];
    for (let i = 2; i <= rows.length; i += 1) {
      clock.now = T0 + rows[i - 1]![2] * MIN;
      p.observe(played(rows.slice(0, i), rows[i - 1]![2]));
    }
    assert.match(sent.at(-1)!.body, /^Step done in 12 min · 1\/3/);
  });

  test('"Plan complete in 1 h 4 min" when the whole plan was watched', () => {
    const { clock, sent, p } = policy();
    const rows: [number | null, string, number][] = [
      [null, "", -1],
      [1, "ip", 0],
      [2, "ci", 10],
      [3, "cc", 64],
    ];
    for (let i = 2; i <= rows.length; i += 1) {
      clock.now = T0 + rows[i - 1]![2] * MIN;
      p.observe(played(rows.slice(0, i), rows[i - 1]![2]));
    }
    assert.match(sent.at(-1)!.body, /^Plan complete in 1 h 4 min · 2\/2/);
  });

  test("the plain wording for a step of seconds (not worth the words)", () => {
    const { clock, sent, p } = policy();
    const rows: [number | null, string, number][] = [
      [null, "", -1],
      [1, "ipp", 0],
      [2, "cip", 0.5],
    ];
    for (let i = 2; i <= rows.length; i += 1) {
      clock.now = T0 + rows[i - 1]![2] * MIN;
      p.observe(played(rows.slice(0, i), rows[i - 1]![2]));
    }
    assert.match(sent.at(-1)!.body, /^Step completed · 1\/3/);
  });

  test("the plain wording when the time is not known", () => {
    const { clock, sent, p } = policy();
    const rows: [number | null, string, number][] = [
      [1, "ipp", 0],
      [2, "cip", 12],
    ];
    for (let i = 1; i <= rows.length; i += 1) {
      clock.now = T0 + rows[i - 1]![2] * MIN;
      p.observe(played(rows.slice(0, i), rows[i - 1]![2]));
    }
    assert.match(sent.at(-1)!.body, /^Step completed · 1\/3/);
  });
});
