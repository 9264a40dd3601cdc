// A notice when an agent starts waiting on the person (an approval or a question): once per
// entry, never during quiet hours (the tray and the popover still show it), never with
// notifications off, and never for an entry the person has just answered here (its list
// may bring it back once more before the Gateway's resolution arrives). A click opens the
// popover at that entry. Pure: the shell feeds each `needs` change and delivers the notice.
import type { NeedEvent, NeedRef } from "../../../common/model.ts";
import { expiresText, needKindLabel, needSummary } from "../../../common/needs-view.ts";
import type { Notice, NotificationSettings } from "./notice.ts";
import { BODY_BUDGET, TITLE_BUDGET } from "./notice-text.ts";
import { isQuiet, localMinutesOfDay } from "./quiet-hours.ts";
import { truncate } from "../../../common/truncate.ts";
import { needEntryKey } from "../../../common/keys.ts";

/** Entries remembered as told or answered (the oldest are forgotten first). */
const REMEMBERED = 500;

export type NeedsNoticeOptions = {
  now: () => number;
  settings: () => NotificationSettings;
  deliver: (notice: Notice) => void;
  /** The Gateway's label when there is more than one Gateway, else null. */
  gatewayLabel?: (gatewayId: string) => string | null;
  /** Local time-of-day in minutes since midnight (default from `now()` in the local zone). */
  minutesOfDay?: (ms: number) => number;
};

export class NeedsNotices {
  private readonly opts: NeedsNoticeOptions;
  private readonly told = new Set<string>();
  private readonly answered = new Set<string>();
  private seq = 0;

  constructor(opts: NeedsNoticeOptions) {
    this.opts = opts;
  }

  /** The person answered this entry here: no notice for it from now on. */
  noteAnswered(ref: NeedRef): void {
    remember(this.answered, needEntryKey(ref));
  }

  /** One entry change of a Gateway's needs-you state. */
  observe(event: NeedEvent | null): void {
    // Answered here: a list read before the Gateway let go of it may bring it back as new.
    if (event?.kind === "resolved" && event.answeredHere) return this.noteAnswered(event.entry);
    if (event?.kind !== "arrived") return;
    const { entry } = event;
    const key = needEntryKey(entry);
    if (this.told.has(key) || this.answered.has(key)) return;
    // Told or not, an entry is considered once: quiet hours do not save it for later.
    remember(this.told, key);
    const settings = this.opts.settings();
    if (!settings.enabled) return;
    const now = this.opts.now();
    const minutes = this.opts.minutesOfDay ? this.opts.minutesOfDay(now) : localMinutesOfDay(now);
    if (isQuiet(settings.quietHours, minutes)) return;
    const label = this.opts.gatewayLabel?.(entry.gatewayId) ?? null;
    const expires = expiresText(entry.expiresAt, now);
    this.seq += 1;
    this.opts.deliver({
      id: `need-${this.seq}`,
      kind: "needs",
      title: truncate(
        `${label ? `${label}: ` : ""}${entry.kind === "question" ? "An agent asks you" : "An agent needs your approval"}`,
        TITLE_BUDGET,
      ),
      body: truncate(`${needKindLabel(entry)}: ${needSummary(entry, BODY_BUDGET)}${expires ? ` (${expires})` : ""}`, BODY_BUDGET),
      card: null,
      need: { gatewayId: entry.gatewayId, id: entry.id },
    });
  }
}

function remember(set: Set<string>, key: string): void {
  set.delete(key);
  set.add(key);
  if (set.size > REMEMBERED) set.delete(set.values().next().value as string);
}
