// Desktop notifications (main/electron/notifier.ts): what is shown, clicks opening the card, refusals falling back to the tray, and the cap on live notifications. FAKE Notification objects stand in for Electron's.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Notice } from "../../main/core/notifications/notice.ts";
import { Notifier, type NotificationLike } from "../../main/electron/notifier.ts";
import type { CardRef } from "../../common/contract.ts";
import type { NeedRef } from "../../common/model.ts";
import { fakeEvent, FakeNotification } from "./fake-electron.ts";

const card = (n: number): CardRef => ({ gatewayId: "home", sessionKey: `agent:main:task-${n}`, agentId: "main" });
const notice = (n: number, overrides: Partial<Notice> = {}): Notice => ({
  id: `notice-${n}`,
  kind: "stepCompleted",
  title: `Task ${n}`,
  body: `Step ${n} done`,
  card: card(n),
  ...overrides,
});

function setup(supported = true, failOnShow: string | null = null, offersSession?: (card: CardRef) => boolean) {
  const created: FakeNotification[] = [];
  const clicks: (CardRef | null)[] = [];
  const needClicks: NeedRef[] = [];
  const sessions: CardRef[] = [];
  const refused: [Notice, string][] = [];
  const notifier = new Notifier({
    create: (options) => {
      const n = new FakeNotification(options);
      n.failOnShow = failOnShow;
      created.push(n);
      return n as unknown as NotificationLike;
    },
    isSupported: () => supported,
    onClick: (c) => clicks.push(c),
    onNeedClick: (need) => void needClicks.push(need),
    onRefused: (n, reason) => refused.push([n, reason]),
    ...(offersSession ? { offersSession, onOpenSession: (c: CardRef) => void sessions.push(c) } : {}),
  });
  const at = (i: number): FakeNotification => {
    const n = created[i];
    assert.ok(n, `notification ${i} exists`);
    return n;
  };
  return { notifier, created, clicks, needClicks, refused, at, sessions };
}

