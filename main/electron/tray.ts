// P1: draws the tray model. The Tray object lives as long as this controller, which the
// shell keeps for the life of the app (a collected Tray loses its icon). The image, title,
// tooltip and menu are set only when they change: each call costs, and on some Linux
// panels a redundant setImage flickers.
import type { Menu, MenuItemConstructorOptions, Tray } from "electron";
import type { CardRef } from "../../common/contract.ts";
import type { NeedRef } from "../../common/model.ts";
import { needYouText } from "../../common/needs-view.ts";
import type { TrayIconState, TrayModel } from "../core/tray-model.ts";
import type { UpdateMenuRow } from "../core/updates/update-menu.ts";
import type { Rect } from "./window-geometry.ts";

export type TrayLike = Pick<
  Tray,
  "setImage" | "setTitle" | "setToolTip" | "setContextMenu" | "popUpContextMenu" | "on" | "getBounds" | "destroy"
>;

export type TrayActions = {
  togglePopover(): void;
  openCard(ref: CardRef): void;
  /** Opens the popover at this needs-you entry. */
  openNeed(ref: NeedRef): void;
  /** Opens the card's session in its Gateway's Control UI. */
  openSession(ref: CardRef): void;
  openDashboard(): void;
  openSettings(): void;
  retryGateway(gatewayId: string): void;
  quit(): void;
  /** Opens the log file's folder; the menu has "Show Logs" only when the app keeps a log file. */
  showLogs?(): void;
  /** U5: restart into the downloaded update (the shell saves everything first). */
  installUpdate?(): void;
  /** U1: the person's "Check for Updates…". */
  checkForUpdates?(): void;
};

export type TrayDeps = {
  createTray: (iconPath: string) => TrayLike;
  buildMenu: (template: MenuItemConstructorOptions[]) => Menu;
  iconPath: (state: TrayIconState) => string;
  platform: NodeJS.Platform;
  actions: TrayActions;
};

/** The menu as plain items (tested without Electron); the shell turns it into a Menu. */
export function menuTemplate(model: TrayModel, actions: TrayActions, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [];
  // U5: a downloaded update asks first, above everything.
  const update = (row: UpdateMenuRow): MenuItemConstructorOptions =>
    row.action === "install"
      ? { label: row.label, click: () => actions.installUpdate?.() }
      : row.action === "check"
        ? { label: row.label, click: () => actions.checkForUpdates?.() }
        : { label: row.label, enabled: false };
  if (model.updates?.top) items.push(update(model.updates.top), { type: "separator" });
  // Linux panels open the menu on any click, so the popover needs its own entry there.
  if (platform === "linux") items.push({ label: "Show Task Progress", click: () => actions.togglePopover() }, { type: "separator" });
  // What waits on the person comes first, one row each (the popover shows it whole).
  if (model.needCount > 0) {
    items.push({ label: needYouText(model.needCount), enabled: false });
    for (const row of model.needs) items.push({ label: row.label, click: () => actions.openNeed(row.ref) });
    if (model.needCount > model.needs.length)
      items.push({ label: `${model.needCount - model.needs.length} more in the popover…`, click: () => actions.togglePopover() });
    items.push({ type: "separator" });
  }
  if (model.cards.length === 0) items.push({ label: "No progress cards", enabled: false });
  for (const row of model.cards) items.push({ label: row.label, click: () => actions.openCard(row.ref) });
  if (model.moreCards > 0) items.push({ label: `${model.moreCards} more in the popover…`, click: () => actions.togglePopover() });
  // One entry per card whose session has a Control UI route; none at all when no card has one.
  const sessions = model.cards.filter((row) => row.hasSession);
  if (sessions.length > 0) {
    const submenu = sessions.map((row) => ({ label: row.label, click: () => actions.openSession(row.ref) }));
    items.push({ label: "Open Session", submenu });
  }
  items.push({ type: "separator" });
  for (const c of model.connections) {
    if (c.needsAction) items.push({ label: c.label, click: () => actions.openSettings() });
    else if (c.state === "offline")
      items.push({ label: c.label, sublabel: "Click to retry now", click: () => actions.retryGateway(c.gatewayId) });
    else items.push({ label: c.label, enabled: false });
  }
  items.push(
    { type: "separator" },
    { label: "Open Dashboard", click: () => actions.openDashboard() },
    { label: "Settings…", accelerator: "CommandOrControl+,", click: () => actions.openSettings() },
  );
  for (const row of model.updates?.rows ?? []) items.push(update(row));
  if (actions.showLogs) items.push({ label: "Show Logs", click: () => actions.showLogs?.() });
  items.push({ type: "separator" }, { label: "Quit Progress Desk", accelerator: "CommandOrControl+Q", click: () => actions.quit() });
  return items;
}

function menuSignature(model: TrayModel): string {
  return JSON.stringify([
    model.needs,
    model.needCount,
    model.cards.map((r) => [r.label, r.ref, r.hasSession]),
    model.moreCards,
    model.connections,
    model.updates,
  ]);
}

export class TrayController {
  private readonly tray: TrayLike;
  private readonly deps: TrayDeps;
  private icon: TrayIconState;
  private iconFile: string;
  private title = "";
  private tooltip = "";
  private menuKey = "";
  private menu: Menu | null = null;
  /** What the tray shows now, for tests and the test hooks. */
  current: TrayModel | null = null;

  constructor(deps: TrayDeps, initial: TrayIconState = "disconnected") {
    this.deps = deps;
    this.icon = initial;
    this.iconFile = deps.iconPath(initial);
    this.tray = deps.createTray(this.iconFile);
    if (deps.platform !== "linux") {
      // macOS and Windows: left click is the popover, right click the menu.
      this.tray.on("click", () => deps.actions.togglePopover());
      this.tray.on("right-click", () => {
        if (this.menu) this.tray.popUpContextMenu(this.menu);
      });
    }
  }

  render(model: TrayModel): void {
    this.current = model;
    if (model.icon !== this.icon) {
      this.icon = model.icon;
      this.refreshIcon();
    }
    if (model.title !== this.title && this.deps.platform === "darwin") {
      this.title = model.title;
      // A monospaced-digit title does not jiggle as counts change.
      this.tray.setTitle(model.title, { fontType: "monospacedDigit" });
    }
    if (model.tooltip !== this.tooltip) {
      this.tooltip = model.tooltip;
      this.tray.setToolTip(model.tooltip);
    }
    const key = menuSignature(model);
    if (key !== this.menuKey) {
      this.menuKey = key;
      this.menu = this.deps.buildMenu(menuTemplate(model, this.deps.actions, this.deps.platform));
      if (this.deps.platform === "linux") this.tray.setContextMenu(this.menu);
    }
  }

  /** Sets the image again if its file changed (the state, or the glyph set for the theme). */
  refreshIcon(): void {
    const file = this.deps.iconPath(this.icon);
    if (file === this.iconFile) return;
    this.iconFile = file;
    this.tray.setImage(file);
  }

  /** The menu's labels, top first, a separator as "—" (the test hooks: Playwright cannot open a native menu). */
  menuLabels(): string[] {
    if (!this.current) return [];
    return menuTemplate(this.current, this.deps.actions, this.deps.platform).map((i) =>
      String(i.label ?? (i.type === "separator" ? "—" : "")),
    );
  }

  bounds(): Rect {
    return this.tray.getBounds();
  }

  destroy(): void {
    this.tray.destroy();
  }
}
