// R3–R5, C6: a card's Markdown note → sanitized HTML for Svelte's {@html}, plus the pinned
// progress bar. Runs in the page (DOMPurify needs a DOM); nothing here touches the network.
//
// Pipeline
//   1. strip invisible and bidi control characters (C6) and terminal controls (ASCII ones but tab
//      and LF, DEL, U+0080–U+009F: common/control-chars.ts), on the input and again on every text node and
//      kept attribute value (character references could bring them back);
//   2. marked (GFM) — with raw HTML handled up front (R3: "all raw HTML is removed except
//      <progress>"): an HTML block goes through a second DOMPurify instance that keeps
//      nothing but <progress> and text; an inline tag is dropped unless it is <progress>
//      (kept as the one start tag marked matched, closed at once, so it holds nothing) or
//      <img> (which goes through the second instance and becomes its alt text); text inside
//      raw <pre>/<script> spans is escaped like any other text;
//   3. DOMPurify over the whole result, with an explicit allowlist and per-element
//      attribute checks in a hook;
//   4. on the sanitized tree: text nodes lose invisible and control characters (when there are any), links
//      with a safe href get rel and their destination, links without one are
//      unwrapped to their text, the first <progress> is lifted out (R4), emptiness is
//      decided (R5).
//
// The whole note costs one DOMPurify pass (one parsed document); the second instance runs
// only for raw HTML blocks and inline <img> tags, which ordinary notes do not have.
//
// Links keep `href` only for absolute http, https and mailto URLs (normalised by the URL
// parser) and get rel="noopener noreferrer"; there is no target: the page
// intercepts clicks and hands the URL to the shell. A link's text is the note writer's to
// choose, so before it opens the link says where it goes: a `title` (the tooltip) with the
// destination host and the full URL, and an `aria-label` of its visible text plus "opens
// <host>" (the accessible name keeps the visible text, WCAG 2.5.3); a mailto link names every
// recipient (to, cc, bcc) and says when it fills in a subject or body. The host is the URL
// parser's ASCII form, so a look-alike Unicode name shows as its xn-- spelling. Images are never loaded: they become
// their alt text. Both DOMPurify instances are private (DOMPurify(window)), configured once,
// on first use, so importing this module outside a page (for isSafeLink) does not throw.
//
// Results are frozen and kept in a small LRU cache keyed by the note text: the same note is
// drawn by several placements and re-rendered whenever a card's steps change.
import createDOMPurify from "dompurify";
import type { Config, DOMPurify, UponSanitizeAttributeHookEvent, UponSanitizeElementHookEvent } from "dompurify";
import { Lexer, Marked } from "marked";
import type { Tokens } from "marked";
import { noteLineOfTokens, noteTextOfTokens } from "../../common/note-line.ts";
import { textWithoutControls } from "../../common/control-chars.ts";
import { stripInvisible } from "../../common/strip.ts";
import type { NotePreview, NoteProgress, RenderedNote } from "./markdown-types.ts";

export type { NotePreview, NoteProgress, RenderedNote } from "./markdown-types.ts";

/** C6 and terminal controls: what a note's text may not show (character references could bring either back). */
const visibleText = (text: string): string => textWithoutControls(stripInvisible(text));

// ---------------------------------------------------------------------------------------
// Allowlists

/** Elements a rendered note may contain. */
const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "strong",
  "em",
  "b",
  "i",
  "del",
  "s",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "a",
  "progress",
];

/** Attributes per element; anything not listed here is removed. */
const ATTRIBUTES_BY_TAG: Readonly<Record<string, ReadonlySet<string>>> = {
  a: new Set(["href"]),
  th: new Set(["align"]),
  td: new Set(["align"]),
  ol: new Set(["start"]),
  progress: new Set(["value", "max", "aria-label"]),
};
const NO_ATTRIBUTES: ReadonlySet<string> = new Set();

/** Raw HTML blocks keep only these (everything else: tags removed, text kept). */
const RAW_ALLOWED_TAGS = ["progress"];

