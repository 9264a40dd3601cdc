// How a session reads on every surface: each call's label (`verb · detail`, the command hidden
// under the `status` command text, cut to the line budget) and the session's SessionActivity
// under the display mode: `new` skips a tool repeating the previous one, `all` folds repeats
// (×N) before the line bound, `off` shows no current line.
import { truncate } from "../../../common/truncate.ts";
import type { ActivityLine, SessionActivity } from "../../../common/model.ts";
import type { ActivitySettings } from "./options.ts";
import type { Call, Session } from "./session-state.ts";
import { foldRepeats } from "./strip-lines.ts";

export type ViewOptions = Pick<ActivitySettings, "mode" | "commandText" | "maxLines" | "lineBudget">;

export function label(c: Call, opts: Pick<ViewOptions, "commandText" | "lineBudget">): string {
  const showDetail = c.detail !== null && !(c.command && opts.commandText === "status");
  return truncate(showDetail ? `${c.verb} · ${c.detail}` : c.verb, opts.lineBudget);
}

function line(c: Call, opts: ViewOptions): ActivityLine {
  return { glyph: c.glyph, label: label(c, opts), tool: c.tool, at: c.at, status: c.status };
}

export function sessionView(s: Session, opts: ViewOptions): SessionActivity {
  const { mode, maxLines } = opts;
  let lines: ActivityLine[] = [];
  let current = s.current ? line(s.current, opts) : null;
  if (mode === "new") {
    lines = s.calls.filter((c, i) => i === 0 || s.calls[i - 1]?.tool !== c.tool).map((c) => line(c, opts));
  } else if (mode === "all") {
    // Folded before the bound, so a folded line counts as one of `maxLines`.
    lines = foldRepeats(s.calls.map((c) => ({ ...line(c, opts), count: 1 + c.repeatsBefore })));
    // The newest call is the last line's newest call: the current line carries its count.
    if (s.current && s.current === s.calls.at(-1)) current = lines.at(-1) ?? current;
  }
  lines = lines.slice(-maxLines);
  const live = s.liveRuns.length > 0;
  return {
    gatewayId: s.gatewayId,
    sessionKey: s.sessionKey,
    live,
    runId: s.liveRuns.at(-1) ?? null,
    current: live && mode !== "off" ? current : null,
    lines,
    stall: s.stall,
    updatedAt: s.updatedAt,
  };
}

/** A dropped session, as its surfaces are told: nothing live, no lines. */
export function emptyView(s: Pick<Session, "gatewayId" | "sessionKey">, now: number): SessionActivity {
  return {
    gatewayId: s.gatewayId,
    sessionKey: s.sessionKey,
    live: false,
    runId: null,
    current: null,
    lines: [],
    stall: null,
    updatedAt: now,
  };
}
