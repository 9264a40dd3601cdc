// The one rule for "a note's first line" (N5): what the tray, notifications, `watch` and a
// collapsed card show of a card's Markdown note. Built on marked's lexer (the parser the card
// renders with), so block structure is the card's: fenced and indented code (command output)
// and link definitions are skipped, HTML blocks and inline tags are reduced to their text
// (a `<progress>` bar and its fallback text are dropped), links and images to their text.
//
// A glance line is read one source line at a time, so where a line looks like Markdown the
// lexer leaves as text, the line rules below still apply: a heading underline or table
// delimiter row alone is skipped, a `| a | b |` row reads `a · b`, a leading `[x]` task box,
// a `[text][ref]` link with no definition and stray `**`/`__`/`~~` lose their markers, and a
// single `*`/`_` inside a word (`2*3*4`) is not emphasis. Backslash escapes always stay literal.
import { Lexer, type Token, type Tokens } from "marked";
import { lineWithoutControls } from "./control-chars.ts";
import { stripInvisible } from "./strip.ts";

const LEX_OPTIONS = { gfm: true, breaks: false, pedantic: false } as const;

/**
 * The note's first readable line as plain text. Null when nothing readable is left.
 */
export function noteLine(markdown: string | null): string | null {
  if (!markdown) return null;
  return noteLineOfTokens(Lexer.lex(stripInvisible(markdown), LEX_OPTIONS));
}

/** The same from block tokens already lexed (GFM, no `breaks`), invisible characters already stripped: the card's renderer. */
export function noteLineOfTokens(blocks: readonly Token[]): string | null {
  for (const block of blocks) {
    for (const line of blockLines(block)) {
      const text = finishLine(line);
      if (text) return text;
    }
  }
  return null;
}

/**
 * Every readable line of the note as plain text, one per line, code blocks' text included: what a
 * card reads as before its Markdown is drawn (the page draws notes as they near the screen).
 * From block tokens as for noteLineOfTokens.
 */
export function noteTextOfTokens(blocks: readonly Token[]): string {
  const lines: string[] = [];
  for (const block of blocks) {
    const source = block.type === "code" ? splitLines(literalText((block as Tokens.Code).text)) : blockLines(block);
    for (const line of source) {
      const text = block.type === "code" ? lineWithoutControls(line).trim() : finishLine(line);
      if (text) lines.push(text);
    }
  }
  return lines.join("\n");
}

// ——— blocks → candidate lines (inline syntax already reduced) ———

function* blockLines(token: Token): Iterable<string> {
  switch (token.type) {
    case "def":
      // A definition whose destination is on the next line is, read line by line, text.
      if (/^\s{0,3}\[[^\]]+\]:\s*\r?\n/.test(token.raw)) yield* splitLines(literalText(token.raw));
      return;
    case "paragraph":
    case "heading":
    case "text": {
      const t = token as Tokens.Paragraph | Tokens.Heading | Tokens.Text;
      yield* splitLines(t.tokens ? inlineText(t.tokens) : literalText(t.text));
      return;
    }
    case "list":
      for (const item of (token as Tokens.List).items) for (const inner of item.tokens) yield* blockLines(inner);
      return;
    case "table": {
      const table = token as Tokens.Table;
      for (const row of [table.header, ...table.rows])
        yield row
          .map((cell) => inlineText(cell.tokens))
          .join(" | ")
          .replace(/^/, "| ");
      return;
    }
    case "html":
      yield* splitLines(withoutTags((token as Tokens.HTML).text));
      return;
    default: {
      // A quote is read through its blocks; code (command output, never a glance line), rules
      // and blank lines have no inner tokens, so nothing.
      const inner = (token as Tokens.Generic).tokens;
      if (inner) for (const block of inner) yield* blockLines(block);
    }
  }
}

const splitLines = (text: string): string[] => text.split(/\r?\n/);

// ——— inline tokens → text ———

