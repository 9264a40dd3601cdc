// Notifications as the shell wires them (main/electron/setup/notifications.ts): desk changes
// reach the policy, its notices reach the OS, a click opens the card, a refusal goes to the
// attention state, N3 asks what is in front of the person, titles name the Gateway when
// there are several. A FAKE desk and settings (setup-support.ts), FAKE notifications from
// the Electron kit, ManualTimers for the throttle: no Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CardRef } from "../../common/contract.ts";
import type { CardEntry, NeedRef, SessionActivity } from "../../common/model.ts";
import { setupNotifications } from "../../main/electron/setup/notifications.ts";
import { recordOf } from "../../main/core/needs-record.ts";
import { card, entry, need, steps, T0 } from "../renderer/fixtures.ts";
import { ManualTimers } from "../unit/manual-timers.ts";
import { fakeElectron, fakeEvent } from "./fake-electron.ts";
import { FakeDesk, FakeSettings } from "./setup-support.ts";

/** A card written after the shell started (so it is new), in progress at step 2 of 3. */
function started(key: string, gatewayId = "home", revision = 1): CardEntry {
  const c = card({ sessionKey: key, revision, updatedAt: T0 + revision * 1000 });
  return entry({ gatewayId, sessionKey: key, title: `Task ${key}`, card: c });
}

function setup(opts: { supported?: boolean; interval?: number; platform?: NodeJS.Platform; minutesOfDay?: number } = {}) {
  const f = fakeElectron({
    dataDir: "unused",
    env: {},
    notificationsSupported: () => opts.supported ?? true,
    ...(opts.platform ? { platform: opts.platform } : {}),
  });
  const desk = new FakeDesk();
  desk.gateway("home", "Home");
  const settings = new FakeSettings();
  const timers = new ManualTimers();
  const inFront = new Set<string>();
  const refused: [string | null, string][] = [];
  const opened: (CardRef | undefined)[] = [];
  const sessions: CardRef[] = [];
  const needs: NeedRef[] = [];
  const n = setupNotifications({
    ...f.deps,
    desk,
    settings,
    attention: {
      isVisibleInFocusedWindow: (ref) => inFront.has(ref.sessionKey),
      flagRefused: (c, reason) => void refused.push([c?.sessionKey ?? null, reason]),
    },
    openCard: (c) => void opened.push(c),
    openNeed: (ref) => void needs.push(ref),
    openSession: (c) => void sessions.push(c),
    now: () => T0,
    schedule: timers.schedule,
    policy: {
      perSessionIntervalMs: opts.interval ?? 0,
      ...(opts.minutesOfDay !== undefined ? { minutesOfDay: () => opts.minutesOfDay! } : {}),
    },
  });
  const shown = () => f.notifications.map((x) => [x.options.title, x.options.body?.split(" · ")[0]]);
  return { f, desk, settings, timers, inFront, refused, opened, sessions, needs, n, shown };
}

describe("notifications: from a card change to the OS", () => {
  test("a new card is told once, titled by its session; clicking it opens that card", () => {
    const { desk, f, shown, opened } = setup();
    desk.putCard(started("s:a"));
    assert.deepEqual(shown(), [["Task s:a", "Started"]]);
    assert.equal(f.notifications[0]!.shown, true);
    desk.putCard(started("s:a"));
    assert.equal(f.notifications.length, 1, "the same revision is not told again");
    f.notifications[0]!.emit("click", fakeEvent());
    assert.deepEqual(
      opened.map((c) => c?.sessionKey),
      ["s:a"],
    );
  });

  test("macOS: a notice about a session with a Control UI route has Open Session; the button opens it, a click the card", () => {
    const { desk, f, opened, sessions } = setup();
    const routed = "agent:dev:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";
    desk.putCard(started(routed));
    desk.putCard(started("agent:main:main"));
    assert.deepEqual(
      f.notifications.map((x) => x.options.actions),
      [[{ type: "button", text: "Open Session" }], undefined],
    );
    f.notifications[0]!.emit("action", fakeEvent(), 0);
    assert.deepEqual(
      sessions.map((c) => c.sessionKey),
      [routed],
    );
    assert.equal(opened.length, 0, "the button does not open the popover");
    f.notifications[0]!.emit("click", fakeEvent());
    assert.deepEqual(
      opened.map((c) => c?.sessionKey),
      [routed],
    );
    assert.equal(sessions.length, 1);
  });

  test("elsewhere notices have no buttons (Electron shows them on macOS only)", () => {
    const { desk, f } = setup({ platform: "linux" });
    desk.putCard(started("agent:dev:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2"));
    assert.equal(f.notifications.length, 1);
    assert.equal(f.notifications[0]!.options.actions, undefined);
  });

  test("a completed card is told as completed", () => {
    const { desk, shown } = setup();
    const c = card({ sessionKey: "s:b", steps: steps("completed", "completed"), updatedAt: T0 + 1 });
    desk.putCard(entry({ sessionKey: "s:b", title: "Task s:b", card: c }));
    assert.deepEqual(shown(), [["Task s:b", "Completed"]]);
  });

  test("a card in front of the person is not told (N3)", () => {
    const { desk, inFront, shown } = setup();
    inFront.add("s:a");
    desk.putCard(started("s:a"));
    desk.putCard(started("s:b"));
    assert.deepEqual(shown(), [["Task s:b", "Started"]]);
  });

  test("a notice the OS refuses, or any notice where there are none, goes to the attention state (N7)", () => {
    const refusing = setup();
    refusing.desk.putCard(started("s:a"));
    refusing.f.notifications[0]!.emit("failed", fakeEvent(), "not authorized");
    assert.deepEqual(refusing.refused, [["s:a", "not authorized"]]);

    const none = setup({ supported: false });
    none.desk.putCard(started("s:a"));
    assert.equal(none.f.notifications.length, 0);
    assert.deepEqual(none.refused, [["s:a", "notifications are not supported here"]]);
  });

  test("with several Gateways the title starts with the Gateway's label, from the latest Gateway list", () => {
    const { desk, shown } = setup();
    desk.putCard(started("s:a"));
    desk.gateway("work", "Work");
    desk.emit({ type: "gateways", gateways: [] });
    desk.putCard(started("s:b", "work"));
    assert.deepEqual(shown(), [
      ["Task s:a", "Started"],
      ["Work · Task s:b", "Started"],
    ]);
  });

  test("a session's stall flag from its activity is told as no progress", () => {
    const { desk, shown } = setup();
    const activity: SessionActivity = {
      gatewayId: "home",
      sessionKey: "s:c",
      live: true,
      runId: "r1",
      current: null,
      lines: [],
      stall: { kind: "silent", sinceMs: 10 * 60_000, lastEventAt: T0, text: "No new activity for 10 min" },
      updatedAt: T0,
    } as SessionActivity;
    desk.emit({ type: "activity", gatewayId: "home", activity });
    assert.deepEqual(
      shown().map((s) => s[1]),
      ["No progress"],
    );
  });
});

