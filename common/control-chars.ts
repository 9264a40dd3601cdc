// What an agent or a Gateway writes is data, never terminal control: the one rule that takes
// control characters (U+0000–U+001F, DEL, U+0080–U+009F) out of text before any surface draws it. Escape
// sequences are removed whole (introducer, parameters, payload and terminator), so an OSC
// title or a CSI "clear screen" leaves nothing behind, rather than "]0;title" or "[2J".
// `watch --json` is the exception: it prints the original text, JSON-escaped.

/*
 * Whole sequences, 7-bit (ESC …) and 8-bit (U+0080–U+009F) forms:
 * - strings (OSC, DCS, SOS, PM, APC): up to BEL or ST; one left open ends at the end of its
 *   line, so the note's next lines survive;
 * - CSI: parameters, intermediates, final byte (a cut-off one without its final goes too);
 * - any other ESC sequence: intermediates and a final byte (ESC 7, ESC c, ESC ( B).
 */
/* eslint-disable no-control-regex -- the point of this module */
const SEQUENCE =
  /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^]*?(?:\x07|\x1b\\|\x9c|(?=[\r\n])|$)|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
/** Every ASCII control but tab and line feed, DEL, every 8-bit control U+0080–U+009F. */
const LONE_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/* eslint-enable no-control-regex */

/**
 * Multi-line text (a note's Markdown): controls removed, tab and line feed kept. A CR
 * would move the cursor back over the line: CRLF and a lone CR both become LF, as
 * Markdown reads them. Vertical tab and form feed separate words: a space.
 */
export function textWithoutControls(text: string): string {
  return text
    .replace(SEQUENCE, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\v\f]/g, " ")
    .replace(LONE_CONTROL, "");
}

/** One-line text (a step, a title, a label, a status line): the same, with tab and line feed folded to a space. */
export function lineWithoutControls(text: string): string {
  return textWithoutControls(text).replace(/[\t\n]/g, " ");
}
