// Issue 21: the dashboard's view is rebuilt whole on every change; what did not change keeps its
// object, so the page leaves those widgets alone (keepUnchanged, sameSetAs, sameFilterAs).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CardEntry, SessionInfo } from "../../common/model.ts";
import { gatewaySessionKey } from "../../common/keys.ts";
import { dashboardSections, filterWidgets, sameFilterAs, sameSetAs } from "../../renderer/lib/dashboard-sections.ts";
import { dashboardGroups, keepUnchanged, remembering, type DashboardView } from "../../renderer/lib/dashboard-view.ts";
import { connected, entry, GW, sessionRow, T0 } from "./fixtures.ts";

const conns = { [GW]: connected(T0) };
const MAIN = "agent:main:main:m0";
const SUBS = ["agent:main:subagent:s0", "agent:main:subagent:s1"];
const CRONS = Array.from({ length: 20 }, (_, i) => `agent:main:cron:c${i}`);
const KEYS = [MAIN, ...SUBS, ...CRONS];
const sessions: SessionInfo[] = [
  sessionRow(MAIN, { title: "Release", kind: "main" }),
  ...SUBS.map((k) => sessionRow(k, { parentKey: MAIN, title: `Check ${k}` })),
  ...CRONS.map((k) => sessionRow(k, { title: `Nightly ${k}` })),
];

function cardOf(k: string, revision: number): CardEntry {
  return entry({
    sessionKey: k,
    title: `Card ${k}`,
    card: { sessionKey: k, revision, updatedAt: T0 + revision, markdown: `r${revision}`, steps: [] },
  });
}

function view(entries: CardEntry[]): DashboardView {
  return dashboardGroups({
    pinned: KEYS.map((k) => gatewaySessionKey({ gatewayId: GW, sessionKey: k })),
    entries,
    sessions: { [GW]: sessions },
    connections: conns,
    kind: "all",
    showFinished: true,
  });
}

const widgets = (v: DashboardView) => v.groups.flatMap((g) => [g.widget, ...g.children]);

describe("keepUnchanged", () => {
  test("one card changes: every other widget and group keeps its object, the changed one is new", () => {
    const entries = KEYS.map((k) => cardOf(k, 1));
    const before = keepUnchanged(null, view(entries));
    const changed = CRONS[7]!;
    const after = keepUnchanged(before, view(entries.map((e) => (e.sessionKey === changed ? cardOf(changed, 2) : e))));
    const old = new Map(widgets(before).map((w) => [w.sessionKey, w]));
    for (const w of widgets(after)) {
      if (w.sessionKey === changed) {
        assert.notEqual(w, old.get(w.sessionKey), "the changed widget is new");
        assert.equal(w.entry?.card?.revision, 2);
      } else assert.equal(w, old.get(w.sessionKey), `${w.sessionKey} kept its object`);
    }
    const changedGroup = after.groups.find((g) => g.widget.sessionKey === changed);
    assert.notEqual(
      changedGroup,
      before.groups.find((g) => g.widget.sessionKey === changed),
    );
    const others = after.groups.filter((g) => g !== changedGroup);
    assert.ok(
      others.every((g) => before.groups.includes(g)),
      "every other group kept its object",
    );
  });

  test("a sub-agent changes: its parent widget stays, the group is new with its new child", () => {
    const entries = KEYS.map((k) => cardOf(k, 1));
    const before = keepUnchanged(null, view(entries));
    const after = keepUnchanged(before, view(entries.map((e) => (e.sessionKey === SUBS[1] ? cardOf(SUBS[1]!, 3) : e))));
    const [b, a] = [before.groups[0]!, after.groups[0]!];
    assert.equal(a.widget, b.widget);
    assert.notEqual(a, b);
    assert.equal(a.children[0], b.children[0]);
    assert.notEqual(a.children[1], b.children[1]);
    assert.equal(a.children[1]!.entry?.card?.revision, 3);
  });

  test("a card arriving for a pin that showed none: that widget changes state, the rest stay", () => {
    const entries = KEYS.slice(0, 10).map((k) => cardOf(k, 1));
    const before = keepUnchanged(null, view(entries));
    const after = keepUnchanged(before, view([...entries, cardOf(CRONS[15]!, 1)]));
    const w = widgets(after).find((x) => x.sessionKey === CRONS[15])!;
    assert.equal(w.state, "card");
    assert.equal(widgets(before).find((x) => x.sessionKey === CRONS[15])!.state, "empty");
    assert.equal(widgets(after).filter((x) => !widgets(before).includes(x)).length, 1);
  });

  test("the view's other figures are the new view's", () => {
    const entries = KEYS.map((k) => cardOf(k, 1));
    const before = keepUnchanged(null, view(entries));
    const next = view(entries.slice(0, 5));
    const after = keepUnchanged(before, next);
    assert.equal(after.total, next.total);
    assert.equal(after.hiddenFinished, next.hiddenFinished);
    assert.deepEqual(
      widgets(after).map((w) => [w.sessionKey, w.state]),
      widgets(next).map((w) => [w.sessionKey, w.state]),
    );
  });
});

describe("sameSetAs and sameFilterAs", () => {
  test("the same members keep the old set; a different member or size gives the new one", () => {
    const a = new Set(["x", "y"]);
    assert.equal(sameSetAs(a, new Set(["y", "x"])), a);
    const other = new Set(["x", "z"]);
    assert.equal(sameSetAs(a, other), other);
    const bigger = new Set(["x", "y", "z"]);
    assert.equal(sameSetAs(a, bigger), bigger);
    assert.equal(sameSetAs(null, other), other);
  });

  test("a filter that shows the same widgets keeps its object; one more shown or a new count does not", () => {
    const entries = KEYS.map((k) => cardOf(k, 1));
    const sections = dashboardSections(view(entries).groups);
    const first = filterWidgets(sections, "nightly");
    assert.equal(sameFilterAs(first, filterWidgets(dashboardSections(view(entries).groups), "Nightly ")), first);
    const wider = filterWidgets(sections, "");
    assert.equal(sameFilterAs(first, wider), wider);
    const fewer = filterWidgets(sections, "c1");
    assert.equal(sameFilterAs(first, fewer), fewer);
  });
});

describe("remembering", () => {
  test("each call is handed what the one before returned", () => {
    const seen: (number[] | null)[] = [];
    const keep = remembering<number[]>((previous, next) => {
      seen.push(previous);
      return previous && previous.length === next.length ? previous : next;
    });
    const a = [1];
    assert.equal(keep(a), a);
    assert.equal(keep([2]), a, "same length: the first is kept");
    const b = [1, 2];
    assert.equal(keep(b), b);
    assert.deepEqual(seen, [null, a, a]);
  });
});
