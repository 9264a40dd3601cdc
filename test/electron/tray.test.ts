// The tray (main/electron/tray.ts): the menu built from a tray model, and the controller that draws it — setting image, title, tooltip and menu only when they change, per platform. A FAKE Tray and a FAKE Menu builder stand in for Electron; tray models are written by hand.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KeyboardEvent, Menu, MenuItem, MenuItemConstructorOptions } from "electron";
import type { TrayIconState, TrayModel } from "../../main/core/tray-model.ts";
import { menuTemplate, TrayController, type TrayActions, type TrayLike } from "../../main/electron/tray.ts";
import type { CardRef } from "../../common/contract.ts";
import { FakeTray, type FakeMenu } from "./fake-electron.ts";

const refA: CardRef = { gatewayId: "home", sessionKey: "agent:main:a", agentId: "main" };
const refB: CardRef = { gatewayId: "work", sessionKey: "agent:ops:b", agentId: null };

function model(overrides: Partial<TrayModel> = {}): TrayModel {
  return {
    icon: "working",
    badge: 1,
    title: "2/5 Repair session owner",
    tooltip: "Progress Desk — 1 item needs a look, 1 working",
    cards: [
      { ref: refA, label: "Home · Repair session owner — tests (2/5)", state: "active", asks: false, hasSession: false },
      { ref: refB, label: "Work · Deploy — paused at review (1/3)", state: "paused", asks: true, hasSession: false },
    ],
    moreCards: 0,
    connections: [
      { gatewayId: "home", state: "connected", label: "Home: Connected", needsAction: false },
      { gatewayId: "work", state: "offline", label: "Work: Offline — retrying in 5 s", needsAction: false },
      { gatewayId: "lab", state: "pairing_required", label: "Lab: Pairing required — approve on the Gateway host", needsAction: true },
      { gatewayId: "attic", state: "connecting", label: "Attic: Connecting…", needsAction: false },
      { gatewayId: "cloud", state: "auth_failed", label: "Cloud: Sign-in failed — check the token", needsAction: true },
    ],
    needs: [],
    needCount: 0,
    updates: null,
    ...overrides,
  };
}

function recordingActions(): { actions: TrayActions; log: string[] } {
  const log: string[] = [];
  return {
    log,
    actions: {
      togglePopover: () => log.push("togglePopover"),
      openCard: (ref) => log.push(`openCard ${ref.gatewayId}/${ref.sessionKey}`),
      openNeed: (ref) => log.push(`openNeed ${ref.gatewayId}/${ref.id}`),
      openSession: (ref) => log.push(`openSession ${ref.gatewayId}/${ref.sessionKey}`),
      openDashboard: () => log.push("openDashboard"),
      openSettings: () => log.push("openSettings"),
      retryGateway: (id) => log.push(`retryGateway ${id}`),
      quit: () => log.push("quit"),
    },
  };
}

/** The menu items without their click functions, for exact comparison. */
function shape(items: MenuItemConstructorOptions[]) {
  return items.map((i) => {
    const out: Record<string, unknown> = {};
    for (const k of ["type", "label", "sublabel", "enabled", "accelerator"] as const) if (i[k] !== undefined) out[k] = i[k];
    if (i.click) out.click = true;
    return out;
  });
}

function click(item: MenuItemConstructorOptions | undefined): void {
  assert.ok(item?.click, `${item?.label ?? "item"} is clickable`);
  item.click({} as MenuItem, undefined, {} as KeyboardEvent);
}

const TAIL = [
  { type: "separator" },
  { label: "Open Dashboard", click: true },
  { label: "Settings…", accelerator: "CommandOrControl+,", click: true },
  { type: "separator" },
  { label: "Quit Progress Desk", accelerator: "CommandOrControl+Q", click: true },
];