/**
 * The <body> DOMPurify parses into and walks from: its own first node. It is never serialized
 * (the result is its content) and the HTML parser never makes a second one (a <body> tag in a
 * note only adds attributes to it, which the attribute hook removes). Not allowing it would
 * make DOMPurify treat the root as a disallowed element and deep-copy the whole note out of it
 * on every call, only to drop the copy.
 */
const CONTAINER_TAG = "body";

/** Removed together with their content rather than unwrapped. */
const EXTRA_FORBID_CONTENTS = ["object", "applet", "canvas", "frameset", "textarea", "select", "datalist"];

const SAFE_PROTOCOLS: ReadonlySet<string> = new Set(["http:", "https:", "mailto:"]);
const ALIGN_VALUES: ReadonlySet<string> = new Set(["left", "center", "right"]);
const LIST_START = /^\d{1,9}$/;
/** HTML's rules for parsing floating-point number values, as a prefix match on an attribute value. */
const HTML_FLOAT = /^[\t\n\f\r ]*([-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?)/;
/** Something a person can read: not whitespace, not a control or format character. */
const READABLE = /[^\s\p{Cc}\p{Cf}]/u;
/** Escape for text, as marked does: character references already in the text are left alone. */
const TEXT_ESCAPE = /[<>"']|&(?!(?:#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|\w+);)/g;
const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** The tag name of a raw inline HTML token (marked already matched it as a tag). */
const TAG_NAME = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/;

/** Notes kept rendered (at most ~8 KB of Markdown and ~20 KB of HTML each): a popover's worth. */
const CACHE_SIZE = 32;

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

const SHARED_CONFIG = {
  ALLOW_ARIA_ATTR: false,
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  // Attributes that are not URLs; their values are checked by the attribute hook instead.
  ADD_URI_SAFE_ATTR: ["max", "start", "align", "aria-label"],
  ALLOWED_NAMESPACES: ["http://www.w3.org/1999/xhtml"],
  PARSER_MEDIA_TYPE: "text/html",
  ADD_FORBID_CONTENTS: EXTRA_FORBID_CONTENTS,
  KEEP_CONTENT: true,
  SAFE_FOR_XML: true,
  SAFE_FOR_TEMPLATES: false,
  SANITIZE_DOM: true,
  SANITIZE_NAMED_PROPS: true,
  WHOLE_DOCUMENT: false,
  FORCE_BODY: true,
  IN_PLACE: false,
} as const satisfies Config;

const MAIN_CONFIG = {
  ...SHARED_CONFIG,
  ALLOWED_TAGS: [...ALLOWED_TAGS, CONTAINER_TAG],
  ALLOWED_ATTR: ["href", "align", "start", "value", "max", "aria-label"],
  RETURN_DOM: true,
} as const satisfies Config;

const RAW_CONFIG = {
  ...SHARED_CONFIG,
  ALLOWED_TAGS: [...RAW_ALLOWED_TAGS, CONTAINER_TAG],
  ALLOWED_ATTR: ["value", "max", "aria-label"],
} as const satisfies Config;

// ---------------------------------------------------------------------------------------
// Links and numbers

function safeUrl(href: string): URL | null {
  let url: URL;
  try {
    url = new URL(href); // absolute URLs only: a relative link would resolve to the app itself
  } catch {
    return null;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url : null;
}

function safeHref(href: string): string | null {
  return safeUrl(href)?.href ?? null;
}

/** A mailto part as a person reads it: percent-decoded ('+' stays '+'), invisible characters gone, white space folded. */
function mailtoText(part: string): string {
  let text: string;
  try {
    text = decodeURIComponent(part);
  } catch {
    text = part;
  }
  return stripInvisible(text).replace(/\s+/g, " ").trim();
}

const addressesIn = (list: string): string[] =>
  list
    .split(",")
    .map(mailtoText)
    .filter((a) => a !== "");

/**
 * Where an email link writes to: every recipient (the address list and the to, cc and bcc fields,
 * any case, repeated or not), and whether it fills in a subject, a body or other fields. Only the
 * first address would hide a cc or bcc to someone else, or a prepared body.
 */
function emailDestination(url: URL): string {
  const to = addressesIn(url.pathname);
  const cc: string[] = [];
  const bcc: string[] = [];
  const fills = new Set<string>();
  for (const field of url.search.slice(1).split("&")) {
    if (field === "") continue;
    const at = field.indexOf("=");
    const name = mailtoText(at < 0 ? field : field.slice(0, at)).toLowerCase();
    const value = at < 0 ? "" : field.slice(at + 1);
    if (name === "to") to.push(...addressesIn(value));
    else if (name === "cc") cc.push(...addressesIn(value));
    else if (name === "bcc") bcc.push(...addressesIn(value));
    else if (mailtoText(value) === "") continue;
    else if (name === "subject") fills.add("a subject");
    else if (name === "body") fills.add("a body");
    else fills.add("other fields");
  }
  const parts = [to.length > 0 ? `an email to ${to.join(", ")}` : "an email"];
  if (cc.length > 0) parts.push(`cc ${cc.join(", ")}`);
  if (bcc.length > 0) parts.push(`bcc ${bcc.join(", ")}`);
  const filled = ["a subject", "a body", "other fields"].filter((f) => fills.has(f));
  if (filled.length > 0) parts.push(`with ${filled.length > 1 ? `${filled.slice(0, -1).join(", ")} and ${filled.at(-1)}` : filled[0]}`);
  return parts.join("; ");
}

/** Where a link goes, in a few words: its host, or whom an email goes to and what it fills in. */
function destinationOf(url: URL): string {
  return url.protocol === "mailto:" ? emailDestination(url) : url.host;
}

/**
 * Destinations of the hrefs the attribute hook kept, by normalised href, so that finishing a
 * link does not parse its URL a second time. Emptied after every note.
 */
const destinations = new Map<string, string>();

/** True for an absolute http, https or mailto URL — the only links a note may open. */
export function isSafeLink(href: string): boolean {
  return typeof href === "string" && safeHref(href) !== null;
}

function parseHtmlFloat(value: string | null): number | null {
  if (value === null) return null;
  const match = HTML_FLOAT.exec(value);
  if (!match?.[1]) return null;
  const n = Number.parseFloat(match[1]);
  return Number.isFinite(n) ? n : null;
}

function escapeText(text: string): string {
  return text.replace(TEXT_ESCAPE, (ch) => ESCAPES[ch] ?? ch);
}

// ---------------------------------------------------------------------------------------
// DOMPurify hooks: onAttribute on both instances, onElement on the raw-HTML one only (the
// main pass strips text nodes afterwards, see stripTextNodes, and meets no <img> and no
// <progress> with content: those are handled before it).

function onElement(node: Node, data: UponSanitizeElementHookEvent): void {
  if (node.nodeType === TEXT_NODE) {
    const text = node.nodeValue ?? "";
    const clean = visibleText(text);
    if (clean !== text) node.nodeValue = clean;
    return;
  }
  if (node.nodeType !== ELEMENT_NODE) return;
  const parent = node.parentNode;
  if (parent === null) return;
  if (data.tagName === "img") {
    // Never loaded: the image becomes its alt text (a text node is inert). DOMPurify then
    // removes the <img> itself, as it is not allowed.
    const alt = visibleText((node as Element).getAttribute("alt") ?? "");
    const doc = node.ownerDocument;
    if (alt !== "" && doc) parent.insertBefore(doc.createTextNode(alt), node);
  } else if (data.tagName === "progress") {
    // Fallback content is never shown by a browser, and an unclosed <progress> would swallow
    // the rest of the paragraph: move the children out, after the element. They are visited
    // next, so they are sanitized like everything else.
    const next = node.nextSibling;
    while (node.firstChild) parent.insertBefore(node.firstChild, next);
  }
}

function onAttribute(node: Element, data: UponSanitizeAttributeHookEvent): void {
  const allowed = ATTRIBUTES_BY_TAG[node.localName] ?? NO_ATTRIBUTES;
  if (!allowed.has(data.attrName)) {
    data.keepAttr = false;
    return;
  }
  const value = visibleText(data.attrValue);
  let kept: string | null;
  switch (data.attrName) {
    case "href": {
      const url = safeUrl(value);
      kept = url === null ? null : url.href;
      if (url !== null) destinations.set(url.href, destinationOf(url));
      break;
    }
    case "value":
    case "max": {
      const n = parseHtmlFloat(value);
      kept = n === null ? null : String(n);
      break;
    }
    case "start":
      kept = LIST_START.test(value) ? value : null;
      break;
    case "align":
      kept = ALIGN_VALUES.has(value.toLowerCase()) ? value.toLowerCase() : null;
      break;
    case "aria-label":
      kept = value.trim();
      break;
    default:
      kept = null;
  }
  if (kept === null) data.keepAttr = false;
  else data.attrValue = kept;
}

// ---------------------------------------------------------------------------------------
// One-time setup

type Pipeline = { main: DOMPurify; raw: DOMPurify; marked: Marked };
let pipeline: Pipeline | null = null;

function setUp(): Pipeline {
  const main = createDOMPurify(window);
  const raw = createDOMPurify(window);
  main.setConfig(MAIN_CONFIG);
  raw.setConfig(RAW_CONFIG);
  raw.addHook("uponSanitizeElement", onElement);
  for (const purifier of [main, raw]) purifier.addHook("uponSanitizeAttribute", onAttribute);

  // A raw HTML fragment → only <progress> and text survive (serialized, escaped).
  const sanitizeRaw = (html: string): string => raw.sanitize(html, RAW_CONFIG);

  const marked = new Marked({
    gfm: true,
    breaks: false,
    pedantic: false,
    async: false,
    silent: false,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag): string {
        if (token.block) return sanitizeRaw(token.text);
        const tag = TAG_NAME.exec(token.text); // comments, declarations, PIs: no match, dropped
        if (!tag || tag[1] === "/") return "";
        const name = (tag[2] ?? "").toLowerCase();
        // marked matched exactly one start tag, so closing it at once gives an empty bar
        // whatever follows (the main pass checks its attributes), as the raw instance would.
        if (name === "progress") return `${token.text}</progress>`;
        return name === "img" ? sanitizeRaw(token.text) : "";
      },
      text(token: Tokens.Text | Tokens.Escape): string {
        if ("tokens" in token && token.tokens) return this.parser.parseInline(token.tokens);
        // Escaped even inside raw <pre>/<script> spans (marked passes those through as is).
        return escapeText(token.text);
      },
      image(token: Tokens.Image): string {
        return escapeText(this.parser.parseInline(token.tokens, this.parser.textRenderer));
      },
      checkbox(token: Tokens.Checkbox): string {
        return token.checked ? "\u2611 " : "\u2610 ";
      },
    },
  });
  return { main, raw, marked };
}

// ---------------------------------------------------------------------------------------
// Rendering

const EMPTY: RenderedNote = Object.freeze({ html: "", progress: null, empty: true, line: null });

const LINE_MAX = 200;

/** A line for a collapsed card: white space folded, at most LINE_MAX characters and an ellipsis. */
function lineOf(text: string | null): string | null {
  const folded = (text ?? "").replace(/\s+/g, " ").trim();
  if (folded === "") return null;
  return folded.length > LINE_MAX ? `${folded.slice(0, LINE_MAX)}…` : folded;
}

/** Invisible and control characters only reach a text node as character references; strip them. */
function stripTextNodes(body: Element): void {
  const walker = body.ownerDocument.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = node.nodeValue ?? "";
    const clean = visibleText(text);
    if (clean !== text) node.nodeValue = clean;
  }
}

