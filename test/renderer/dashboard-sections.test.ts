// P3 at scale (issue 11): sections by kind with counted headers, and the text filter.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { SessionInfo } from "../../common/model.ts";
import { gatewaySessionKey } from "../../common/keys.ts";
import {
  dashboardSections,
  filterWidgets,
  normalizeQuery,
  sectionLabel,
  subAgentsLabel,
  widgetMatches,
} from "../../renderer/lib/dashboard-sections.ts";
import { dashboardGroups, widgetFor, widgetLookup } from "../../renderer/lib/dashboard-view.ts";
import { connected, entry, GW, sessionRow, T0 } from "./fixtures.ts";

const conns = { [GW]: connected(T0) };

/** 300 pinned sessions: 40 main (each with 2 sub-agents), 100 cron, 80 dashboard. */
function bigView() {
  const keys: string[] = [];
  const sessions: SessionInfo[] = [];
  for (let i = 0; i < 40; i++) {
    const main = `agent:main:main:m${i}`;
    keys.push(main);
    sessions.push(sessionRow(main, { title: `Release ${i}`, kind: "main" }));
    for (let j = 0; j < 2; j++) {
      const sub = `agent:main:subagent:m${i}-s${j}`;
      keys.push(sub);
      sessions.push(sessionRow(sub, { parentKey: main, title: `Check ${i}.${j}` }));
    }
  }
  for (let i = 0; i < 100; i++) keys.push(`agent:main:cron:c${i}`);
  for (let i = 0; i < 80; i++) keys.push(`agent:main:dashboard:d${i}`);
  for (const k of keys.slice(120)) sessions.push(sessionRow(k, { title: k.includes("cron") ? `Nightly ${k}` : `Board ${k}` }));
  const entries = keys.map((k, i) =>
    entry({
      sessionKey: k,
      title: sessions.find((s) => s.key === k)!.title,
      card: { sessionKey: k, revision: 1, updatedAt: T0 + i, markdown: "x", steps: [] },
    }),
  );
  const view = dashboardGroups({
    pinned: keys.map((k) => gatewaySessionKey({ gatewayId: GW, sessionKey: k })),
    entries,
    sessions: { [GW]: sessions },
    connections: conns,
    kind: "all",
    showFinished: true,
  });
  return { keys, view };
}

describe("dashboardSections", () => {
  test("300 widgets: one section per kind in a fixed order, counts include sub-agents", () => {
    const { view } = bigView();
    const sections = dashboardSections(view.groups);
    assert.deepEqual(
      sections.map((s) => [s.kind, s.groups.length, s.count]),
      [
        ["main", 40, 120],
        ["dashboard", 80, 80],
        ["cron", 100, 100],
      ],
    );
    assert.equal(
      sections.reduce((n, s) => n + s.count, 0),
      300,
    );
    assert.deepEqual(
      sections.map((s) => sectionLabel(s.kind, s.count, s.count)),
      ["Main (120)", "Dashboard (80)", "Cron (100)"],
    );
  });
});

describe("filter", () => {
  test("normalizeQuery folds case and space", () => {
    assert.equal(normalizeQuery("  Nightly   BUILD "), "nightly build");
  });

  test("matches title or session key, empty matches all", () => {
    const w = { title: "Nightly build", sessionKey: "agent:main:cron:abc" };
    assert.equal(widgetMatches(w, "nightly"), true);
    assert.equal(widgetMatches(w, "cron:abc"), true);
    assert.equal(widgetMatches(w, "release"), false);
    assert.equal(widgetMatches(w, ""), true);
  });

  test("a matching parent brings its sub-agents; a matching sub-agent brings its parent", () => {
    const { view } = bigView();
    const sections = dashboardSections(view.groups);
    const byParent = filterWidgets(sections, "Release 7");
    assert.deepEqual(
      [...byParent.shown].sort(),
      [
        gatewaySessionKey({ gatewayId: GW, sessionKey: "agent:main:main:m7" }),
        gatewaySessionKey({ gatewayId: GW, sessionKey: "agent:main:subagent:m7-s0" }),
        gatewaySessionKey({ gatewayId: GW, sessionKey: "agent:main:subagent:m7-s1" }),
      ].sort(),
    );
    const byChild = filterWidgets(sections, "check 3.1");
    assert.deepEqual(
      [...byChild.shown].sort(),
      [
        gatewaySessionKey({ gatewayId: GW, sessionKey: "agent:main:main:m3" }),
        gatewaySessionKey({ gatewayId: GW, sessionKey: "agent:main:subagent:m3-s1" }),
      ].sort(),
    );
    assert.equal(byChild.total, 2);
  });

  test("per-section counts and headers while filtering", () => {
    const { view } = bigView();
    const sections = dashboardSections(view.groups);
    const r = filterWidgets(sections, "nightly agent:main:cron:c1");
    // c1, c10..c19: 11 cron widgets.
    assert.equal(r.perSection.get("cron"), 11);
    assert.equal(r.perSection.get("main"), 0);
    assert.equal(r.total, 11);
    assert.equal(sectionLabel("cron", 11, 100), "Cron (11 of 100)");
    assert.equal(filterWidgets(sections, "").total, 300);
  });

  test("sub-agent header", () => {
    assert.equal(subAgentsLabel(1, 1), "1 sub-agent");
    assert.equal(subAgentsLabel(3, 3), "3 sub-agents");
    assert.equal(subAgentsLabel(1, 3), "1 of 3 sub-agents");
  });
});

describe("widget lookup", () => {
  test("several agents on one key: the most recently updated card speaks for the pin", () => {
    const older = entry({
      sessionKey: "k",
      agentId: "a",
      card: { sessionKey: "k", revision: 1, updatedAt: T0, markdown: "old", steps: [] },
    });
    const newer = entry({
      sessionKey: "k",
      agentId: "b",
      card: { sessionKey: "k", revision: 1, updatedAt: T0 + 5, markdown: "new", steps: [] },
    });
    for (const list of [
      [older, newer],
      [newer, older],
    ]) {
      const w = widgetFor(gatewaySessionKey({ gatewayId: GW, sessionKey: "k" }), list, {}, conns, undefined, widgetLookup(list, {}));
      assert.equal(w?.entry?.card?.markdown, "new");
    }
  });

  test("the session row is found by gateway and key", () => {
    const lookup = widgetLookup([], { [GW]: [sessionRow("k", { title: "Mine" })], other: [sessionRow("k", { title: "Theirs" })] });
    assert.equal(lookup.session(GW, "k")?.title, "Mine");
    assert.equal(lookup.session("other", "k")?.title, "Theirs");
    assert.equal(lookup.session(GW, "missing"), null);
  });
});
