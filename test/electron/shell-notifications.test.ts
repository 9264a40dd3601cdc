// What the person sees from the menu-bar shell's notification and popover wiring (N2, N3,
// N5, N6, N7, P2, P4): a FAKE Electron (fake-electron.ts) around the real core, connected to
// a real OpenClaw Gateway whose cards are written through progressCard.put. Each group runs
// its own shell so throttle windows and away/quiet state do not leak between them.
//
// Absence ("no notice for X") is never waited out: with a per-session interval of 0 every
// milestone that is not held goes out synchronously when the shell observes the card, so a
// notice for a later card (the marker) proves that nothing was sent for the earlier one.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { CardRef } from "../../common/contract.ts";

import type { CardEntry, DeskChange } from "../../common/model.ts";
import { startShell, type Shell, type ShellDeps } from "../../main/electron/shell.ts";
import { connectBareClient, type BareClient, type PlanStep } from "../harness/bare-client.ts";
import { startGateway, type TestGateway } from "../harness/gateway.ts";
import { until } from "../harness/until.ts";
import { plan } from "../gateway/support.ts";
import { startTcpRelay, type TcpRelay } from "../gateway/tcp-relay.ts";
import { fakeElectron, type FakeElectron, type FakeWindow } from "./fake-electron.ts";
import { FakeClock } from "../unit/fake-clock.ts";
import { gatewaySessionKey } from "../../common/keys.ts";

const AWAY_MS = 6 * 60_000; // more than the 5 minutes of N6
let gw: TestGateway;
let agent: BareClient;
/** Every session this file wrote a card to: a new shell reads them all on connect. */
const written = new Set<string>();
const put = (key: string, card: Parameters<BareClient["put"]>[1]) => {
  written.add(key);
  return agent.put(key, card);
};
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  gw = await startGateway();
  agent = await connectBareClient(gw);
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  await agent?.close();
  await gw?.dispose();
});

type Rig = {
  f: FakeElectron;
  shell: Shell;
  /** Notices the person saw (title and body as shown), with the card each one opens. */
  seen(): { title: string; body: string; card: CardRef | null }[];
  /** The shell's entry for a session once it holds revision `revision` (the policy has observed it then). */
  observed(sessionKey: string, revision: number): Promise<CardEntry>;
  /** Creates a session and writes a card to it; resolves once the shell has observed that card. */
  write(steps: PlanStep[], markdown?: string): Promise<string>;
};

async function rig(extra: Partial<ShellDeps> = {}, env: NodeJS.ProcessEnv = {}): Promise<Rig> {
  const home = mkdtempSync(join(tmpdir(), "pd-shell-n-"));
  const f = fakeElectron({
    dataDir: home,
    env: { OPENCLAW_GATEWAY_URL: gw.url, OPENCLAW_GATEWAY_TOKEN: gw.token, HOME: home, ...env },
    policy: { perSessionIntervalMs: 0, globalWindowMs: 60_000, globalMaxPerWindow: 1000 },
    ...extra,
  });
  const shell = await startShell(f.deps);
  cleanups.push(async () => {
    await shell.shutdown();
    rmSync(home, { recursive: true, force: true });
  });
  await until("connected", () => shell.desk.snapshot().gateways.every((g) => g.connection.state === "connected"), 45_000);
  // The earlier tests' cards are this shell's too: start once they are all loaded.
  await until("every earlier card loaded", () => {
    const keys = new Set(
      shell.desk
        .snapshot()
        .gateways.flatMap((g) => g.cards)
        .map((c) => c.sessionKey),
    );
    return [...written].every((k) => keys.has(k));
  });
  const seen = () =>
    // The notifier keeps what it delivered in order; the fake OS keeps what it was asked to show.
    shell.notifier.shown.map((n, i) => {
      const os = f.notifications[i];
      assert.ok(os, "every delivered notice reached the OS");
      assert.equal(os.options.title, n.title);
      assert.equal(os.options.body, n.body);
      return { title: os.options.title ?? "", body: os.options.body ?? "", card: n.card };
    });
  const observed = (sessionKey: string, revision: number) =>
    until(`the shell observed ${sessionKey} r${revision}`, () => {
      const e = shell.desk
        .snapshot()
        .gateways.flatMap((g) => g.cards)
        .find((c) => c.sessionKey === sessionKey);
      return e && e.card?.revision === revision ? e : null;
    });
  const write = async (steps: PlanStep[], markdown?: string) => {
    const key = await agent.createSession();
    const r = await put(key, { plan: steps, ...(markdown ? { markdown } : {}) });
    await observed(key, r.card!.revision);
    return key;
  };
  return { f, shell, seen, observed, write };
}

