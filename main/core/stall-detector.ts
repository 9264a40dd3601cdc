// No-progress detection for one live run (seed 004): repeated identical calls with no card
// change (polling), a run that went quiet (silent), a sub-agent that produced nothing
// (idle-child). It is an observation with its evidence, shown next to a card; it never
// changes the card's own state (R6: elapsed time alone never pauses a card) and never
// estimates a percentage. Pure: the caller passes the time and decides when to evaluate.

import type { StallFlag } from "../../common/model.ts";

export type StallOptions = {
  /** Report stalls at all. */
  enabled: boolean;
  /** The same tool with the same arguments this many times in a row, with no card change. */
  pollingRepeats: number;
  /** A live run with no event at all for this long. */
  silentMs: number;
  /** A sub-agent's run with no tool line and no card change for this long after it started. */
  idleChildMs: number;
};

/**
 * Defaults: 5 identical calls in a row is past any reasonable retry and typical of a wait
 * loop; 10 minutes of silence is well beyond a slow model reply or a long build step that
 * streams nothing, so a flag is rare and worth a look; a sub-agent gets the same 10 minutes.
 */
export const DEFAULT_STALL_OPTIONS: StallOptions = {
  enabled: true,
  pollingRepeats: 5,
  silentMs: 10 * 60_000,
  idleChildMs: 10 * 60_000,
};

/** What the detector remembers about one live run. */
export type RunWatch = {
  startedAt: number;
  lastEventAt: number;
  /** The latest call and how many identical calls in a row led up to it. */
  lastCall: {
    fingerprint: string;
    tool: string;
    verb: string;
    label: string;
    shell: boolean;
    count: number;
    since: number;
  } | null;
  /** A tool line or a card change was seen in this run. */
  produced: boolean;
  child: boolean;
  parentKey: string | null;
};

export function watchRun(now: number, child: { parentKey: string | null } | null = null): RunWatch {
  return {
    startedAt: now,
    lastEventAt: now,
    lastCall: null,
    produced: false,
    child: child !== null,
    parentKey: child?.parentKey ?? null,
  };
}

/** Any event of the run: a sign of life. */
export function noteEvent(w: RunWatch, now: number): void {
  w.lastEventAt = Math.max(w.lastEventAt, now);
}

/**
 * A tool call started. `fingerprint` identifies the tool and its arguments; `verb` names
 * the tool for people (`Read`), `label` is its line, `shell` marks a command.
 */
export function noteCall(
  w: RunWatch,
  call: { fingerprint: string; tool: string; verb: string; label: string; shell: boolean },
  now: number,
): void {
  noteEvent(w, now);
  w.produced = true;
  if (w.lastCall && w.lastCall.fingerprint === call.fingerprint) {
    w.lastCall.count += 1;
    w.lastCall.label = call.label;
    return;
  }
  w.lastCall = { ...call, count: 1, since: now };
}

/** The session's card changed: that is progress, whatever the tools do. */
export function noteCardChange(w: RunWatch, now: number): void {
  noteEvent(w, now);
  w.produced = true;
  w.lastCall = null;
}

/**
 * The flag to show now, or null. One at a time, the most telling first: a sub-agent that
 * produced nothing, then silence (it is current even after a polling burst), then polling.
 */
export function evaluateStall(w: RunWatch, now: number, opts: StallOptions): StallFlag | null {
  if (!opts.enabled) return null;
  const running = now - w.startedAt;
  if (w.child && !w.produced && running >= opts.idleChildMs) {
    return {
      kind: "idle-child",
      sinceMs: running,
      parentKey: w.parentKey,
      text: `Sub-agent produced nothing for ${formatDuration(running)}`,
    };
  }
  const quiet = now - w.lastEventAt;
  if (quiet >= opts.silentMs) {
    return { kind: "silent", sinceMs: quiet, lastEventAt: w.lastEventAt, text: `No new activity for ${formatDuration(quiet)}` };
  }
  const call = w.lastCall;
  if (call && call.count >= Math.max(2, opts.pollingRepeats)) {
    const text = call.shell ? `Polling the same command ${call.count}×` : `Repeating the same ${call.verb} call ${call.count}×`;
    return { kind: "polling", count: call.count, label: call.label, tool: call.tool, since: call.since, text };
  }
  return null;
}

/** `45 s`, `12 min`, `2 h`, `1 h 5 min`: whole units, rounded down (never overstates). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest === 0 ? `${h} h` : `${h} h ${rest} min`;
}

/** Two flags say the same thing (for change detection). */
export function sameFlag(a: StallFlag | null, b: StallFlag | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind !== b.kind || a.text !== b.text) return false;
  return a.kind !== "polling" || (b.kind === "polling" && a.label === b.label);
}