describe("notifications: throttle and dispose", () => {
  test("inside a session's interval the next milestone waits for a timer; dispose drops it and stops listening", () => {
    const { desk, timers, f, n } = setup({ interval: 8000 });
    desk.putCard(started("s:a"));
    const next = card({ sessionKey: "s:a", revision: 2, updatedAt: T0 + 2000, steps: steps("completed", "completed", "in_progress") });
    desk.putCard(entry({ sessionKey: "s:a", title: "Task s:a", card: next }));
    assert.equal(f.notifications.length, 1, "the step completed waits");
    assert.ok(timers.pending().length > 0);
    n.dispose();
    assert.deepEqual(timers.pending(), [], "nothing left to fire");
    assert.equal(desk.subscribers(), 0);
    desk.putCard(started("s:b"));
    assert.equal(f.notifications.length, 1);
  });
});

describe("notifications: needs you", () => {
  test("an approval that arrives is told once, with its command and expiry; a click opens the popover at that entry", () => {
    const { desk, f, needs, opened } = setup();
    desk.putNeed(need({ id: "appr-9", command: "rm -rf build" }));
    assert.deepEqual(
      f.notifications.map((x) => [x.options.title, x.options.body]),
      [["An agent needs your approval", "Command approval: rm -rf build (expires in 30 min)"]],
    );
    desk.putNeed(need({ id: "appr-9", command: "rm -rf build" }));
    assert.equal(f.notifications.length, 1, "the same entry is not told again (a re-read list brings it back)");
    f.notifications[0]!.emit("click", fakeEvent());
    assert.deepEqual(needs, [{ gatewayId: "home", id: "appr-9" }]);
    assert.deepEqual(opened, [], "a needs notice opens the entry, not a card");
  });

  test("quiet hours: no notice (the tray and popover still show it)", () => {
    const { desk, settings, f } = setup({ minutesOfDay: 23 * 60 });
    const n = settings.view().notifications;
    settings.update({ notifications: { ...n, quietHours: { enabled: true, start: "22:00", end: "08:00" } } });
    desk.putNeed(need({ id: "appr-q" }));
    assert.equal(f.notifications.length, 0);
  });

  test("never for an entry the person just answered here", () => {
    const { desk, f, n } = setup();
    n.needs.noteAnswered({ gatewayId: "home", id: "appr-a" });
    desk.putNeed(need({ id: "appr-a" }));
    assert.equal(f.notifications.length, 0);
    desk.putNeed(need({ id: "appr-b" }));
    assert.equal(f.notifications.length, 1, "another entry is still told");
  });

  test("an entry answered here (its resolved change says so) that a list brings back is not told", () => {
    const { desk, f } = setup();
    // Pending before the shell started (in the snapshot, never an arrival here), then answered in the popover.
    const answered = need({ id: "appr-here" });
    desk.resolveNeed(answered, recordOf(answered, "allowed-once", "Progress Desk", T0 + 1_000), true);
    desk.putNeed(answered);
    assert.equal(f.notifications.length, 0);
  });

  test("an entry answered elsewhere that a list brings back is told (only an answer given here silences it)", () => {
    const { desk, f } = setup();
    const elsewhere = need({ id: "appr-there" });
    desk.resolveNeed(elsewhere, recordOf(elsewhere, "denied", "Control UI", T0 + 1_000), false);
    desk.putNeed(elsewhere);
    assert.equal(f.notifications.length, 1);
  });
});