function unwrap(element: Element): void {
  const parent = element.parentNode;
  if (parent === null) return;
  while (element.firstChild) parent.insertBefore(element.firstChild, element);
  element.remove();
}

/** R4: lift the first <progress> out of the body, when it carries a value. */
function pinFirstProgress(body: Element): NoteProgress | null {
  const element = body.querySelector("progress");
  if (element === null) return null;
  const value = parseHtmlFloat(element.getAttribute("value"));
  // Without a value the bar is indeterminate: there is no number to show and none is made
  // up, so it stays in the body as the browser draws it.
  if (value === null) return null;
  const parsedMax = parseHtmlFloat(element.getAttribute("max"));
  const max = parsedMax !== null && parsedMax > 0 ? parsedMax : 1;
  const label = element.getAttribute("aria-label")?.trim() || null;
  const parent = element.parentElement;
  element.remove();
  if (
    parent !== null &&
    parent !== body &&
    parent.nodeName === "P" &&
    parent.firstElementChild === null &&
    !READABLE.test(parent.textContent ?? "")
  ) {
    parent.remove();
  }
  return { value: Math.min(Math.max(value, 0), max), max, label };
}

/**
 * On the sanitized tree, every link either kept its (checked) href — it gets rel and
 * its destination — or lost it and is unwrapped to its text. Done here rather than in an
 * afterSanitizeAttributes hook: the result is the same (nothing after a link's own visit
 * changes its attributes) and DOMPurify no longer dispatches a hook for every element.
 */