describe("menuTemplate", () => {
  test("macOS: cards, connections, then dashboard, settings and quit", () => {
    const { actions } = recordingActions();
    assert.deepEqual(shape(menuTemplate(model(), actions, "darwin")), [
      { label: "Home · Repair session owner — tests (2/5)", click: true },
      { label: "Work · Deploy — paused at review (1/3)", click: true },
      { type: "separator" },
      { label: "Home: Connected", enabled: false },
      { label: "Work: Offline — retrying in 5 s", sublabel: "Click to retry now", click: true },
      { label: "Lab: Pairing required — approve on the Gateway host", click: true },
      { label: "Attic: Connecting…", enabled: false },
      { label: "Cloud: Sign-in failed — check the token", click: true },
      ...TAIL,
    ]);
  });

  test("each row does its own thing when clicked", () => {
    const { actions, log } = recordingActions();
    const items = menuTemplate(model({ moreCards: 4 }), actions, "darwin");
    const byLabel = (label: string) => items.find((i) => i.label === label);
    click(byLabel("Home · Repair session owner — tests (2/5)"));
    click(byLabel("Work · Deploy — paused at review (1/3)"));
    click(byLabel("4 more in the popover…"));
    click(byLabel("Work: Offline — retrying in 5 s"));
    click(byLabel("Lab: Pairing required — approve on the Gateway host"));
    click(byLabel("Cloud: Sign-in failed — check the token"));
    click(byLabel("Open Dashboard"));
    click(byLabel("Settings…"));
    click(byLabel("Quit Progress Desk"));
    assert.deepEqual(log, [
      "openCard home/agent:main:a",
      "openCard work/agent:ops:b",
      "togglePopover",
      "retryGateway work",
      "openSettings",
      "openSettings",
      "openDashboard",
      "openSettings",
      "quit",
    ]);
  });

  test("Open Session lists only the cards with a Control UI route; each opens its own session", () => {
    const { actions, log } = recordingActions();
    const withRoute = model();
    withRoute.cards = withRoute.cards.map((row) => ({ ...row, hasSession: row.ref === refB }));
    const items = menuTemplate(withRoute, actions, "darwin");
    const open = items.find((i) => i.label === "Open Session");
    assert.ok(open, "the Open Session item is there");
    assert.equal(items.indexOf(open), 2, "right after the card rows");
    const submenu = open.submenu as MenuItemConstructorOptions[];
    assert.deepEqual(shape(submenu), [{ label: "Work · Deploy — paused at review (1/3)", click: true }]);
    click(submenu[0]);
    assert.deepEqual(log, ["openSession work/agent:ops:b"]);
    // Without any route there is no such item (the macOS test above shows the whole menu).
    assert.equal(
      menuTemplate(model(), actions, "darwin").find((i) => i.label === "Open Session"),
      undefined,
    );
  });

  test("a card row opens exactly the ref it was built with", () => {
    const refs: CardRef[] = [];
    const { actions } = recordingActions();
    const items = menuTemplate(model(), { ...actions, openCard: (r) => refs.push(r) }, "darwin");
    click(items[1]);
    assert.equal(refs[0], refB);
  });

  test("connected and connecting rows are disabled and have no click", () => {
    const { actions } = recordingActions();
    const items = menuTemplate(model(), actions, "darwin");
    for (const label of ["Home: Connected", "Attic: Connecting…"]) {
      const item = items.find((i) => i.label === label);
      assert.equal(item?.enabled, false, label);
      assert.equal(item?.click, undefined, label);
    }
  });

  test("an offline Gateway that also needs the person goes to Settings, not retry", () => {
    const { actions, log } = recordingActions();
    const items = menuTemplate(
      model({ cards: [], connections: [{ gatewayId: "x", state: "offline", label: "X", needsAction: true }] }),
      actions,
      "darwin",
    );
    const row = items.find((i) => i.label === "X");
    assert.equal(row?.sublabel, undefined);
    click(row);
    assert.deepEqual(log, ["openSettings"]);
  });

  test("more cards than fit: one row pointing at the popover", () => {
    const { actions } = recordingActions();
    const items = shape(menuTemplate(model({ moreCards: 12, connections: [] }), actions, "darwin"));
    assert.deepEqual(items.slice(0, 4), [
      { label: "Home · Repair session owner — tests (2/5)", click: true },
      { label: "Work · Deploy — paused at review (1/3)", click: true },
      { label: "12 more in the popover…", click: true },
      { type: "separator" },
    ]);
  });

  test("no cards: a disabled placeholder", () => {
    const { actions } = recordingActions();
    assert.deepEqual(shape(menuTemplate(model({ cards: [], connections: [] }), actions, "darwin")), [
      { label: "No progress cards", enabled: false },
      { type: "separator" },
      ...TAIL,
    ]);
  });

  test("Linux: the first item opens the popover (panels open the menu on any click)", () => {
    const { actions, log } = recordingActions();
    const items = menuTemplate(model({ cards: [], connections: [] }), actions, "linux");
    assert.deepEqual(shape(items), [
      { label: "Show Task Progress", click: true },
      { type: "separator" },
      { label: "No progress cards", enabled: false },
      { type: "separator" },
      ...TAIL,
    ]);
    click(items[0]);
    assert.deepEqual(log, ["togglePopover"]);
  });

  test("Windows has no such first item", () => {
    const { actions } = recordingActions();
    assert.equal(menuTemplate(model(), actions, "win32")[0]?.label, "Home · Repair session owner — tests (2/5)");
    assert.equal(
      menuTemplate(model(), actions, "darwin").some((i) => i.label === "Show Task Progress"),
      false,
    );
  });
});

