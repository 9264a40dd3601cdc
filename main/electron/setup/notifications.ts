// Desktop notifications: the policy decides which card changes are milestones worth a
// notice (and when), the notifier shows them through the OS. A click opens that card in
// the popover; a notice the OS refuses becomes the tray's attention state. With several
// Gateways a notice's title names the Gateway. On macOS a notice whose session has a
// Control UI route has an Open Session button.
import type { NotificationConstructorOptions } from "electron";
import type { CardRef, Settings } from "../../../common/contract.ts";
import { cardSessionLink } from "../../../common/session-link.ts";
import { NotificationPolicy, type PolicyOptions } from "../../core/notifications/policy.ts";
import { NeedsNotices } from "../../core/notifications/needs-notice.ts";
import type { DeskChange, DeskSnapshot, NeedRef, Unsubscribe } from "../../../common/model.ts";
import { Notifier, type NotificationLike } from "../notifier.ts";
import type { Schedule } from "../popover.ts";
import type { Attention } from "./attention.ts";

/** The throttle windows tests may shorten. */
export type PolicyTuning = Partial<
  Pick<PolicyOptions, "perSessionIntervalMs" | "globalWindowMs" | "globalMaxPerWindow" | "awayThresholdMs" | "minutesOfDay">
>;

export type NotificationsContext = {
  desk: { snapshot(): DeskSnapshot; subscribe(listener: (change: DeskChange) => void): Unsubscribe };
  settings: { view(): Pick<Settings, "notifications"> };
  attention: Pick<Attention, "isVisibleInFocusedWindow" | "flagRefused">;
  /** Opens the popover, on this card if there is one (a notice was clicked). */
  openCard: (card: CardRef | undefined) => void;
  /** Opens the popover at a needs-you entry (its notice was clicked). */
  openNeed: (need: NeedRef) => void;
  /** Opens a card's session in its Gateway's Control UI (the notice's button). */
  openSession: (card: CardRef) => void;
  /** Notification buttons are macOS's alone (Electron ignores them elsewhere). */
  platform: NodeJS.Platform;
  createNotification: (options: NotificationConstructorOptions) => NotificationLike;
  notificationsSupported: () => boolean;
  now: () => number;
  schedule: Schedule;
  policy?: PolicyTuning;
};

export type Notifications = {
  notifier: Notifier;
  policy: NotificationPolicy;
  /** Needs-you notices (an approval or question arrived); the answering code tells it what the person answered. */
  needs: NeedsNotices;
  dispose(): void;
};

export function setupNotifications(ctx: NotificationsContext): Notifications {
  const notifier = new Notifier({
    create: ctx.createNotification,
    isSupported: ctx.notificationsSupported,
    onClick: (card) => ctx.openCard(card ?? undefined),
    onNeedClick: (need) => ctx.openNeed(need),
    offersSession: (card) => ctx.platform === "darwin" && cardSessionLink(ctx.desk.snapshot().gateways, card) !== null,
    onOpenSession: (card) => ctx.openSession(card),
    onRefused: (notice, reason) => ctx.attention.flagRefused(notice.card, reason),
  });
  const gatewayLabels = new Map<string, string>();
  const refreshLabels = (): void => {
    gatewayLabels.clear();
    for (const g of ctx.desk.snapshot().gateways) gatewayLabels.set(g.id, g.label);
  };
  const policy = new NotificationPolicy({
    ...ctx.policy,
    now: ctx.now,
    schedule: ctx.schedule,
    deliver: (notice) => notifier.deliver(notice),
    settings: () => ctx.settings.view().notifications,
    isVisibleInFocusedWindow: (ref) => ctx.attention.isVisibleInFocusedWindow(ref),
    gatewayLabel: (id) => gatewayLabels.get(id) ?? null,
    gatewayCount: () => gatewayLabels.size,
  });

  const needs = new NeedsNotices({
    now: ctx.now,
    settings: () => ctx.settings.view().notifications,
    deliver: (notice) => notifier.deliver(notice),
    gatewayLabel: (id) => (gatewayLabels.size > 1 ? (gatewayLabels.get(id) ?? null) : null),
    ...(ctx.policy?.minutesOfDay ? { minutesOfDay: ctx.policy.minutesOfDay } : {}),
  });

  refreshLabels();
  const unsubscribe = ctx.desk.subscribe((change) => {
    if (change.type === "gateways") refreshLabels();
    if (change.type === "activity") policy.observeActivity(change.activity);
    if (change.type === "card") policy.observe(change.entry);
    if (change.type === "needs") needs.observe(change.event);
  });

  return {
    notifier,
    policy,
    needs,
    dispose() {
      unsubscribe();
      policy.dispose();
    },
  };
}
