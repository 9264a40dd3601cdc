// P3: pinned widgets, their states, the kind filter, finished sessions, sub-agent groups.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { gatewaySessionKey } from "../../common/keys.ts";
import { dashboardGroups, isFinished, widgetFor } from "../../renderer/lib/dashboard-view.ts";
import { card, connected, entry, GW, offline, sessionRow, steps, T0 } from "./fixtures.ts";

const conns = { [GW]: connected(T0) };
const A = "agent:main:dashboard:a";
const B = "agent:main:cron:b";
const SUB = "agent:main:subagent:c";

describe("widget states", () => {
  test("card", () => {
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [entry({ sessionKey: A })], {}, conns);
    assert.equal(w?.state, "card");
  });

  test("empty: No progress yet", () => {
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [], {}, conns);
    assert.equal(w?.state, "empty");
    assert.equal(w?.notice, "No progress yet");
  });

  test("loading while the Gateway's cards are still read: the session may hold one", () => {
    const pin = gatewaySessionKey({ gatewayId: GW, sessionKey: A });
    const reading = { [GW]: false };
    const w = widgetFor(pin, [], {}, conns, undefined, undefined, reading);
    assert.equal(w?.state, "loading");
    assert.equal(w?.notice, "Loading…");
    // On its first try to connect too; not once a try failed (its banner says why, and this would flicker).
    const first = { [GW]: { state: "connecting" as const, attempt: 1, advice: "" } };
    assert.equal(widgetFor(pin, [], {}, first, undefined, undefined, reading)?.state, "loading");
    const retry = { [GW]: { state: "connecting" as const, attempt: 3, advice: "" } };
    assert.equal(widgetFor(pin, [], {}, retry, undefined, undefined, reading)?.state, "empty");
    assert.equal(widgetFor(pin, [], {}, { [GW]: offline(T0) }, undefined, undefined, reading)?.state, "offline");
    // Every card read: no card is no progress yet; a card read shows whatever the rest say.
    assert.equal(widgetFor(pin, [], {}, conns, undefined, undefined, { [GW]: true })?.state, "empty");
    assert.equal(widgetFor(pin, [entry({ sessionKey: A })], {}, conns, undefined, undefined, reading)?.state, "card");
    // dashboardGroups passes it on.
    const v = dashboardGroups({
      pinned: [pin],
      entries: [],
      sessions: {},
      connections: conns,
      cardsKnown: reading,
      kind: "all",
      showFinished: false,
    });
    assert.equal(v.groups[0]?.widget.state, "loading");
  });

  test("no access while the Gateway denies participation", () => {
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [entry({ sessionKey: A, hidden: true })], {}, conns);
    assert.equal(w?.state, "no_access");
  });

  test("retry notice while reads fail, keeping the last card", () => {
    const e = entry({ sessionKey: A, freshness: "stale", error: { code: "UNAVAILABLE", message: "x" } });
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [e], {}, conns);
    assert.equal(w?.state, "retry");
    assert.equal(w?.entry?.card?.revision, 1);
  });

  test("update required", () => {
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [entry({ sessionKey: A, updateRequired: true })], {}, conns);
    assert.equal(w?.state, "update_required");
    const w2 = widgetFor(
      gatewaySessionKey({ gatewayId: GW, sessionKey: A }),
      [],
      {},
      { [GW]: { state: "update_required", reason: "x", advice: "y" } },
    );
    assert.equal(w2?.state, "update_required");
  });

  test("offline without a card", () => {
    const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: A }), [], {}, { [GW]: offline(T0) });
    assert.equal(w?.state, "offline");
  });

  test("a bad pin is skipped", () => {
    assert.equal(widgetFor("nonsense", [], {}, conns), null);
  });
});

describe("finished", () => {
  test("a running session is not finished, even with a complete card", () => {
    assert.equal(isFinished(entry({ card: card({ steps: steps("completed") }) }), sessionRow(A)), false);
  });
  test("an ended run is finished", () => {
    assert.equal(isFinished(entry(), sessionRow(A, { status: "done", hasActiveRun: false })), true);
  });
  test("a complete card with no run is finished", () => {
    const e = entry({ card: card({ steps: steps("completed") }) });
    assert.equal(isFinished(e, null), true);
  });
});

describe("dashboardGroups", () => {
  const entries = [entry({ sessionKey: A }), entry({ sessionKey: B }), entry({ sessionKey: SUB })];
  const sessions = {
    [GW]: [sessionRow(A), sessionRow(B, { status: "done", hasActiveRun: false }), sessionRow(SUB, { spawnedBy: A })],
  };
  const pinned = [A, B, SUB].map((k) => gatewaySessionKey({ gatewayId: GW, sessionKey: k }));

  test("pin order; finished hidden unless asked; sub-agents under their parent", () => {
    const v = dashboardGroups({ pinned, entries, sessions, connections: conns, kind: "all", showFinished: false });
    assert.deepEqual(
      v.groups.map((g) => [g.widget.sessionKey, g.children.map((c) => c.sessionKey)]),
      [[A, [SUB]]],
    );
    assert.equal(v.hiddenFinished, 1);
    const all = dashboardGroups({ pinned, entries, sessions, connections: conns, kind: "all", showFinished: true });
    assert.deepEqual(
      all.groups.map((g) => g.widget.sessionKey),
      [A, B],
    );
  });

  test("filter by kind; a sub-agent without its parent stands alone", () => {
    const v = dashboardGroups({ pinned, entries, sessions, connections: conns, kind: "subagent", showFinished: false });
    assert.deepEqual(
      v.groups.map((g) => [g.widget.sessionKey, g.children.length]),
      [[SUB, 0]],
    );
  });

  test("agents' board pins join the person's, once per session", () => {
    const boards = {
      [GW]: {
        supported: true,
        pins: [
          { boardSessionKey: A, widget: "w", title: "Board title", sessionKey: A },
          { boardSessionKey: A, widget: "w2", title: "Other", sessionKey: "agent:main:dashboard:z" },
        ],
      },
    };
    const v = dashboardGroups({ pinned: [pinned[0]!], boards, entries, sessions, connections: conns, kind: "all", showFinished: true });
    assert.deepEqual(
      v.groups.map((g) => [g.widget.sessionKey, g.widget.byPerson, g.widget.byAgent, g.widget.title]),
      [
        [A, true, true, "Repair session owner"],
        ["agent:main:dashboard:z", false, true, "Other"],
      ],
    );
    assert.equal(v.total, 2);
  });
});
