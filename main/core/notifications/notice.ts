// What a notice is, as the policy and the needs-you notices hand it to the shell's notifier,
// and the notification settings both read.
import type { CardRef, Milestone, Settings } from "../../../common/contract.ts";
import type { NeedRef } from "../../../common/model.ts";

export type NoticeKind = Milestone | "summary" | "needs";
export type Notice = {
  /** Unique, stable per delivered notice. */
  id: string;
  kind: NoticeKind;
  title: string;
  body: string;
  /** Which card a click opens (N4); null for a summary of several cards. */
  card: CardRef | null;
  /** A needs-you notice: a click opens the popover at this entry (needs-notice.ts). */
  need?: NeedRef;
};
export type NotificationSettings = Settings["notifications"];
