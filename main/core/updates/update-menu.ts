// U5, U6: the tray menu's update rows as data (the tray draws them, main/electron/tray.ts).
// A ready update puts "Restart to Update (1.2.3)" at the very top of the menu. Below, near
// Settings, "Check for Updates…" stays a command; the result of the person's last check is a
// disabled row under it for RESULT_SHOWN_MS ("Up to date", "Update found: 1.2.3 — downloading",
// "Update failed: why"). A separate row, not the item's label: a menu item's label is what it
// does, and the item stays there to be pressed again while the result is read. Where updates
// are off for good (a checkout, an unsigned build) the item is a disabled row with the reason.
import type { UpdateView } from "../../../common/updates.ts";
import { truncate } from "../../../common/truncate.ts";

export type UpdateMenuRow = { label: string; action: "install" | "check" | null };
export type UpdateMenu = {
  /** The first row of the menu, when an update is ready. */
  top: UpdateMenuRow | null;
  /** Rows beside Settings: the check command and what it found. */
  rows: UpdateMenuRow[];
};

export const CHECK_FOR_UPDATES = "Check for Updates…";
const BUDGET = 64;

export function updateMenu(view: UpdateView): UpdateMenu {
  if (view.state === "disabled") return { top: null, rows: [{ label: truncate(`Updates: ${view.reason}`, BUDGET), action: null }] };
  const top = view.state === "ready" ? { label: `Restart to Update (${view.version})`, action: "install" as const } : null;
  const busy = view.state === "checking" ? "Checking for updates…" : null;
  const rows: UpdateMenuRow[] = [{ label: busy ?? CHECK_FOR_UPDATES, action: busy ? null : "check" }];
  if (view.result) rows.push({ label: truncate(view.result.text, BUDGET), action: null });
  return { top, rows };
}
