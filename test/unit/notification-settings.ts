// Notification settings for policy tests: notices on, every milestone on, no quiet hours, unless a
// test turns something off. Written out here, not taken from the schema's defaults, so a changed
// default cannot quietly change what these tests check.
import type { Milestone } from "../../common/contract.ts";
import type { NotificationSettings } from "../../main/core/notifications/notice.ts";

export function notificationSettings(
  opts: { enabled?: boolean; off?: readonly Milestone[]; quietHours?: NotificationSettings["quietHours"] } = {},
): NotificationSettings {
  const milestones: Record<Milestone, boolean> = {
    newCard: true,
    stepCompleted: true,
    allCompleted: true,
    pausedOrBlocked: true,
    refreshFailed: true,
    noProgress: true,
  };
  for (const m of opts.off ?? []) milestones[m] = false;
  return {
    enabled: opts.enabled ?? true,
    milestones,
    quietHours: opts.quietHours ?? { enabled: false, start: "22:00", end: "08:00" },
  };
}
