// Hooks for the Playwright `_electron` suite, which cannot click a native tray icon or
// read its title. Installed only when PROGRESS_DESK_TEST_HOOKS=1 in an unpackaged run;
// a packaged app never has them.
import type { SettingsPatch } from "../../common/contract.ts";
import type { Shell } from "./shell.ts";

export type TestHooks = {
  trayModel(): unknown;
  clickTray(): void;
  menuLabels(): string[];
  notices(): unknown[];
  popoverVisible(): boolean;
  openPage(page: "popover" | "dashboard" | "settings"): Promise<void>;
  dashboardOnTop(): boolean | null;
  dashboardBounds(): unknown;
  updateSettings(patch: SettingsPatch): unknown;
  /** The app's own update state (U7): what the tray, the popover and Settings draw. */
  updates(): unknown;
  /** The tray menu's labels, top first. */
  trayMenuLabels(): string[];
  quit(): Promise<void>;
};

export function testHooksEnabled(env: NodeJS.ProcessEnv, packaged: boolean): boolean {
  return env.PROGRESS_DESK_TEST_HOOKS === "1" && !packaged;
}

export function buildTestHooks(shell: Shell, quit: () => Promise<void>): TestHooks {
  return {
    trayModel: () => shell.tray.current,
    clickTray: () => shell.popover.toggle(),
    menuLabels: () => [
      ...(shell.tray.current?.cards.map((r) => r.label) ?? []),
      ...(shell.tray.current?.connections.map((c) => c.label) ?? []),
    ],
    notices: () => [...shell.notifier.shown],
    popoverVisible: () => shell.popover.isVisible(),
    openPage: (page) => shell.openPage(page),
    dashboardOnTop: () => shell.dashboard.window()?.isAlwaysOnTop() ?? null,
    dashboardBounds: () => shell.dashboard.window()?.getBounds() ?? null,
    updateSettings: (patch) => shell.settings.update(patch),
    updates: () => shell.updates.view(),
    trayMenuLabels: () => shell.tray.menuLabels(),
    quit,
  };
}