describe("Notifier", () => {
  test("a notice becomes one shown notification with its title and body", () => {
    const { notifier, created, at, refused } = setup();
    const n = notice(1);
    notifier.deliver(n);
    assert.equal(created.length, 1);
    assert.deepEqual(at(0).options, { title: "Task 1", body: "Step 1 done", silent: false });
    assert.equal(at(0).shows, 1);
    assert.equal(at(0).closes, 0);
    assert.deepEqual([...at(0).listeners.keys()].sort(), ["click", "close", "failed"]);
    assert.deepEqual(notifier.shown, [n]);
    assert.deepEqual(refused, []);
  });

  test("a click opens the notice's card", () => {
    const { notifier, at, clicks } = setup();
    notifier.deliver(notice(1));
    notifier.deliver(notice(2));
    at(1).emit("click", fakeEvent());
    assert.deepEqual(clicks, [card(2)]);
  });

  test("a summary (no card) click opens with null", () => {
    const { notifier, at, clicks } = setup();
    notifier.deliver(notice(1, { kind: "summary", card: null, title: "3 updates" }));
    at(0).emit("click", fakeEvent());
    assert.deepEqual(clicks, [null]);
  });

  test("a notice whose session has a route gets the Open Session button; the button opens the session, a click the card", () => {
    const { notifier, at, clicks, sessions } = setup(true, null, (c) => c.sessionKey !== card(2).sessionKey);
    notifier.deliver(notice(1));
    notifier.deliver(notice(2));
    notifier.deliver(notice(3, { kind: "summary", card: null, title: "3 updates" }));
    assert.deepEqual(at(0).options, {
      title: "Task 1",
      body: "Step 1 done",
      silent: false,
      actions: [{ type: "button", text: "Open Session" }],
    });
    assert.deepEqual(at(0).listeners.has("action"), true);
    // No route (notice 2) or no card (a summary): no button, no action listener.
    for (const i of [1, 2]) {
      assert.equal(at(i).options.actions, undefined, `notice ${i + 1}`);
      assert.equal(at(i).listeners.has("action"), false, `notice ${i + 1}`);
    }
    at(0).emit("action", fakeEvent(), 0);
    assert.deepEqual(sessions, [card(1)]);
    assert.deepEqual(clicks, [], "the button is not a click");
    at(0).emit("click", fakeEvent());
    assert.deepEqual(clicks, [card(1)]);
    assert.deepEqual(sessions, [card(1)], "the click does not open the session");
  });

  test("a needs-you notice offers no button, even where sessions have one: its click only opens the popover at the entry", () => {
    const { notifier, at, clicks, needClicks, sessions } = setup(true, null, () => true);
    const need: NeedRef = { gatewayId: "home", id: "appr-1" };
    // Even one that named the waiting session's card gets no Open Session (or any other) button.
    for (const c of [null, card(1)]) {
      notifier.deliver({
        id: "need-1",
        kind: "needs",
        title: "An agent needs your approval",
        body: "Command approval: uname -s",
        card: c,
        need,
      });
    }
    for (const i of [0, 1]) {
      assert.deepEqual(
        at(i).options,
        { title: "An agent needs your approval", body: "Command approval: uname -s", silent: false },
        `notice ${i}`,
      );
      assert.deepEqual([...at(i).listeners.keys()].sort(), ["click", "close", "failed"], `notice ${i}`);
    }
    at(1).emit("action", fakeEvent(), 0);
    assert.deepEqual([sessions, needClicks, clicks], [[], [], []], "no button acts");
    at(1).emit("click", fakeEvent());
    assert.deepEqual(needClicks, [need]);
    assert.deepEqual(clicks, [], "the entry opens, not a card");
  });

  test("an OS refusal hands the notice and the reason to onRefused", () => {
    const { notifier, at, refused, clicks } = setup();
    const n = notice(1);
    notifier.deliver(n);
    at(0).emit("failed", fakeEvent(), "Notifications are disabled for this app");
    assert.deepEqual(refused, [[n, "Notifications are disabled for this app"]]);
    assert.equal(refused[0]?.[0], n);
    assert.deepEqual(clicks, []);
  });

  test("a refusal raised while showing is still heard (listeners come before show)", () => {
    const { notifier, refused } = setup(true, "unsigned build");
    const n = notice(7);
    notifier.deliver(n);
    assert.deepEqual(refused, [[n, "unsigned build"]]);
  });

  test("where notifications are unsupported, nothing is created and the notice is refused", () => {
    const { notifier, created, refused } = setup(false);
    const n = notice(1);
    notifier.deliver(n);
    assert.equal(created.length, 0);
    assert.deepEqual(refused, [[n, "notifications are not supported here"]]);
    assert.deepEqual(notifier.shown, []);
  });

  test("more than 20 live notifications: the oldest is closed", () => {
    const { notifier, created } = setup();
    for (let i = 0; i < 20; i++) notifier.deliver(notice(i));
    assert.deepEqual(
      created.map((n) => n.closes),
      new Array(20).fill(0),
    );
    notifier.deliver(notice(20));
    assert.deepEqual(
      created.map((n) => n.closes),
      [1, ...new Array(20).fill(0)],
    );
    notifier.deliver(notice(21));
    assert.deepEqual(
      created.map((n) => n.closes),
      [1, 1, ...new Array(20).fill(0)],
    );
  });

  test("clicked, closed and failed notifications no longer count as live", () => {
    const { notifier, at, created } = setup();
    for (let i = 0; i < 20; i++) notifier.deliver(notice(i));
    at(0).emit("click", fakeEvent());
    at(1).emit("close", fakeEvent());
    at(2).emit("failed", fakeEvent(), "refused");
    // 17 live: three more fit without closing anything.
    for (let i = 20; i < 23; i++) notifier.deliver(notice(i));
    assert.equal(
      created.reduce((sum, n) => sum + n.closes, 0),
      0,
    );
    // The next one closes the oldest still live: number 3.
    notifier.deliver(notice(23));
    assert.deepEqual(
      created.map((n, i) => [i, n.closes]).filter(([, c]) => c !== 0),
      [[3, 1]],
    );
  });

  test("a notification that fires twice is forgotten once (no other one is dropped)", () => {
    const { notifier, at, created } = setup();
    for (let i = 0; i < 20; i++) notifier.deliver(notice(i));
    at(5).emit("click", fakeEvent());
    at(5).emit("close", fakeEvent());
    notifier.deliver(notice(20));
    assert.equal(
      created.reduce((sum, n) => sum + n.closes, 0),
      0,
      "19 + 1 live: nothing closed",
    );
    // 19 + 2 live: the oldest goes (had the second event dropped another one, none would).
    notifier.deliver(notice(21));
    assert.deepEqual(
      created.map((n, i) => [i, n.closes]).filter(([, c]) => c !== 0),
      [[0, 1]],
    );
  });

  test("the shown list keeps the last 50, newest last", () => {
    const { notifier } = setup();
    for (let i = 0; i < 55; i++) notifier.deliver(notice(i));
    assert.equal(notifier.shown.length, 50);
    assert.equal(notifier.shown[0]?.id, "notice-5");
    assert.equal(notifier.shown.at(-1)?.id, "notice-54");
  });

  test("a needs-you notice counts as open until clicked, closed or refused; other notices never do (U3)", () => {
    const { notifier, at } = setup();
    const need = (id: string): NeedRef => ({ gatewayId: "home", id });
    const ask = (id: string): Notice => ({ id, kind: "needs", title: "Approval", body: "uname", card: null, need: need(id) });
    notifier.deliver(notice(1));
    assert.deepEqual(notifier.liveNeeds(), []);
    for (const id of ["a", "b", "c"]) notifier.deliver(ask(id));
    assert.deepEqual(notifier.liveNeeds(), [need("a"), need("b"), need("c")]);
    at(1).emit("click", fakeEvent());
    at(2).emit("close", fakeEvent());
    at(3).emit("failed", fakeEvent(), "refused");
    assert.deepEqual(notifier.liveNeeds(), []);
  });
});
