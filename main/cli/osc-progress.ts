// The terminal progress indicator (OSC 9;4, as in Windows Terminal, ConEmu, Ghostty,
// WezTerm and iTerm2): a taskbar/tab progress bar for the focused card. The value comes
// only from the card's own counts (R4: nothing invented).
import type { CardEntry } from "../../common/model.ts";

export function terminalSupportsProgress(env: NodeJS.ProcessEnv): boolean {
  if (env.PROGRESS_DESK_OSC_PROGRESS === "0") return false;
  if (env.PROGRESS_DESK_OSC_PROGRESS === "1") return true;
  if (env.WT_SESSION || env.ConEmuANSI === "ON") return true;
  const program = (env.TERM_PROGRAM ?? "").toLowerCase();
  return program === "ghostty" || program === "wezterm" || program === "iterm.app";
}

/** OSC 9;4 state: 0 clear, 1 normal, 2 error, 3 indeterminate, 4 paused/warning. */
export function progressSequence(card: CardEntry | null): string {
  if (!card?.derived || card.derived.total === 0 || card.hidden) return "\x1b]9;4;0;0\x07";
  const d = card.derived;
  const percent = Math.round((d.completed / d.total) * 100);
  const failed = d.outcome === "failed" || d.outcome === "killed" || d.outcome === "timeout";
  const state = failed ? 2 : d.state === "paused" ? 4 : 1;
  return `\x1b]9;4;${state};${percent}\x07`;
}

export const CLEAR_PROGRESS = "\x1b]9;4;0;0\x07";
