// N4, N7: shows the policy's notices through Electron's Notification. A click opens that
// card in the popover; when the OS refuses (unsigned builds can: the `failed` event) or
// has no notifications at all, the milestone goes to the tray's attention state instead.
// Where the OS shows notification buttons (macOS) and the card's session has a Control UI
// route, an "Open Session" button opens that session; the plain click stays the popover.
// A needs-you notice offers no button at all: its click opens the popover at the entry.
import type { Notification, NotificationConstructorOptions } from "electron";
import type { CardRef } from "../../common/contract.ts";
import type { NeedRef } from "../../common/model.ts";
import type { Notice } from "../core/notifications/notice.ts";

export type NotificationLike = Pick<Notification, "on" | "show" | "close">;

export type NotifierDeps = {
  create: (options: NotificationConstructorOptions) => NotificationLike;
  isSupported: () => boolean;
  onClick: (card: CardRef | null) => void;
  /** A needs-you notice was clicked: open the popover at that entry (onClick when absent). */
  onNeedClick?: (need: NeedRef) => void;
  /** Whether a notice about this card gets the Open Session button (none when absent). */
  offersSession?: (card: CardRef) => boolean;
  onOpenSession?: (card: CardRef) => void;
  onRefused: (notice: Notice, reason: string) => void;
};

export const OPEN_SESSION = "Open Session";

/** Notifications still on screen, referenced so their click handlers survive collection. */
const MAX_LIVE = 20;

export class Notifier {
  private readonly live: NotificationLike[] = [];
  /** The notice each live notification shows, in the same order. */
  private readonly liveNotices: Notice[] = [];
  private readonly deps: NotifierDeps;
  /** The last notices shown (newest last), for the test hooks. */
  readonly shown: Notice[] = [];

  constructor(deps: NotifierDeps) {
    this.deps = deps;
  }

  /** Needs-you entries whose notice is still on screen (not clicked, closed or refused), oldest first. */
  liveNeeds(): NeedRef[] {
    return this.liveNotices.flatMap((n) => (n.need ? [n.need] : []));
  }

  deliver(notice: Notice): void {
    if (!this.deps.isSupported()) return this.deps.onRefused(notice, "notifications are not supported here");
    const card = notice.card;
    // A needs-you notice has its click alone: no button, so nothing is ever answered from a notification (Y14).
    const session = notice.need === undefined && card !== null && this.deps.offersSession?.(card) === true;
    const n = this.deps.create({
      title: notice.title,
      body: notice.body,
      silent: false,
      ...(session ? { actions: [{ type: "button" as const, text: OPEN_SESSION }] } : {}),
    });
    const forget = (): void => {
      const i = this.live.indexOf(n);
      if (i < 0) return;
      this.live.splice(i, 1);
      this.liveNotices.splice(i, 1);
    };
    n.on("click", () => {
      forget();
      if (notice.need && this.deps.onNeedClick) this.deps.onNeedClick(notice.need);
      else this.deps.onClick(notice.card);
    });
    if (session) {
      n.on("action", (_event, index) => {
        forget();
        if (index === 0) this.deps.onOpenSession?.(card);
      });
    }
    n.on("close", forget);
    n.on("failed", (_event, error) => {
      forget();
      this.deps.onRefused(notice, error);
    });
    this.live.push(n);
    this.liveNotices.push(notice);
    if (this.live.length > MAX_LIVE) {
      this.liveNotices.shift();
      this.live.shift()?.close();
    }
    this.shown.push(notice);
    if (this.shown.length > 50) this.shown.shift();
    n.show();
  }
}
