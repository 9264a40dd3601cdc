// Where the tray glyphs live. Pure (no `electron` import) so tests and scripts can use it.
// Files are `<state>Template.png` (18×18) beside `<state>Template@2x.png` (36×36): Electron
// picks the @2x file on Retina displays, and the `Template` suffix makes macOS tint the glyph
// for the menu bar's light or dark appearance. Sources: assets/tray/src/<state>.svg,
// rendered by `node scripts/tray-icons.ts`.
import { join } from "node:path";

export type { TrayIconState } from "../core/tray-model.ts";
import type { TrayIconState } from "../core/tray-model.ts";

export const TRAY_ICON_STATES: readonly TrayIconState[] = Object.freeze(["idle", "working", "ready", "attention", "disconnected"]);

/** The 1× image of `state` under `assetsDir` (the repository's or the app's `assets` folder). */
export function trayIconPath(assetsDir: string, state: TrayIconState): string {
  return join(assetsDir, "tray", `${state}Template.png`);
}
