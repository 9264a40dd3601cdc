// P4: every surface lists the same cards in the same order (common/visible-cards.ts). For
// seeded random snapshots — ties in time, one session key on several Gateways and agents,
// hidden slots, cleared and malformed ones, folded groups — the tray's menu rows, the
// popover's list (its sections flattened), the dashboard's "Pin a card" picker and `watch`'s
// status block must name the same cards in the same order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cardSlotKey, gatewaySessionKey } from "../../common/keys.ts";
import type { CardEntry, DeskSnapshot, GatewaySnapshot, SessionInfo } from "../../common/model.ts";
import { shownSlotsOf } from "../../common/visible-cards.ts";
import { statusBlock } from "../../main/cli/watch-format.ts";
import { MENU_MAX_CARDS, trayModel } from "../../main/core/tray-model.ts";
import { cardSections, runningSessions } from "../../renderer/lib/card-groups.ts";
import { pinnableCards } from "../../renderer/lib/dashboard-view.ts";
import { entryForDisplay } from "../../renderer/lib/display-text.ts";
import { seededRandom } from "../harness/seeded-random.ts";
import { card, connected, endedRun, entry, LIVE_RUN, sessionRow, steps, T0, type RunFacts } from "../renderer/fixtures.ts";

const NOW = T0 + 60_000;
const CASES = 400;
const HOUR = 60 * 60_000;

const GATEWAYS = ["home", "lab", "ci"];
const SESSION_KEYS = ["main", "agent:main:main", "agent:ops:cron:nightly", "dashboard:a1", "agent:main:subagent:7"];
const AGENTS = [null, "main", "ops"];
// Few distinct times, so ties are common; some old enough to fold into a popover group.
const AGES = [0, 0, 1000, 1000, 2 * HOUR, 2 * HOUR, 26 * HOUR, 26 * HOUR];
const RUNS: (RunFacts | null)[] = [LIVE_RUN, endedRun("done"), endedRun("failed"), null];
const STEP_SETS = [steps("completed", "in_progress", "pending"), steps("completed", "completed"), steps("completed", "pending"), []];

function randomSnapshot(seed: number): { snapshot: DeskSnapshot; pinned: Set<string> } {
  const rnd = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const gateways: GatewaySnapshot[] = [];
  const pinned = new Set<string>();
  let title = 0;
  for (const id of GATEWAYS.slice(0, 1 + Math.floor(rnd() * GATEWAYS.length))) {
    const cards: CardEntry[] = [];
    const seen = new Set<string>();
    const sessions: SessionInfo[] = [];
    for (let i = Math.floor(rnd() * 7); i > 0; i--) {
      const sessionKey = pick(SESSION_KEYS);
      const agentId = pick(AGENTS);
      if (seen.has(cardSlotKey({ gatewayId: id, sessionKey, agentId }))) continue;
      seen.add(cardSlotKey({ gatewayId: id, sessionKey, agentId }));
      const roll = rnd();
      const at = T0 - pick(AGES);
      const withCard = roll > 0.15;
      const c = withCard ? card({ sessionKey, updatedAt: at, steps: pick(STEP_SETS), markdown: rnd() < 0.5 ? "Working" : null }) : null;
      cards.push(
        entry({
          gatewayId: id,
          sessionKey,
          agentId,
          title: `card-${title++}`,
          card: c,
          run: pick(RUNS),
          confirmedAt: T0 - pick(AGES),
          hidden: rnd() < 0.1,
          error: rnd() < 0.1 ? { code: "MALFORMED_CARD", message: "bad card" } : null,
          updateRequired: !withCard && rnd() < 0.3,
        }),
      );
      if (rnd() < 0.3 && !sessions.some((s) => s.key === sessionKey)) sessions.push(sessionRow(sessionKey, { hasActiveRun: rnd() < 0.5 }));
      if (rnd() < 0.3) pinned.add(gatewaySessionKey({ gatewayId: id, sessionKey }));
    }
    gateways.push({
      id,
      label: id.toUpperCase(),
      color: null,
      url: `ws://${id}.test:1`,
      connection: connected(T0),
      sessions,
      cards,
      boards: { pins: [], updateRequired: false } as never,
      activity: [],
      needs: { answering: "off", advice: null, entries: [] },
      cardsKnown: true,
    });
  }
  return { snapshot: { gateways }, pinned };
}