function finishLinks(body: Element): void {
  for (const link of body.querySelectorAll("a")) {
    const href = link.getAttribute("href");
    if (href !== null) {
      link.setAttribute("rel", "noopener noreferrer");
      labelDestination(link, href);
    } else {
      unwrap(link);
    }
  }
}

function labelDestination(link: Element, href: string): void {
  const destination = destinations.get(href) ?? destinationOf(new URL(href));
  const visible = (link.textContent ?? "").replace(/\s+/g, " ").trim();
  link.setAttribute("title", `Opens ${destination}\n${href}`);
  // The visible text first: speech and voice control find the link by what is on screen.
  link.setAttribute("aria-label", visible === "" ? `Link, opens ${destination}` : `${visible} (opens ${destination})`);
}

function render(markdown: string, p: Pipeline): RenderedNote {
  // Lexed once: the same tokens give the HTML and the first line.
  const tokens = p.marked.lexer(markdown);
  const line = noteLineOfTokens(tokens);
  const html = p.marked.parser(tokens);
  const body = p.main.sanitize(html, MAIN_CONFIG);
  let text = body.textContent ?? "";
  if (visibleText(text) !== text) {
    stripTextNodes(body);
    text = body.textContent ?? "";
  }
  finishLinks(body);
  const progress = pinFirstProgress(body);
  // Neither step changes whether the text is readable: unwrapped links keep their text, and
  // a pinned bar leaves only a paragraph without readable text.
  const readable = READABLE.test(text) || body.querySelector("progress") !== null;
  const out = readable ? body.innerHTML.trim() : "";
  // The tray's rule (common/note-line.ts), so a collapsed card and the tray show the same line.
  return { html: out, progress, empty: !readable && progress === null, line: readable ? lineOf(line) : null };
}