function setup(platform: NodeJS.Platform, initial?: TrayIconState) {
  const trays: FakeTray[] = [];
  const menus: FakeMenu[] = [];
  const { actions, log } = recordingActions();
  const controller = new TrayController(
    {
      createTray: (iconPath) => {
        const t = new FakeTray(iconPath);
        trays.push(t);
        return t as unknown as TrayLike;
      },
      buildMenu: (template) => {
        const m: FakeMenu = { id: menus.length + 1, items: template };
        menus.push(m);
        return m as unknown as Menu;
      },
      iconPath: (state) => `icons/${state}Template.png`,
      platform,
      actions,
    },
    initial,
  );
  assert.equal(trays.length, 1);
  const tray = trays[0]!;
  const names = (): string[] => tray.calls.map((c) => c[0]);
  return { controller, tray, menus, log, names };
}

describe("TrayController", () => {
  test("the tray is created once, with the initial icon (disconnected by default)", () => {
    assert.equal(setup("darwin").tray.iconPath, "icons/disconnectedTemplate.png");
    assert.equal(setup("darwin", "idle").tray.iconPath, "icons/idleTemplate.png");
    const { tray, controller } = setup("darwin");
    assert.deepEqual(tray.calls, []);
    assert.equal(controller.current, null);
  });

  test("macOS: the first render sets image, monospaced-digit title, tooltip and menu", () => {
    const { controller, tray, menus } = setup("darwin");
    const m = model();
    controller.render(m);
    assert.equal(menus.length, 1);
    assert.deepEqual(tray.calls, [
      ["setImage", "icons/workingTemplate.png"],
      ["setTitle", "2/5 Repair session owner", { fontType: "monospacedDigit" }],
      ["setToolTip", "Progress Desk — 1 item needs a look, 1 working"],
    ]);
    assert.deepEqual(shape(menus[0]!.items), shape(menuTemplate(m, recordingActions().actions, "darwin")));
    assert.equal(controller.current, m);
  });

  test("rendering the same model again changes nothing", () => {
    const { controller, tray, menus } = setup("darwin");
    controller.render(model());
    const before = tray.calls.length;
    controller.render(model());
    controller.render(structuredClone(model()));
    assert.equal(tray.calls.length, before);
    assert.equal(menus.length, 1);
  });

  test("only what changed is set again", () => {
    const { controller, tray, menus, names } = setup("darwin");
    controller.render(model());
    tray.calls.length = 0;

    controller.render(model({ tooltip: "Progress Desk — nothing in progress" }));
    assert.deepEqual(tray.calls, [["setToolTip", "Progress Desk — nothing in progress"]]);
    tray.calls.length = 0;

    controller.render(model({ tooltip: "Progress Desk — nothing in progress", icon: "attention", badge: 3 }));
    assert.deepEqual(tray.calls, [["setImage", "icons/attentionTemplate.png"]]);
    tray.calls.length = 0;

    controller.render(model({ tooltip: "Progress Desk — nothing in progress", icon: "attention", title: "" }));
    assert.deepEqual(tray.calls, [["setTitle", "", { fontType: "monospacedDigit" }]]);
    assert.equal(menus.length, 1, "none of that touched the menu");
    assert.deepEqual(names(), ["setTitle"]);
  });

  test("refreshIcon sets the image again only when its file changed (a theme switch elsewhere than macOS)", () => {
    let variant = "Template";
    const trays: FakeTray[] = [];
    const controller = new TrayController({
      createTray: (iconPath) => {
        const t = new FakeTray(iconPath);
        trays.push(t);
        return t as unknown as TrayLike;
      },
      buildMenu: (template) => ({ id: 1, items: template }) as unknown as Menu,
      iconPath: (state) => `icons/${state}${variant}.png`,
      platform: "linux",
      actions: recordingActions().actions,
    });
    const tray = trays[0]!;
    controller.refreshIcon();
    assert.deepEqual(tray.calls, [], "same file: nothing set");
    variant = "White";
    controller.refreshIcon();
    assert.deepEqual(tray.calls, [["setImage", "icons/disconnectedWhite.png"]]);
    controller.render(model());
    assert.deepEqual(
      tray.calls.filter((c) => c[0] === "setImage"),
      [
        ["setImage", "icons/disconnectedWhite.png"],
        ["setImage", "icons/workingWhite.png"],
      ],
    );
  });

  test("the menu is rebuilt when a card row, the overflow count or a connection changes", () => {
    const { controller, menus } = setup("darwin");
    const base = model();
    controller.render(base);
    controller.render({ ...base, cards: [{ ...base.cards[0]!, label: "Home · Repair session owner — tests (3/5)" }, base.cards[1]!] });
    assert.equal(menus.length, 2);
    controller.render({
      ...base,
      cards: [{ ...base.cards[0]!, label: "Home · Repair session owner — tests (3/5)" }, base.cards[1]!],
      moreCards: 1,
    });
    assert.equal(menus.length, 3);
    controller.render({ ...base, moreCards: 1 });
    assert.equal(menus.length, 4);
    controller.render({
      ...base,
      moreCards: 1,
      connections: [{ gatewayId: "home", state: "offline", label: "Home: Offline — retrying now", needsAction: false }],
    });
    assert.equal(menus.length, 5);
    // A row that points at another card with the same label is a change too.
    controller.render({
      ...base,
      moreCards: 1,
      connections: [{ gatewayId: "home", state: "offline", label: "Home: Offline — retrying now", needsAction: false }],
      cards: [{ ...base.cards[0]!, ref: refB }, base.cards[1]!],
    });
    assert.equal(menus.length, 6);
    // Row state and "asks" are not shown in the menu: no rebuild.
    controller.render({
      ...base,
      moreCards: 1,
      connections: [{ gatewayId: "home", state: "offline", label: "Home: Offline — retrying now", needsAction: false }],
      cards: [{ ...base.cards[0]!, ref: refB, asks: true, state: "paused" }, base.cards[1]!],
    });
    assert.equal(menus.length, 6);
  });

  test("an icon equal to the initial one is not set again", () => {
    const { controller, tray } = setup("darwin", "working");
    controller.render(model());
    assert.equal(
      tray.calls.some((c) => c[0] === "setImage"),
      false,
    );
  });

  test("macOS: left click toggles the popover, right click pops up the current menu", () => {
    const { controller, tray, menus, log } = setup("darwin");
    assert.equal(tray.listenerCount("click"), 1);
    assert.equal(tray.listenerCount("right-click"), 1);
    tray.emit("right-click");
    assert.deepEqual(tray.calls, [], "no menu before the first render");
    tray.emit("click");
    assert.deepEqual(log, ["togglePopover"]);
    controller.render(model());
    tray.emit("right-click");
    assert.deepEqual(tray.calls.at(-1), ["popUpContextMenu", menus[0]]);
    controller.render(model({ moreCards: 2 }));
    tray.emit("right-click");
    assert.deepEqual(tray.calls.at(-1), ["popUpContextMenu", menus[1]]);
    assert.equal(
      tray.calls.some((c) => c[0] === "setContextMenu"),
      false,
      "macOS never sets a context menu",
    );
  });

  test("Linux: no title, no click handlers, the menu set as the context menu on each change", () => {
    const { controller, tray, menus, names } = setup("linux");
    assert.equal(tray.listenerCount("click"), 0);
    assert.equal(tray.listenerCount("right-click"), 0);
    controller.render(model());
    assert.deepEqual(names(), ["setImage", "setToolTip", "setContextMenu"]);
    assert.deepEqual(tray.calls.at(-1), ["setContextMenu", menus[0]]);
    assert.equal(menus[0]!.items[0]?.label, "Show Task Progress");
    controller.render(model());
    assert.equal(names().length, 3);
    controller.render(model({ moreCards: 1 }));
    assert.deepEqual(tray.calls.at(-1), ["setContextMenu", menus[1]]);
    controller.render(model({ moreCards: 1, title: "other" }));
    assert.equal(names().includes("setTitle"), false);
    // A session route appearing for a card is a new menu (the Open Session entry).
    const routed = model({ moreCards: 1, title: "other" });
    routed.cards = routed.cards.map((row) => ({ ...row, hasSession: true }));
    controller.render(routed);
    assert.deepEqual(tray.calls.at(-1), ["setContextMenu", menus[2]]);
    assert.ok(menus[2]!.items.some((i) => i.label === "Open Session"));
  });

  test("Windows: no title, clicks like macOS", () => {
    const { controller, tray, log, names } = setup("win32");
    controller.render(model());
    assert.deepEqual(names(), ["setImage", "setToolTip"]);
    tray.emit("click");
    tray.emit("right-click");
    assert.deepEqual(log, ["togglePopover"]);
    assert.deepEqual(names(), ["setImage", "setToolTip", "popUpContextMenu"]);
  });

  test("the built menu's items call the controller's actions", () => {
    const { controller, menus, log } = setup("darwin");
    controller.render(model());
    click(menus[0]!.items.find((i) => i.label === "Quit Progress Desk"));
    click(menus[0]!.items[0]);
    assert.deepEqual(log, ["quit", "openCard home/agent:main:a"]);
  });

  test("bounds and destroy go to the tray", () => {
    const { controller, tray } = setup("darwin");
    tray.bounds = { x: 1000, y: 0, width: 24, height: 22 };
    assert.deepEqual(controller.bounds(), { x: 1000, y: 0, width: 24, height: 22 });
    controller.destroy();
    assert.deepEqual(tray.calls, [["destroy"]]);
  });
});
