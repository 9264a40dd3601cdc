// The tray kept current (main/electron/setup/tray-presenter.ts): bursts of changes drawn
// once, a disconnect drawn again when it has lasted, glyphs following the OS theme, menu
// and clicks reaching the shell's actions. The FAKE Electron kit's tray and theme, a FAKE
// desk and settings (setup-support.ts), ManualTimers for every delay: no Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createLogger } from "../../main/core/logger.ts";
import { DEFAULT_DISCONNECT_DEBOUNCE_MS, TrayTracker, type TrayModel } from "../../main/core/tray-model.ts";
import { REDRAW_COALESCE_MS, setupTrayPresenter, type TrayPresenterContext } from "../../main/electron/setup/tray-presenter.ts";
import { until } from "../harness/until.ts";
import { card, entry, need, offline, T0 } from "../renderer/fixtures.ts";
import { ManualTimers } from "../unit/manual-timers.ts";
import { fakeElectron, type FakeMenu } from "./fake-electron.ts";
import { FakeDesk, FakeSettings } from "./setup-support.ts";

type SetupOptions = { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv } & Partial<
  Pick<TrayPresenterContext, "logFolder" | "openPath" | "logger">
>;

function setup(opts: SetupOptions = {}) {
  const f = fakeElectron({ dataDir: "unused", env: opts.env ?? {}, platform: opts.platform ?? "darwin" });
  const desk = new FakeDesk();
  desk.gateway("home", "Home");
  const settings = new FakeSettings({ trayTitle: true });
  const timers = new ManualTimers();
  const clock = { now: T0 };
  const tracker = new TrayTracker();
  const attentionListeners = new Set<() => void>();
  const actions: string[] = [];
  const presenter = setupTrayPresenter({
    ...f.deps,
    desk,
    settings,
    attention: {
      tracker,
      onChanged: (l) => {
        attentionListeners.add(l);
        return () => void attentionListeners.delete(l);
      },
    },
    actions: {
      togglePopover: () => void actions.push("toggle"),
      openCard: (ref) => void actions.push(`open ${ref.sessionKey}`),
      openNeed: (ref) => void actions.push(`need ${ref.gatewayId}/${ref.id}`),
      openSession: (ref) => void actions.push(`session ${ref.sessionKey}`),
      openDashboard: () => void actions.push("dashboard"),
      openSettings: () => void actions.push("settings"),
      retryGateway: (id) => void actions.push(`retry ${id}`),
      quit: () => void actions.push("quit"),
    },
    now: () => clock.now,
    schedule: timers.schedule,
    ...(opts.logFolder !== undefined ? { logFolder: opts.logFolder } : {}),
    ...(opts.openPath ? { openPath: opts.openPath } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  // Every model the presenter hands to the tray, in order.
  const drawn: TrayModel[] = [];
  const render = presenter.tray.render.bind(presenter.tray);
  presenter.tray.render = (m) => {
    drawn.push(m);
    render(m);
  };
  const attentionChanged = () => {
    for (const l of attentionListeners) l();
  };
  const listeners = () => attentionListeners.size;
  return { f, desk, settings, timers, clock, tracker, presenter, drawn, actions, attentionChanged, listeners };
}

describe("tray presenter: coalesced redraws", () => {
  test("a burst of card changes is drawn once, after the coalescing delay", () => {
    const { desk, timers, drawn, f } = setup();
    for (let i = 1; i <= 3; i++) desk.putCard(entry({ sessionKey: `s:${i}`, card: card({ sessionKey: `s:${i}` }) }));
    assert.equal(drawn.length, 0, "nothing drawn during the burst");
    assert.deepEqual(timers.pending(), [REDRAW_COALESCE_MS], "one redraw is scheduled for the whole burst");
    timers.fireNext();
    assert.equal(drawn.length, 1);
    assert.equal(drawn[0]!.cards.length, 3, "the one draw shows every card of the burst");
    assert.match(f.trays[0]!.title, /^1\/3 /);
  });

  test("a settings change or a change in what asks for a look redraws too", () => {
    const { settings, timers, drawn, attentionChanged } = setup();
    settings.update({ trayTitle: false });
    assert.deepEqual(timers.pending(), [REDRAW_COALESCE_MS]);
    attentionChanged();
    assert.deepEqual(timers.pending(), [REDRAW_COALESCE_MS], "still one");
    timers.fireNext();
    assert.equal(drawn.length, 1);
  });

  test("redraw() draws at once and takes the place of the pending one", () => {
    const { desk, timers, drawn, presenter } = setup();
    desk.putCard(entry({ sessionKey: "s:1", card: card({ sessionKey: "s:1" }) }));
    presenter.redraw();
    assert.equal(drawn.length, 1);
    assert.deepEqual(timers.pending(), []);
  });
});

describe("tray presenter: a disconnect that has lasted", () => {
  test("is not shown at once; a redraw is scheduled for when it has lasted, and shows it", () => {
    const { desk, tracker, presenter, timers, clock, drawn } = setup();
    tracker.noteConnection("home", offline(T0 + 5000), T0);
    desk.gateway("home").connection = offline(T0 + 5000);
    presenter.redraw();
    assert.notEqual(drawn.at(-1)!.icon, "disconnected", "a fresh disconnect may be a blip");
    assert.deepEqual(timers.pending(), [DEFAULT_DISCONNECT_DEBOUNCE_MS]);
    clock.now = T0 + DEFAULT_DISCONNECT_DEBOUNCE_MS;
    timers.fireNext();
    assert.equal(drawn.at(-1)!.icon, "disconnected");
    assert.deepEqual(timers.pending(), [], "nothing more is due");
  });
});

describe("tray presenter: theme, clicks and menu", () => {
  test("on a light KDE panel the glyphs turn white with a dark theme, and back", () => {
    const { f } = setup({ platform: "linux", env: { XDG_CURRENT_DESKTOP: "KDE" } });
    const t = f.trays[0]!;
    assert.match(t.image, /Template\.png$/);
    f.theme.set(true);
    assert.match(t.image, /White\.png$/);
    f.theme.set(false);
    assert.match(t.image, /Template\.png$/);
  });

  test("the click toggles the popover; the menu's rows open a card, retry a Gateway, quit", () => {
    const { f, desk, presenter, actions } = setup();
    desk.putCard(entry({ sessionKey: "s:1", card: card({ sessionKey: "s:1" }) }));
    desk.setConnection("home", offline(T0 + 5000, { lastConnectedAt: T0 - 60_000 }));
    presenter.redraw();
    const t = f.trays[0]!;
    t.emit("click");
    t.emit("right-click");
    const menu = t.poppedUp.at(-1) as FakeMenu;
    const click = (label: RegExp) => (menu.items.find((i) => typeof i.label === "string" && label.test(i.label))!.click as () => void)();
    click(/Working on it|Step 2/);
    (menu.items.find((i) => i.sublabel === "Click to retry now")!.click as () => void)();
    click(/Quit Progress Desk/);
    click(/Open Dashboard/);
    assert.deepEqual(actions, ["toggle", "open s:1", "retry home", "quit", "dashboard"]);
  });

  test("with a log folder the menu has Show Logs, which opens it; a folder that will not open is logged", async () => {
    const opened: string[] = [];
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn", sink: (r) => void warnings.push(`${r.message} ${String(r.fields.error)}`) });
    const menuOf = (f: ReturnType<typeof setup>["f"]) => {
      f.trays[0]!.emit("right-click");
      return f.trays[0]!.poppedUp.at(-1) as FakeMenu;
    };
    const showLogs = (menu: FakeMenu) => menu.items.find((i) => i.label === "Show Logs");

    const plain = setup();
    plain.presenter.redraw();
    assert.equal(showLogs(menuOf(plain.f)), undefined, "no log folder: no Show Logs");

    const failing = async (path: string): Promise<string> => {
      opened.push(path);
      return path.endsWith("missing") ? "Failed to open path" : "";
    };
    const logs = setup({ logFolder: "/logs", openPath: failing, logger });
    logs.presenter.redraw();
    (showLogs(menuOf(logs.f))!.click as () => void)();
    assert.deepEqual(opened, ["/logs"]);
    assert.deepEqual(warnings, [], "a folder that opened is not a warning");

    const broken = setup({ logFolder: "/logs/missing", openPath: failing, logger });
    broken.presenter.redraw();
    (showLogs(menuOf(broken.f))!.click as () => void)();
    await until("the warning for the folder that did not open", () => warnings.length > 0);
    assert.deepEqual(warnings, ["could not open the log folder Failed to open path"]);
  });

  test("stop leaves no timer and no listener; destroy removes the tray", () => {
    const { desk, settings, timers, presenter, f, listeners } = setup();
    desk.putCard(entry({ sessionKey: "s:1", card: card({ sessionKey: "s:1" }) }));
    presenter.stop();
    assert.deepEqual(timers.pending(), []);
    assert.equal(desk.subscribers(), 0);
    assert.equal(settings.listenerCount(), 0);
    assert.equal(listeners(), 0);
    presenter.destroy();
    assert.equal(f.trays[0]!.destroyed, true);
  });
});

describe("tray presenter: needs you", () => {
  test("an approval on any Gateway shows the needs-you glyph and count ahead of every other state; its row opens the popover at it", () => {
    const { desk, timers, f, actions } = setup({ platform: "darwin" });
    desk.gateway("work", "Work");
    // A paused card asks for a look, and the other Gateway is offline: needs you still comes first.
    desk.putCard(entry({ sessionKey: "s:p", card: card({ sessionKey: "s:p", steps: [{ label: "Review", status: "paused" }] as never }) }));
    desk.putNeed(need({ id: "appr-1", command: "uname -s" }));
    desk.putNeed(
      need({
        gatewayId: "work",
        id: "ask_7",
        kind: "question",
        command: null,
        questions: [
          {
            questionId: "q1",
            header: "Deploy",
            question: "Ship it to production?",
            options: [{ label: "Yes", description: null }],
            multiSelect: false,
            isOther: false,
          },
        ],
      }),
    );
    timers.fireNext();
    const tray = f.trays[0]!;
    assert.match(tray.image, /needsTemplate\.png$/, "the needs-you glyph");
    assert.equal(tray.title, "2 need you");
    assert.equal(tray.tooltip, "Progress Desk — 2 need you");
    tray.emit("right-click");
    const menu = tray.poppedUp.at(-1) as FakeMenu;
    assert.deepEqual(
      menu.items.slice(0, 3).map((i) => i.label),
      ["2 need you", "Home · Command approval: uname -s", "Work · Question: Ship it to production?"],
      "needs-you rows head the menu",
    );
    (menu.items[2]!.click as () => void)();
    assert.deepEqual(actions, ["need work/ask_7"]);
  });
});
