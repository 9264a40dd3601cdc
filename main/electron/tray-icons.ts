// Where the tray glyphs live, and which set a platform shows. Pure (no `electron` import) so
// tests and scripts can use it. Files are `<state><Variant>.png` (18×18) beside
// `<state><Variant>@2x.png` (36×36): Electron picks the @2x file on high-density displays.
// Sources: assets/tray/src/<state>.svg, rendered by `node scripts/tray-icons.ts`.
//
// Variants:
//   - "Template" (black): on macOS the suffix makes the system tint the glyph for the menu
//     bar's light or dark appearance. Elsewhere it is drawn as is: fine on a light panel.
//   - "White": for dark panels on Linux and Windows, which never tint tray images.
import { join } from "node:path";

export type { TrayIconState } from "../core/tray-model.ts";
import type { TrayIconState } from "../core/tray-model.ts";

export const TRAY_ICON_STATES: readonly TrayIconState[] = Object.freeze(["idle", "working", "ready", "attention", "needs", "disconnected"]);

export type TrayIconVariant = "Template" | "White";
export const TRAY_ICON_VARIANTS: readonly TrayIconVariant[] = Object.freeze(["Template", "White"]);

/** The 1× image of `state` under `assetsDir` (the repository's or the app's `assets` folder). */
export function trayIconPath(assetsDir: string, state: TrayIconState, variant: TrayIconVariant = "Template"): string {
  return join(assetsDir, "tray", `${state}${variant}.png`);
}

// Desktops whose top panel is dark whatever the theme (GNOME Shell and its relatives).
const DARK_PANEL_DESKTOPS = /\b(gnome|unity|ubuntu|pantheon|x-cinnamon|cinnamon|budgie)\b/i;

/**
 * Which glyphs the tray shows. macOS tints the template itself. Linux and Windows draw the
 * image as is, so the glyph must contrast with the panel: white on a dark theme, and on the
 * GNOME family (whose top bar is dark even with a light theme); black otherwise.
 */
export function trayIconVariant(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, darkTheme: boolean): TrayIconVariant {
  if (platform === "darwin") return "Template";
  if (darkTheme) return "White";
  if (
    platform === "linux" &&
    DARK_PANEL_DESKTOPS.test(`${env.XDG_CURRENT_DESKTOP ?? ""}:${env.DESKTOP_SESSION ?? ""}`.replaceAll(":", " "))
  ) {
    return "White";
  }
  return "Template";
}
