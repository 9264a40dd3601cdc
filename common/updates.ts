// U1–U8: the app's own updates as the pages and the tray see them. main/core/updates/ keeps
// the state; this is the part that crosses the contract (the snapshot's `updates`, the
// `updates` change, the result of checkForUpdates).

export type UpdateChannel = "stable" | "beta";

export type UpdateState =
  | { state: "idle" }
  | { state: "checking" }
  | { state: "available"; version: string }
  | { state: "downloading"; version: string; percent: number; transferred: number; total: number }
  | { state: "ready"; version: string }
  | { state: "error"; reason: string }
  | { state: "disabled"; reason: string };

/** What the last check the person asked for found, shown for a while (the tray menu, Settings). */
export type UpdateCheckResult = { kind: "up-to-date" | "found" | "failed" | "ready"; text: string };

export type UpdateView = UpdateState & {
  /** The running app's version. */
  currentVersion: string;
  channel: UpdateChannel;
  /** Automatic updates are on (Settings). */
  automatic: boolean;
  /** The result of the person's last check, while it is shown; null otherwise. */
  result: UpdateCheckResult | null;
  /** The last failure of an automatic check, kept quiet (diagnostics only); null when the last one went well. */
  quietError: string | null;
};

/** Where the app has no updater at all: the browser host. */
export const UPDATES_COME_WITH_THE_APP = "Updates come with the menu-bar app";
/** The menu-bar app run from a checkout or a build without an updater. */
export const UPDATES_COME_WITH_INSTALLED_APP = "Updates come with the installed app";

/** A view for a place that cannot update (U7): disabled with its reason. */
export function disabledUpdateView(reason: string, currentVersion: string): UpdateView {
  return { state: "disabled", reason, currentVersion, channel: "stable", automatic: false, result: null, quietError: null };
}

/** The popover's footer line (U6), or null when no update is ready. */
export function readyLine(view: UpdateView | null | undefined): string | null {
  return view?.state === "ready" ? `Version ${view.version} is ready` : null;
}

/** Settings' line about updates: the state in words, then the person's last check while it shows. */
export function updateStatusText(view: UpdateView): string {
  const state = ((): string => {
    switch (view.state) {
      case "idle":
        return `You have version ${view.currentVersion}.`;
      case "checking":
        return "Checking for updates…";
      case "available":
        return `Version ${view.version} is available.`;
      case "downloading":
        return `Downloading version ${view.version}… ${view.percent}%`;
      case "ready":
        return `Version ${view.version} is ready — restart to update.`;
      case "error":
      case "disabled":
        return view.reason;
    }
  })();
  return view.result && view.result.kind !== "ready" ? `${state} ${view.result.text}.` : state;
}
