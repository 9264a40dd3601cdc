// N4, N7: shows the policy's notices through Electron's Notification. A click opens that
// card in the popover; when the OS refuses (unsigned builds can: the `failed` event) or
// has no notifications at all, the milestone goes to the tray's attention state instead.
import type { Notification, NotificationConstructorOptions } from "electron";
import type { CardRef } from "../../common/contract.ts";
import type { Notice } from "../core/notification-policy.ts";

export type NotificationLike = Pick<Notification, "on" | "show" | "close">;

export type NotifierDeps = {
  create: (options: NotificationConstructorOptions) => NotificationLike;
  isSupported: () => boolean;
  onClick: (card: CardRef | null) => void;
  onRefused: (notice: Notice, reason: string) => void;
};

/** Notifications still on screen, referenced so their click handlers survive collection. */
const MAX_LIVE = 20;

export class Notifier {
  private readonly live: NotificationLike[] = [];
  private readonly deps: NotifierDeps;
  /** The last notices shown (newest last), for the test hooks. */
  readonly shown: Notice[] = [];

  constructor(deps: NotifierDeps) {
    this.deps = deps;
  }

  deliver(notice: Notice): void {
    if (!this.deps.isSupported()) return this.deps.onRefused(notice, "notifications are not supported here");
    const n = this.deps.create({ title: notice.title, body: notice.body, silent: false });
    const forget = (): void => {
      const i = this.live.indexOf(n);
      if (i >= 0) this.live.splice(i, 1);
    };
    n.on("click", () => {
      forget();
      this.deps.onClick(notice.card);
    });
    n.on("close", forget);
    n.on("failed", (_event, error) => {
      forget();
      this.deps.onRefused(notice, error);
    });
    this.live.push(n);
    if (this.live.length > MAX_LIVE) this.live.shift()?.close();
    this.shown.push(notice);
    if (this.shown.length > 50) this.shown.shift();
    n.show();
  }
}