const keyOf = (e: Pick<CardEntry, "gatewayId" | "sessionKey" | "agentId">): string => cardSlotKey(e);

/** The cards `watch` lists, read off its status block by their (unique) titles. */
function watchKeys(snapshot: DeskSnapshot): string[] {
  const byTitle = new Map(snapshot.gateways.flatMap((g) => g.cards).map((e) => [e.title, keyOf(e)]));
  const lines = statusBlock(snapshot, 10_000, Number.MAX_SAFE_INTEGER, NOW);
  return lines.flatMap((line) => {
    const m = /^[▶⏸✓•] (?:\[[^\]]*\] )?(card-\d+)\b/.exec(line);
    return m ? [byTitle.get(m[1]!)!] : [];
  });
}

function trayKeys(snapshot: DeskSnapshot): string[] {
  const model = trayModel(snapshot, NOW, { showTitle: true, isDown: () => false, seenRevision: () => null, flag: () => null });
  return model.cards.map((r) => keyOf(r.ref));
}

/** The popover's list as the page builds it: the display copies, then the sections it renders. */
function popover(snapshot: DeskSnapshot): { list: string[]; sections: string[][] } {
  const entries = snapshot.gateways.flatMap((g) => g.cards).map(entryForDisplay);
  const slots = shownSlotsOf(entries);
  const sessions = Object.fromEntries(snapshot.gateways.map((g) => [g.id, g.sessions]));
  const { top, groups } = cardSections(slots, NOW, runningSessions(sessions));
  // Slots without a card (a malformed card, an update required) are the popover's alone.
  const cardsOnly = (list: readonly CardEntry[]): string[] => list.filter((e) => e.card !== null).map(keyOf);
  return { list: cardsOnly(slots), sections: [top, ...groups.map((g) => g.entries)].map(cardsOnly) };
}

function dashboardKeys(snapshot: DeskSnapshot, pinned: ReadonlySet<string>): string[] {
  const entries = snapshot.gateways.flatMap((g) => g.cards).map(entryForDisplay);
  return pinnableCards(entries, (e) => pinned.has(gatewaySessionKey(e))).map(keyOf);
}

test(`tray, popover, dashboard picker and watch list the same cards in the same order (${CASES} seeded snapshots)`, () => {
  let compared = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const { snapshot, pinned } = randomSnapshot(seed);
    const why = `seed ${seed}`;
    const watch = watchKeys(snapshot);
    const all = snapshot.gateways.flatMap((g) => g.cards);
    // The rule itself: every unhidden card, newest first.
    const expected = all.filter((e) => e.card && !e.hidden);
    assert.deepEqual(new Set(watch), new Set(expected.map(keyOf)), why);
    const at = new Map(all.map((e) => [keyOf(e), e.card?.updatedAt ?? 0]));
    for (let i = 1; i < watch.length; i++) assert.ok(at.get(watch[i - 1]!)! >= at.get(watch[i]!)!, why);

    assert.deepEqual(trayKeys(snapshot), watch.slice(0, MENU_MAX_CARDS), `tray, ${why}`);
    const pop = popover(snapshot);
    assert.deepEqual(pop.list, watch, `popover, ${why}`);
    // Folding keeps each card once and each section in the list's order.
    assert.deepEqual(pop.sections.flat().sort(), [...watch].sort(), `popover sections, ${why}`);
    for (const section of pop.sections) {
      const members = new Set(section);
      assert.deepEqual(
        section,
        watch.filter((k) => members.has(k)),
        `popover section order, ${why}`,
      );
    }
    const unpinned = watch.filter((k) => !pinned.has(k.slice(0, k.lastIndexOf("\u0000"))));
    assert.deepEqual(dashboardKeys(snapshot, pinned), unpinned, `dashboard picker, ${why}`);
    if (new Set(expected.map((e) => e.card?.updatedAt)).size < expected.length) compared += 1;
  }
  // The seeds must reach the tie-breaks, or the order test says little.
  assert.ok(compared > CASES / 4, `only ${compared} snapshots had cards with equal times`);
});
