// What the person has seen and what is in front of them (main/electron/setup/attention.ts),
// with a FAKE desk and FAKE settings (setup-support.ts) and focus set by hand: no window,
// no Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CardEntry } from "../../common/model.ts";
import { setupAttention } from "../../main/electron/setup/attention.ts";
import { card, entry, offline, steps, T0 } from "../renderer/fixtures.ts";
import { FakeDesk, FakeSettings } from "./setup-support.ts";
import { gatewaySessionKey } from "../../common/keys.ts";

const NOW = T0 + 60_000;

function finished(key: string): CardEntry {
  return entry({ sessionKey: key, card: card({ sessionKey: key, steps: steps("completed", "completed") }) });
}

function setup(settingsPatch: ConstructorParameters<typeof FakeSettings>[0] = {}) {
  const desk = new FakeDesk();
  const settings = new FakeSettings(settingsPatch);
  const focus = { popover: false, dashboard: false };
  let now = NOW;
  const attention = setupAttention({
    desk,
    settings,
    inFront: { popoverFocused: () => focus.popover, dashboardFocused: () => focus.dashboard },
    now: () => now,
  });
  let changes = 0;
  attention.onChanged(() => changes++);
  const icon = () => attention.tracker.model(desk.snapshot(), now, { showTitle: true }).icon;
  return { desk, settings, focus, attention, icon, changes: () => changes, setNow: (t: number) => void (now = t) };
}

describe("attention: seen", () => {
  test("a finished card is 'ready' until the person opens it; opening it again changes nothing", () => {
    const { desk, attention, icon, changes } = setup();
    desk.putCard(finished("s:a"));
    assert.equal(icon(), "ready");
    attention.seeCards([{ gatewayId: "home", sessionKey: "s:a", agentId: null }]);
    assert.equal(icon(), "idle");
    assert.equal(changes(), 1, "one change told");
    attention.seeCards([{ gatewayId: "home", sessionKey: "s:a", agentId: null }]);
    assert.equal(changes(), 1, "nothing new to tell");
  });

  test("opening one card leaves another finished card unseen", () => {
    const { desk, attention, icon } = setup();
    desk.putCard(finished("s:a"));
    desk.putCard(finished("s:b"));
    attention.seeCards([{ gatewayId: "home", sessionKey: "s:a", agentId: null }]);
    assert.equal(icon(), "ready", "s:b still waits");
  });

  test("the popover coming up shows every card, unless Settings hide the cards there", () => {
    const hidden = setup({ showCards: false });
    hidden.desk.putCard(finished("s:a"));
    hidden.attention.seePopover();
    assert.equal(hidden.icon(), "ready");

    const shown = setup();
    shown.desk.putCard(finished("s:a"));
    shown.desk.putCard(finished("s:b"));
    shown.attention.seePopover();
    assert.equal(shown.icon(), "idle");
  });

  test("a card that finishes while the popover has the focus is seen as it changes; not when the popover is in the background", () => {
    const { desk, focus, icon } = setup();
    focus.popover = true;
    desk.putCard(finished("s:a"));
    assert.equal(icon(), "idle");
    focus.popover = false;
    desk.putCard(finished("s:b"));
    assert.equal(icon(), "ready");
  });
});

describe("attention: in front of the person (N3)", () => {
  const ref = { gatewayId: "home", sessionKey: "s:a", agentId: null };

  test("every card while the popover has the focus and shows cards", () => {
    const { focus, attention, settings } = setup();
    assert.equal(attention.isVisibleInFocusedWindow(ref), false, "nothing focused");
    focus.popover = true;
    assert.equal(attention.isVisibleInFocusedWindow(ref), true);
    settings.update({ showCards: false });
    assert.equal(attention.isVisibleInFocusedWindow(ref), false, "the popover shows no cards");
  });

  test("only pinned cards while the dashboard has the focus", () => {
    const { focus, attention, settings } = setup();
    focus.dashboard = true;
    assert.equal(attention.isVisibleInFocusedWindow(ref), false);
    settings.update({ pinned: [gatewaySessionKey(ref)] });
    assert.equal(attention.isVisibleInFocusedWindow(ref), true);
    assert.equal(attention.isVisibleInFocusedWindow({ ...ref, sessionKey: "s:b" }), false);
  });
});

describe("attention: flags and connections", () => {
  test("a refused notice flags its card until the card is seen; a refused summary still tells", () => {
    const { desk, attention, icon, changes } = setup();
    const working = entry({ sessionKey: "s:a", card: card({ sessionKey: "s:a" }) });
    desk.putCard(working);
    attention.seeCards([working]);
    assert.equal(icon(), "working");
    attention.flagRefused(working, "not authorized");
    assert.equal(icon(), "attention");
    const told = changes();
    attention.flagRefused(null, "not authorized");
    assert.equal(changes(), told + 1);
    attention.seeCards([working]);
    assert.equal(icon(), "working");
  });

  test("a disconnect is noted when it happens, so it shows once it has lasted", () => {
    const { desk, attention, setNow } = setup();
    desk.gateway("home");
    assert.equal(attention.tracker.nextChangeAt(NOW), null);
    desk.setConnection("home", offline(NOW + 5000));
    const due = attention.tracker.nextChangeAt(NOW);
    assert.ok(due !== null && due > NOW, "a redraw is due when the disconnect has lasted");
    setNow(due);
    assert.equal(attention.tracker.model(desk.snapshot(), due, { showTitle: true }).icon, "disconnected");
  });

  test("a new Gateway list notes every Gateway's state; after dispose nothing is noted", () => {
    const { desk, attention } = setup();
    desk.gateway("home").connection = offline(NOW + 5000);
    desk.emit({ type: "gateways", gateways: [] });
    assert.notEqual(attention.tracker.nextChangeAt(NOW), null);
    attention.dispose();
    assert.equal(desk.subscribers(), 0);
  });
});