/** Backslash-escaped ASCII is parked in the Private Use Area while the line rules run. */
const ESCAPED = 0xe000;
const park = (text: string): string => text.replace(/[\x21-\x7e]/g, (c) => String.fromCharCode(ESCAPED + c.charCodeAt(0)));
const unpark = (text: string): string => text.replace(/[\uE021-\uE07E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - ESCAPED));

function inlineText(tokens: readonly Token[]): string {
  let out = "";
  let inProgress = false;
  tokens.forEach((token, i) => {
    if (token.type === "html") {
      const tag = /^<(\/?)([a-z][a-z0-9-]*)/i.exec(token.text);
      // A bar's fallback text, up to its closing tag (an unclosed bar hides nothing).
      if (tag?.[2]?.toLowerCase() === "progress") inProgress = tag[1] !== "/" && !token.text.endsWith("/>") && closesLater(tokens, i);
      out += " "; // a tag or comment leaves a space between words
      return;
    }
    if (inProgress) return;
    out += tokenText(token, tokens[i - 1], tokens[i + 1]);
  });
  return out;
}

function closesLater(tokens: readonly Token[], from: number): boolean {
  return tokens.slice(from + 1).some((t) => t.type === "html" && /^<\/progress\b/i.test(t.text));
}

function tokenText(token: Token, before: Token | undefined, after: Token | undefined): string {
  switch (token.type) {
    case "escape":
      return park(token.text);
    case "text": // its text has numeric references decoded as the card shows them (a lone surrogate as U+FFFD)
    case "codespan":
      return literalText(token.text);
    case "br":
      return "\n";
    case "em":
      // `2*3*4`, `*a*b`: a single marker against a word character reads as written.
      if (wordAt(before?.raw.at(-1)) || wordAt(after?.raw[0])) return token.raw;
      return inlineText((token as Tokens.Em).tokens);
    default: {
      // Strong, struck, link and image (its alt, as the card reads it): their inner text. A loose
      // list's task box reads as written; the line rule for a leading `[ ]` drops it.
      const inner = (token as Tokens.Generic).tokens;
      return inner ? inlineText(inner) : literalText(token.raw);
    }
  }
}

const wordAt = (c: string | undefined): boolean => c !== undefined && /[\w*]/.test(c);

/** Text as the lexer leaves it: named character references are still written out, numeric ones too in code spans, HTML and definitions. */
function literalText(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, name: string) => {
    if (!name.startsWith("#")) return ENTITIES[name.toLowerCase()] ?? m;
    const n = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return String.fromCodePoint(n > 0 && n <= 0x10ffff ? n : 0xfffd);
  });
}
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", amp: "&" };

/** An HTML block's text: `<progress>` with its fallback, comments and tags (an unclosed bar's too) removed. */
function withoutTags(html: string): string {
  return literalText(html.replace(/<progress\b[^>]*>[\s\S]*?<\/progress>/gi, " ").replace(/<!--[\s\S]*?-->|<\/?[a-z][^>]*>/gi, " "));
}

// ——— line rules ———

function finishLine(raw: string): string {
  if (/^\s{0,3}([-*_=])(\s*\1){2,}\s*$/.test(raw)) return ""; // a rule or heading underline
  if (/^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?\|?\s*$/.test(raw)) return ""; // a table delimiter row
  let s = raw
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1") // a reference link without a definition
    .replace(/^\s*\[[ xX]\]\s+/, "")
    .replace(/^\s*#{1,6}(\s+|$)/, "")
    .replace(/\*{2,}|_{2,}|~{2,}/g, "");
  if (/^\s*\|/.test(s))
    s = s
      .trim()
      .replace(/^\||\|$/g, "")
      .replace(/\s*\|\s*/g, " · ");
  // Last, after character references are decoded: `&#27;` is an ESC too.
  return lineWithoutControls(unpark(s)).replace(/\s+/g, " ").trim();
}