/** Plain escaped text, should the Markdown pipeline ever fail: never a crash, never blank. */
function renderPlain(markdown: string): RenderedNote {
  const doc = document.implementation.createHTMLDocument("");
  const p = doc.createElement("p");
  p.textContent = markdown;
  const readable = READABLE.test(markdown);
  return { html: readable ? p.outerHTML : "", progress: null, empty: !readable, line: readable ? lineOf(markdown) : null };
}

const cache = new Map<string, RenderedNote>();

function remember(key: string, note: RenderedNote): RenderedNote {
  if (note.progress !== null) Object.freeze(note.progress);
  const frozen = Object.freeze(note);
  cache.set(key, frozen);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  return frozen;
}

/**
 * A note that is one line of plain words: nothing in it that Markdown or HTML would read as
 * syntax (no emphasis, code, link, image, table, heading, HTML, entity or escape character, no
 * autolink such as `www.`, `://` or an address, no list or block opening, no surrounding white
 * space). The pipeline would draw it as exactly one paragraph of its text, so it is drawn so
 * without marked and without a DOMPurify pass, which parses a whole document even for three
 * words. Short status lines are what agents mostly write; test/browser/markdown.test.ts checks
 * that both ways give the same result.
 */
const PLAIN_LINE = /^[\p{L}\p{N}][^\\`*_[\]<>&~|#@\r\n\t\f\v]*$/u;
const NOT_PLAIN = /^\d+[.)]|:\/\/|www\.|\s$/i;

/** Whether `text` (invisible and control characters already stripped) is one plain line, drawn without the pipeline. */
export function isPlainLine(text: string): boolean {
  return PLAIN_LINE.test(text) && !NOT_PLAIN.test(text);
}

/** A plain line (isPlainLine) as the pipeline draws it: one paragraph; a no-break space serialized as the DOM does. */
function renderPlainLine(text: string): RenderedNote {
  return { html: `<p>${text.replaceAll("\u00a0", "&nbsp;")}</p>`, progress: null, empty: false, line: lineOf(text) };
}

/**
 * Render a card's note (R3–R5). `null`, non-strings and blank notes are empty. The result is
 * frozen (and may be shared between calls with the same note).
 */
export function renderNote(markdown: string | null): RenderedNote {
  return renderVisible(markdown, true);
}

/** renderNote without its plain-line path: every note through marked and DOMPurify (the tests compare the two). */
export function renderNoteThroughPipeline(markdown: string | null): RenderedNote {
  return renderVisible(markdown, false);
}

function renderVisible(markdown: string | null, plainPath: boolean): RenderedNote {
  if (typeof markdown !== "string") return EMPTY;
  const text = visibleText(markdown).toWellFormed(); // lone surrogates → U+FFFD
  if (!READABLE.test(text)) return EMPTY;
  if (plainPath) {
    const cached = cache.get(text);
    if (cached !== undefined) {
      cache.delete(text); // most recently used last
      cache.set(text, cached);
      return cached;
    }
    if (isPlainLine(text)) return remember(text, renderPlainLine(text));
  }
  pipeline ??= setUp();
  let note: RenderedNote;
  try {
    note = render(text, pipeline);
  } catch {
    note = renderPlain(text);
  } finally {
    destinations.clear();
  }
  return plainPath ? remember(text, note) : Object.freeze(note);
}

/** Raw HTML (a `<progress>` bar to pin, tags whose text the sanitizer decides on): drawn at once. */
const MAY_HOLD_HTML = /</;

/**
 * A note for a card that has not drawn it yet: the line, emptiness and plain text from the lexer
 * alone (no HTML, no sanitizer pass). The drawn note instead when it is cached (free), when it may
 * hold raw HTML (R4 pins a bar from it; the sanitizer decides what text is left) or when it has
 * nothing readable (R5's "Progress updated" needs no drawing).
 */
export function previewNote(markdown: string | null): RenderedNote | NotePreview {
  if (typeof markdown !== "string") return EMPTY;
  const text = visibleText(markdown).toWellFormed();
  if (cache.has(text) || MAY_HOLD_HTML.test(text) || !READABLE.test(text)) return renderNote(markdown);
  // A plain line's text is itself, as the lexer would find it: white space folded.
  if (isPlainLine(text)) return { html: "", progress: null, empty: false, line: lineOf(text), text: text.replace(/\s+/g, " ") };
  const tokens = Lexer.lex(text, { gfm: true, breaks: false, pedantic: false });
  const plain = noteTextOfTokens(tokens);
  if (!READABLE.test(plain)) return renderNote(markdown);
  return { html: "", progress: null, empty: false, line: lineOf(noteLineOfTokens(tokens)), text: plain };
}

/**
 * A note at least this long is not lexed for a shell made while a load streams in: a 1–2 KB note
 * costs the lexer about half a millisecond, which the Gateway's reads wait on at a start-up of
 * hundreds of cards. Short notes cost next to nothing and are previewed at once.
 */
const LONG_NOTE_CHARS = 300;

/** Whether a shell's preview of `markdown` waits for the end of a load: a long note, not drawn already. */
export function previewWaitsForLoad(markdown: string | null): boolean {
  return typeof markdown === "string" && markdown.length >= LONG_NOTE_CHARS && !cache.has(visibleText(markdown).toWellFormed());
}

/** A shell's note while its preview waits for the end of a load: no text yet (lib/card-drawing.ts: whenLoadIsOver). */
export const PENDING_PREVIEW: NotePreview = Object.freeze({ html: "", progress: null, empty: false, line: null, text: "" });

/** Whether a note result stands in for a note not drawn yet. */
export const isPreview = (note: RenderedNote | NotePreview): note is NotePreview => "text" in note;
