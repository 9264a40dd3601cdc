// What the shell asks of the operating system and hears from it. The global shortcut and
// the login item follow Settings (a shortcut another app holds is reported, not fatal).
// Sleep and the lock screen mean the person is away: notices are held and summed up when
// they are back, and waking reconnects every Gateway at once instead of waiting out a
// backoff. Being idle for five minutes is away too, found by polling the system idle time.
import type { GlobalShortcut, PowerMonitor } from "electron";
import type { Settings } from "../../../common/contract.ts";
import type { Schedule } from "../popover.ts";

/** Idle this long (seconds) and the person is away. */
export const AWAY_IDLE_SECONDS = 5 * 60;
export const DEFAULT_IDLE_POLL_MS = 60_000;

export type SystemHooksContext = {
  settings: { view(): Pick<Settings, "launchAtLogin" | "popoverShortcut">; onChange(listener: (s: Settings) => void): () => void };
  globalShortcut: Pick<GlobalShortcut, "register" | "unregister">;
  setLoginItem: (openAtLogin: boolean) => void;
  /** What the shortcut does: the popover opens or closes. */
  togglePopover: () => void;
  powerMonitor: Pick<PowerMonitor, "on" | "getSystemIdleTime">;
  /** Told when the person leaves and comes back (the notifications' away summary). */
  presence: { away(): void; back(): void };
  /** Reconnect now (after sleep or unlock). */
  wake: () => void;
  schedule: Schedule;
  /** How often to read the idle time; 0 turns the poller off. */
  idlePollMs?: number;
  warn: (message: string) => void;
};

export type SystemHooks = {
  /** The shortcut registered now ("" for none). */
  shortcut(): string;
  dispose(): void;
};

export function setupSystemHooks(ctx: SystemHooksContext): SystemHooks {
  let shortcut = "";
  let loginItem: boolean | null = null;
  const applySettings = (s: Pick<Settings, "launchAtLogin" | "popoverShortcut">): void => {
    if (s.launchAtLogin !== loginItem) {
      loginItem = s.launchAtLogin;
      ctx.setLoginItem(s.launchAtLogin);
    }
    if (s.popoverShortcut === shortcut) return;
    if (shortcut) ctx.globalShortcut.unregister(shortcut);
    shortcut = "";
    if (!s.popoverShortcut) return;
    if (ctx.globalShortcut.register(s.popoverShortcut, () => ctx.togglePopover())) shortcut = s.popoverShortcut;
    else ctx.warn(`Progress Desk: the shortcut ${s.popoverShortcut} is taken by another app.`);
  };
  const unsubscribe = ctx.settings.onChange(applySettings);
  applySettings(ctx.settings.view());

  const away = (): void => ctx.presence.away();
  const back = (): void => {
    ctx.wake();
    ctx.presence.back();
  };
  ctx.powerMonitor.on("suspend", away);
  ctx.powerMonitor.on("lock-screen", away);
  ctx.powerMonitor.on("resume", back);
  ctx.powerMonitor.on("unlock-screen", back);

  const stopIdlePoller = startIdlePoller(ctx);

  return {
    shortcut: () => shortcut,
    dispose() {
      stopIdlePoller();
      if (shortcut) ctx.globalShortcut.unregister(shortcut);
      shortcut = "";
      unsubscribe();
    },
  };
}

/** Reads the idle time every `idlePollMs`; crossing the threshold either way says away or back. Returns the stop. */
function startIdlePoller(ctx: Pick<SystemHooksContext, "powerMonitor" | "presence" | "schedule" | "idlePollMs">): () => void {
  const every = ctx.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
  if (every <= 0) return () => undefined;
  let idleAway = false;
  let cancel: () => void;
  const poll = (): void => {
    const idle = ctx.powerMonitor.getSystemIdleTime();
    if (!idleAway && idle >= AWAY_IDLE_SECONDS) {
      idleAway = true;
      ctx.presence.away();
    } else if (idleAway && idle < AWAY_IDLE_SECONDS) {
      idleAway = false;
      ctx.presence.back();
    }
    cancel = ctx.schedule(poll, every);
  };
  cancel = ctx.schedule(poll, every);
  return () => cancel();
}
