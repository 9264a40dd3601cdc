// The app's own updates (U1–U7), adapted: the updater the app passes in (ShellDeps.updater, none
// from a checkout) is handed to the update model, its events forwarded there, Settings' two
// switches applied to it, and the model's state offered to the tray and the pages. The rules
// (when to check, what to download, what to refuse) are the model's (main/core/updates/).
import type { Settings } from "../../../common/contract.ts";
import type { DeskSnapshot } from "../../../common/model.ts";
import { pendingNeeds } from "../../../common/needs-view.ts";
import { needEntryKey } from "../../../common/keys.ts";
import { UPDATES_COME_WITH_INSTALLED_APP, type UpdateView } from "../../../common/updates.ts";
import type { UpdatesPort } from "../../core/desk-service.ts";
import type { Logger } from "../../core/logger.ts";
import { forwardUpdaterEvents, UpdateModel } from "../../core/updates/update-model.ts";
import type { UpdateAvailability, UpdaterLike } from "../../core/updates/updater-port.ts";
import type { Schedule } from "../popover.ts";
import type { Notifier } from "../notifier.ts";

/** What the app passes in to update itself: whether this build can, and the updater (made only then). */
export type UpdaterDeps = { availability: UpdateAvailability; create(): UpdaterLike };

export type UpdatesContext = {
  updater?: UpdaterDeps;
  clientVersion: string;
  settings: { view(): Pick<Settings, "updates">; onChange(listener: (s: Settings) => void): () => void };
  desk: { snapshot(): DeskSnapshot };
  notifier: Pick<Notifier, "liveNeeds">;
  /** Saves everything before the updater quits the app to install: the shell's shutdown. */
  beforeInstall: () => Promise<void>;
  /** Ends the app when the updater could not (everything is already stopped). */
  quit: () => void;
  now: () => number;
  schedule: Schedule;
  logger?: Logger;
};

export type Updates = {
  model: UpdateModel;
  /** The pages' side (desk service). */
  port: UpdatesPort;
  view(): UpdateView;
  onChanged(listener: () => void): () => void;
  start(): void;
  wake(): void;
  dispose(): void;
};

/** Why an update must wait now, or null: a needs-you notice the person may be answering, a Gateway reconnecting (U3). */
export function updateBusyReason(snapshot: DeskSnapshot, liveNeeds: { gatewayId: string; id: string }[]): string | null {
  const pending = new Set(pendingNeeds(snapshot).map(needEntryKey));
  if (liveNeeds.some((ref) => pending.has(needEntryKey(ref)))) return "a needs-you notice is open";
  const reconnecting = snapshot.gateways.some(
    (g) => g.connection.state === "connecting" || (g.connection.state === "offline" && g.connection.restarting),
  );
  return reconnecting ? "a Gateway is reconnecting" : null;
}

export function setupUpdates(ctx: UpdatesContext): Updates {
  const availability: UpdateAvailability = ctx.updater?.availability ?? { enabled: false, reason: UPDATES_COME_WITH_INSTALLED_APP };
  const prefs = () => ctx.settings.view().updates;
  const model = new UpdateModel({
    currentVersion: ctx.clientVersion,
    availability,
    createUpdater: () => {
      if (!ctx.updater) throw new Error("no updater");
      return ctx.updater.create();
    },
    prefs,
    busy: () => updateBusyReason(ctx.desk.snapshot(), ctx.notifier.liveNeeds()),
    beforeInstall: ctx.beforeInstall,
    installFailed: ctx.quit,
    now: ctx.now,
    schedule: ctx.schedule,
    ...(ctx.logger ? { log: ctx.logger } : {}),
  });
  const stopForwarding = model.updater ? forwardUpdaterEvents(model.updater, model) : () => undefined;
  let last = JSON.stringify(prefs());
  const unsubscribe = ctx.settings.onChange((s) => {
    const next = JSON.stringify(s.updates);
    if (next === last) return;
    last = next;
    model.applyPrefs();
  });

  const port: UpdatesPort = {
    view: () => model.view(),
    check: () => model.checkNow(),
    install: () => model.install(),
    subscribe: (listener) => model.subscribe(() => listener(model.view())),
  };
  return {
    model,
    port,
    view: () => model.view(),
    onChanged: (listener) => model.subscribe(listener),
    start: () => model.start(),
    wake: () => model.wake(),
    dispose() {
      unsubscribe();
      stopForwarding();
      model.dispose();
    },
  };
}