const about = (r: Rig, key: string) => r.seen().filter((n) => n.card?.sessionKey === key);

/** The person opens the popover (seeing every card, so none asks for a look) and clicks away. */
async function seeEverything(r: Rig): Promise<void> {
  r.f.trays[0]!.emit("click");
  const win = await until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
  win.blur();
  await until("nothing asks for a look", () => r.shell.tray.current?.icon === "idle");
}

describe("N2 throttle, coalescing, own actions and quiet hours", () => {
  test("one session's quick milestones coalesce into one notice, not a backlog", { timeout: 60_000 }, async () => {
    // The policy's clock stands still unless the test moves it: "inside the interval" holds
    // however slowly a loaded machine writes the cards.
    const clock = new FakeClock(Date.now());
    const r = await rig({
      policy: { perSessionIntervalMs: 8000, globalWindowMs: 60_000, globalMaxPerWindow: 1000 },
      now: () => clock.now,
      schedule: clock.schedule,
    });
    const key = await agent.createSession();
    const steps = (...s: PlanStep["status"][]) => plan(...s);
    await put(key, { plan: steps("in_progress", "pending", "pending", "pending") });
    await until("the new-card notice", () => about(r, key).length === 1);
    // Two steps completed, one after the other, inside the session's interval.
    let rev = (await put(key, { plan: steps("completed", "in_progress", "pending", "pending") })).card!.revision;
    await r.observed(key, rev);
    rev = (await put(key, { plan: steps("completed", "completed", "in_progress", "pending") })).card!.revision;
    await r.observed(key, rev);
    assert.equal(about(r, key).length, 1, "held while the session's interval runs");
    clock.advance(8000);
    await until("the coalesced notice", () => about(r, key).length >= 2);
    // The last milestone queues behind it: if anything else were queued it would come first.
    rev = (await put(key, { plan: steps("completed", "completed", "completed", "completed") })).card!.revision;
    await r.observed(key, rev);
    clock.advance(8000);
    await until("the completion notice", () => about(r, key).some((n) => n.body.startsWith("Completed")));
    assert.deepEqual(
      about(r, key).map((n) => n.body.split(" · ")[0]),
      ["Started", "2 steps completed", "Completed"],
    );
  });

  test("beyond the overall cap, several sessions' changes go out as one summary", { timeout: 60_000 }, async () => {
    // A clock that stands still: all four cards fall in one window, however slowly they are written.
    const clock = new FakeClock(Date.now());
    const r = await rig({
      policy: { perSessionIntervalMs: 0, globalWindowMs: 4000, globalMaxPerWindow: 2 },
      now: () => clock.now,
      schedule: clock.schedule,
    });
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) keys.push(await r.write(plan("in_progress", "pending")));
    assert.equal(r.seen().length, 2, "two told, two held by the cap");
    clock.advance(4000);
    const summary = await until("the summary", () => r.seen().find((n) => n.card === null));
    assert.equal(summary.title, "Progress Desk");
    assert.equal(summary.body, "2 updates in 2 sessions: 2 started");
    // Two told one by one, the other two only in the summary.
    assert.equal(r.seen().length, 3);
    assert.deepEqual(
      r
        .seen()
        .slice(0, 2)
        .map((n) => n.card?.sessionKey),
      keys.slice(0, 2),
    );
  });

  test("a card the person just acted on (refresh from the popover) is not notified; others still are", { timeout: 60_000 }, async () => {
    const r = await rig();
    const key = await r.write(plan("completed", "in_progress", "pending"));
    await until("its new-card notice", () => about(r, key).length === 1);
    r.f.trays[0]!.emit("click");
    const win = await until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
    const ref: CardRef = { gatewayId: r.shell.desk.gatewayIds()[0]!, sessionKey: key, agentId: null };
    await r.f.invoke(win, "refresh", [ref, false]);
    win.blur();
    // Another client completes a step right after the person's own refresh.
    const rev = (await put(key, { plan: plan("completed", "completed", "in_progress") })).card!.revision;
    await r.observed(key, rev);
    const marker = await r.write(plan("in_progress"));
    await until("the marker's notice", () => about(r, marker).length === 1);
    assert.deepEqual(
      about(r, key).map((n) => n.body.split(" · ")[0]),
      ["Started"],
      "nothing about the card the person acted on",
    );
  });

  test("quiet hours hold milestones and sum them up afterwards", { timeout: 60_000 }, async () => {
    const r = await rig();
    const clock = (ms: number) => {
      const d = new Date(ms);
      return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
    };
    const now = r.f.clock.now();
    r.shell.settings.update({
      notifications: { quietHours: { enabled: true, start: clock(now - 60_000), end: clock(now + 30 * 60_000) } },
    });
    const before = r.seen().length;
    const done = await r.write(plan("completed", "completed"));
    const started = await r.write(plan("in_progress", "pending"));
    assert.equal(r.seen().length, before, "nothing shown during quiet hours");
    r.shell.settings.update({ notifications: { quietHours: { enabled: false } } });
    const marker = await r.write(plan("in_progress"));
    await until("the marker's notice", () => about(r, marker).length === 1);
    const after = r.seen().slice(before);
    assert.deepEqual(
      after.map((n) => [n.title, n.body.split(" · ")[0]]),
      [
        ["Progress Desk", "During quiet hours: 1 card completed, 1 started"],
        [after[1]!.title, "Started"],
      ],
    );
    assert.equal(about(r, done).length + about(r, started).length, 0, "held cards only in the summary");
  });
});

