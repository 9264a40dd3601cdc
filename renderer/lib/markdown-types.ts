// The result of rendering a card's note (R3–R5). Plain types, no DOM: Node-side code
// (tests, view models) can import them without pulling in the renderer or DOMPurify.

/** R4: the note's first determinate `<progress>`, pinned above the note. */
export type NoteProgress = {
  /** Clamped to [0, max]. */
  value: number;
  /** > 0; 1 when the attribute is missing or invalid, as HTML does. */
  max: number;
  /** The element's `aria-label`, or null. Never made up. */
  label: string | null;
};

export type RenderedNote = {
  /** Sanitized HTML for the note body, without the pinned progress; "" when nothing is left. */
  html: string;
  progress: NoteProgress | null;
  /** R5: no readable text and no progress bar at all: the card shows "Progress updated". */
  empty: boolean;
  /** The first block with text, as plain text (at most 200 characters and an ellipsis), for a collapsed note-only card. */
  line: string | null;
};

/**
 * A note not drawn yet (its card is off screen or closed): what the card needs of it at once, from
 * the lexer alone. `text` is every readable line as plain text, shown in place of the note (screen
 * readers and the browser's find reach it) until the card draws the note.
 */
export type NotePreview = {
  html: "";
  progress: null;
  empty: boolean;
  line: string | null;
  text: string;
};
