// What a Gateway sent, as the pages draw it: the common rule (common/control-chars.ts) applied
// once, where the page takes the state in, so no component shows a raw ESC or 8-bit control as
// junk. Text in the DOM is inert anyway; this is about what a person sees. Keys and ids are
// never touched (calls go back with them), and an entry without controls is returned as it is.
import { lineWithoutControls, textWithoutControls } from "../../common/control-chars.ts";
import type { CardEntry, ConnectionState, SessionInfo } from "../../common/model.ts";

/* eslint-disable no-control-regex -- the characters the rule changes: all of them in one-line text, all but tab and LF in a note */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const NOTE_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/* eslint-enable no-control-regex */

const line = (text: string): string => (CONTROL.test(text) ? lineWithoutControls(text) : text);
const lineOrNull = (text: string | null): string | null => (text === null ? null : line(text));

/** Title, steps, note, current step, error and refresh messages without control characters. */
export function entryForDisplay(e: CardEntry): CardEntry {
  const { card, derived, error, refresh, timing } = e;
  const needed =
    CONTROL.test(e.title) ||
    (card !== null && ((card.markdown !== null && NOTE_CONTROL.test(card.markdown)) || card.steps.some((s) => CONTROL.test(s.step)))) ||
    (derived?.current != null && CONTROL.test(derived.current)) ||
    (error !== null && CONTROL.test(error.message)) ||
    (refresh?.status === "failed" && CONTROL.test(refresh.error)) ||
    (timing?.steps.some((s) => CONTROL.test(s.step)) ?? false);
  if (!needed) return e;
  return {
    ...e,
    title: line(e.title),
    card: card && {
      ...card,
      markdown: card.markdown === null ? null : textWithoutControls(card.markdown),
      steps: card.steps.map((s) => ({ ...s, step: line(s.step) })),
    },
    derived: derived && { ...derived, current: lineOrNull(derived.current) },
    error: error && { ...error, message: line(error.message) },
    refresh: refresh?.status === "failed" ? { ...refresh, error: line(refresh.error) } : refresh,
    ...(timing ? { timing: { ...timing, steps: timing.steps.map((s) => ({ ...s, step: line(s.step) })) } } : {}),
  };
}

/** The advice (and what it quotes: a reason, a command) without control characters. */
export function connectionForDisplay(c: ConnectionState): ConnectionState {
  switch (c.state) {
    case "pairing_required":
      return { ...c, advice: line(c.advice), reason: line(c.reason), command: lineOrNull(c.command) };
    case "update_required":
      return { ...c, advice: line(c.advice), reason: line(c.reason) };
    default:
      return { ...c, advice: line(c.advice) };
  }
}

/** Session rows' titles without control characters. */
export function sessionsForDisplay(rows: SessionInfo[]): SessionInfo[] {
  return rows.some((r) => CONTROL.test(r.title)) ? rows.map((r) => ({ ...r, title: line(r.title) })) : rows;
}