describe("N2 duplicates", () => {
  test("a reconnect that re-reads the same cards tells nothing again", { timeout: 90_000 }, async () => {
    const relay: TcpRelay = await startTcpRelay(gw.port);
    cleanups.push(() => relay.close());
    const r = await rig({}, { OPENCLAW_GATEWAY_URL: relay.url });
    const key = await r.write(plan("completed", "in_progress", "pending"), "Halfway");
    const rev = (await put(key, { plan: plan("completed", "completed", "in_progress"), markdown: "Two thirds" })).card!.revision;
    await r.observed(key, rev);
    await until("both notices", () => about(r, key).length === 2);
    const gatewayId = r.shell.desk.gatewayIds()[0]!;
    const state = () => r.shell.desk.snapshot().gateways[0]!.connection.state;
    const shownBefore = r.f.notifications.length;

    // The link drops and comes back: the shell reads every card again, this one unchanged.
    relay.cut();
    await until("offline", () => state() !== "connected", 45_000);
    const freshness = async () => (await r.observed(key, rev)).freshness;
    assert.notEqual(await freshness(), "live", "the card is no longer live while offline");
    relay.resume();
    r.shell.desk.retry(gatewayId);
    await until("connected again", () => state() === "connected", 45_000);
    await until("the card read again", async () => (await freshness()) === "live");

    const marker = await r.write(plan("in_progress"));
    await until("the marker's notice", () => about(r, marker).length === 1);
    assert.equal(r.f.notifications.length, shownBefore + 1, "only the marker was shown after the reconnect");
    assert.deepEqual(
      about(r, key).map((n) => n.body),
      ["Started · 1/3 · At: Step 2 · Halfway", "Step completed · 2/3 · At: Step 3 · Two thirds"],
    );
  });
});

describe("N2 duplicates: a Gateway edited in Settings", () => {
  test("renaming the Gateway reconnects and reads the same cards again; nothing is told again", { timeout: 90_000 }, async () => {
    const r = await rig();
    r.f.trays[0]!.emit("click");
    const popover = await until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
    await r.f.invoke(popover, "openPage", ["settings"]);
    const settingsWin = await until("settings window", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/settings.html")));
    popover.blur();
    await r.f.invoke(settingsWin, "saveGateway", [{ label: "Home", color: "#0a84ff", url: gw.url, token: gw.token }]);
    const id = r.shell.settings.view().gateways[0]!.id;
    let key = "";
    const entry = () =>
      r.shell.desk
        .snapshot()
        .gateways.find((g) => g.id === id)
        ?.cards.find((c) => c.sessionKey === key);
    const onlySaved = () => r.shell.desk.snapshot().gateways.every((g) => g.id === id && g.connection.state === "connected");
    await until("connected through the saved Gateway", onlySaved, 45_000);
    key = await r.write(plan("completed", "in_progress", "pending"), "Halfway");
    await until("its notice", () => about(r, key).length === 1);
    const shownBefore = r.f.notifications.length;

    // A new label restarts that Gateway's connection and store: every card is read afresh.
    const before = entry();
    await r.f.invoke(settingsWin, "saveGateway", [{ id, label: "House", color: "#0a84ff", url: gw.url }]);
    await until(
      "the card read again after the edit",
      () => {
        const e = entry();
        return e && e !== before && e.freshness === "live";
      },
      45_000,
    );

    const marker = await r.write(plan("in_progress"));
    await until("the marker's notice", () => about(r, marker).length === 1);
    assert.equal(r.f.notifications.length, shownBefore + 1, "only the marker was shown after the edit");
    assert.deepEqual(
      about(r, key).map((n) => [n.title, n.body]),
      [[entry()!.title, "Started · 1/3 · At: Step 2 · Halfway"]],
    );
  });
});

describe("N3 no notice for a card in front of the person", () => {
  test("not while the popover is focused, nor for a pinned card while the dashboard is focused", { timeout: 60_000 }, async () => {
    const r = await rig();
    r.f.trays[0]!.emit("click");
    const popover = await until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
    const inPopover = await r.write(plan("in_progress", "pending"));
    popover.blur();

    const gatewayId = r.shell.desk.gatewayIds()[0]!;
    const pinnedKey = await agent.createSession();
    r.shell.settings.update({ pinned: [gatewaySessionKey({ gatewayId, sessionKey: pinnedKey })] });
    await r.shell.openPage("dashboard");
    const dash = r.f.windows.find((w) => w.urls[0] === "app://desk/dashboard.html")!;
    assert.ok(dash.focused);
    await put(pinnedKey, { plan: plan("in_progress") });
    await r.observed(pinnedKey, 1);
    // Not pinned: the focused dashboard does not show it, so it is told.
    const notPinned = await r.write(plan("in_progress"));
    await until("the unpinned card's notice", () => about(r, notPinned).length === 1);
    assert.equal(about(r, inPopover).length, 0, "the card shown in the focused popover");
    assert.equal(about(r, pinnedKey).length, 0, "the card pinned in the focused dashboard");
  });
});

describe("N5 notification text", () => {
  test("session title; milestone, count, step and the note's first line, cut to the budget", { timeout: 60_000 }, async () => {
    const r = await rig();
    const steps: PlanStep[] = [
      { step: "Read the failing test", status: "completed" },
      { step: "Fix the owner check", status: "in_progress" },
      { step: "Run the suite", status: "pending" },
    ];
    const key = await r.write(steps, "## Fixing the owner check\n\nSecond paragraph is not shown.");
    const n = await until("the notice", () => about(r, key)[0]);
    const entry = r.shell.desk.snapshot().gateways[0]!.cards.find((c) => c.sessionKey === key)!;
    assert.equal(n.title, entry.title);
    assert.equal(n.body, "Started · 1/3 · At: Fix the owner check · Fixing the owner check");

    const long = await r.write([{ step: "Copy", status: "in_progress" }], `Copying ${"/very/long/path".repeat(20)}/end.txt`);
    const cut = await until("the long notice", () => about(r, long)[0]);
    assert.ok(cut.body.length <= 120, `${cut.body.length} characters`);
    assert.match(cut.body, /^Started · 0\/1 · At: Copy · Copying /);
    assert.match(cut.body, /…/);
  });

  test("with several Gateways the title starts with the Gateway's label", { timeout: 90_000 }, async () => {
    const relay: TcpRelay = await startTcpRelay(gw.port);
    cleanups.push(() => relay.close());
    const r = await rig();
    const win = (await (async () => {
      r.f.trays[0]!.emit("click");
      return until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
    })()) as FakeWindow;
    await r.f.invoke(win, "openPage", ["settings"]);
    const settingsWin = await until("settings window", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/settings.html")));
    await r.f.invoke(settingsWin, "saveGateway", [{ label: "Home", color: "#0a84ff", url: gw.url, token: gw.token }]);
    await r.f.invoke(settingsWin, "saveGateway", [{ label: "Work", color: "#ff9f0a", url: relay.url, token: gw.token }]);
    win.blur();
    await until(
      "both connected",
      () =>
        r.shell.desk.snapshot().gateways.length === 2 && r.shell.desk.snapshot().gateways.every((g) => g.connection.state === "connected"),
      45_000,
    );
    const key = await agent.createSession();
    await put(key, { plan: plan("in_progress") });
    await until("one notice per Gateway", () => about(r, key).length === 2);
    const title = r.shell.desk.snapshot().gateways[0]!.cards.find((c) => c.sessionKey === key)!.title;
    assert.deepEqual(
      about(r, key)
        .map((n) => n.title)
        .sort(),
      [`Home · ${title}`, `Work · ${title}`],
    );
  });
});

describe("N6 away summary", () => {
  test("after sleep of more than 5 minutes: one summary instead of a backlog", { timeout: 60_000 }, async () => {
    const r = await rig();
    r.f.power.emit("suspend");
    const before = r.seen().length;
    await r.write(plan("completed", "completed"));
    await r.write(plan("completed", "completed"));
    await r.write(plan("in_progress", "pending"));
    assert.equal(r.seen().length, before, "nothing shown while away");
    r.f.clock.advance(AWAY_MS);
    r.f.power.emit("resume");
    await until("the away summary", () => r.seen().length > before);
    assert.deepEqual(
      r
        .seen()
        .slice(before)
        .map((n) => [n.title, n.body]),
      [["Progress Desk", "While you were away: 2 cards completed, 1 started"]],
    );
  });

  test("a short absence (locked for a moment) releases the milestones as they are, no summary", { timeout: 60_000 }, async () => {
    const r = await rig();
    r.f.power.emit("lock-screen");
    const before = r.seen().length;
    const key = await r.write(plan("completed", "in_progress"));
    assert.equal(r.seen().length, before, "held while locked");
    r.f.power.emit("unlock-screen");
    const n = await until("the held notice", () => about(r, key)[0]);
    assert.match(n.body, /^Started · 1\/2/);
    assert.equal(r.seen().length, before + 1);
  });

  test("the idle poller: idle for 5 minutes is away, activity again is back with a summary", { timeout: 60_000 }, async () => {
    const r = await rig({ idlePollMs: 40 });
    r.f.power.idleSeconds = 5 * 60 + 1;
    const asked = r.f.power.idleQueries;
    await until("the shell polled the idle time", () => r.f.power.idleQueries > asked);
    const before = r.seen().length;
    await r.write(plan("completed", "completed"));
    await r.write(plan("in_progress"));
    assert.equal(r.seen().length, before, "nothing shown while idle");
    r.f.clock.advance(AWAY_MS);
    r.f.power.idleSeconds = 0;
    await until("the away summary", () => r.seen().length > before);
    assert.deepEqual(
      r
        .seen()
        .slice(before)
        .map((n) => [n.title, n.body]),
      [["Progress Desk", "While you were away: 1 card completed, 1 started"]],
    );
  });
});

describe("N7 notifications unavailable", () => {
  test("where the OS has no notifications, a finished card shows as the tray's attention state", { timeout: 60_000 }, async () => {
    const r = await rig({ notificationsSupported: () => false });
    await seeEverything(r);
    await r.write(plan("completed", "completed"));
    const model = await until("attention", () => (r.shell.tray.current?.icon === "attention" ? r.shell.tray.current : null));
    assert.equal(model.badge, 1);
    assert.match(r.f.trays[0]!.image, /attentionTemplate\.png$/);
    assert.equal(r.f.notifications.length, 0, "nothing was handed to the OS");
  });
});

describe("P2 popover and P4 one state for every placement", () => {
  test(
    "the open popover and dashboard receive the same card; showing the popover marks finished work seen",
    { timeout: 60_000 },
    async () => {
      const r = await rig();
      r.f.trays[0]!.emit("click");
      const popover = await until("popover", () => r.f.windows.find((w) => w.urls[0]?.startsWith("app://desk/popover.html") && w.visible));
      assert.ok(popover.focused, "the popover takes focus");
      await r.shell.openPage("dashboard");
      const dash = r.f.windows.find((w) => w.urls[0] === "app://desk/dashboard.html")!;
      assert.ok(dash.visible);
      const sentTo = (w: FakeWindow, key: string) =>
        w.webContents.sent
          .filter((m) => m.channel === "progress-desk:event")
          .map((m) => (m.payload as { type: string; change?: DeskChange }).change)
          .filter(
            (c): c is Extract<DeskChange, { type: "card" }> => c?.type === "card" && c.entry.sessionKey === key && c.entry.card !== null,
          )
          .at(-1)?.entry;
      popover.blur(); // the dashboard took the focus: the popover hides
      const key = await r.write(plan("completed", "completed"), "All done");
      const inPopover = await until("the card reached the popover", () => sentTo(popover, key));
      const inDashboard = await until("the card reached the dashboard", () => sentTo(dash, key));
      assert.deepEqual(inPopover, inDashboard);
      assert.deepEqual(inPopover.card, r.shell.desk.snapshot().gateways[0]!.cards.find((c) => c.sessionKey === key)!.card);

      // The popover is hidden: the finished card waits as "ready"...
      assert.equal(popover.visible, false);
      await until("ready", () => r.shell.tray.current?.icon === "ready");
      assert.match(r.f.trays[0]!.image, /readyTemplate\.png$/);
      // ...until the person opens the popover with the global shortcut and sees it.
      r.shell.settings.update({ popoverShortcut: "CommandOrControl+Shift+P" });
      r.f.clock.advance(1000); // past the guard against the blur's own click
      r.f.shortcuts.get("CommandOrControl+Shift+P")!();
      await until("popover shown again", () => popover.visible);
      await until("seen", () => r.shell.tray.current?.icon !== "ready");
      assert.doesNotMatch(r.f.trays[0]!.image, /readyTemplate\.png$/);
    },
  );
});
