// Agent text is data, never terminal control: ASCII controls, DEL and U+0080–U+009F leave every drawn text, escape
// sequences leave whole, printable text stays as written.
/* eslint-disable no-control-regex -- the output is checked for control characters */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { lineWithoutControls, textWithoutControls } from "../../common/control-chars.ts";
import { seededRandom } from "../harness/seeded-random.ts";

/** What the multi-line form may never return: ASCII controls but tab and LF, DEL, U+0080–U+009F. */
const FORBIDDEN_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const FORBIDDEN_LINE = /[\x00-\x1f\x7f-\x9f]/;

const SEQUENCES: Array<[string, string]> = [
  ["OSC 0 window title, BEL", "\x1b]0;pwned title\x07"],
  ["OSC 2 title, ST", "\x1b]2;pwned\x1b\\"],
  ["OSC 52 clipboard write", "\x1b]52;c;cm0gLXJmIH4=\x07"],
  ["OSC 8 hyperlink open", "\x1b]8;;https://evil.example/\x1b\\"],
  ["OSC 8 hyperlink close", "\x1b]8;;\x1b\\"],
  ["CSI clear screen", "\x1b[2J"],
  ["CSI cursor home", "\x1b[H"],
  ["CSI SGR colour", "\x1b[1;31m"],
  ["CSI private mode (alternate screen)", "\x1b[?1049h"],
  ["CSI with intermediate", "\x1b[0 q"],
  ["DCS (DECRQSS)", "\x1bP$qm\x1b\\"],
  ["APC", "\x1b_payload\x1b\\"],
  ["PM", "\x1b^payload\x1b\\"],
  ["SOS", "\x1bXpayload\x1b\\"],
  ["ESC 7 save cursor", "\x1b7"],
  ["ESC c full reset", "\x1bc"],
  ["ESC ( B charset", "\x1b(B"],
  ["8-bit CSI", "\x9b2J"],
  ["8-bit OSC with 8-bit ST", "\x9d0;title\x9c"],
  ["8-bit DCS", "\x90$qm\x9c"],
  ["8-bit APC", "\x9fpayload\x9c"],
];

describe("textWithoutControls / lineWithoutControls", () => {
  for (const [name, seq] of SEQUENCES) {
    test(`removes a whole ${name}, nothing of it left as text`, () => {
      assert.equal(textWithoutControls(`before${seq}after`), "beforeafter");
      assert.equal(lineWithoutControls(`before${seq}after`), "beforeafter");
    });
  }

  test("bare controls go: BEL, BS, NUL, DEL, a lone ESC, lone C1", () => {
    assert.equal(textWithoutControls("a\x07b\x08c\x00d\x7fe\x1b"), "abcde");
    assert.equal(textWithoutControls("a\x85b\x84c\x9c"), "abc");
  });

  test("a string sequence left open ends at its line: the next lines of a note survive", () => {
    assert.equal(textWithoutControls("keep \x1b]0;open title\nnext line"), "keep \nnext line");
    assert.equal(textWithoutControls("keep \x9d0;open"), "keep ");
  });

  test("multi-line: tab and LF kept; CRLF and a lone CR become LF; VT and FF a space", () => {
    assert.equal(textWithoutControls("a\tb\nc"), "a\tb\nc");
    assert.equal(textWithoutControls("a\r\nb\rc"), "a\nb\nc");
    assert.equal(textWithoutControls("a\vb\fc"), "a b c");
  });

  test("one line: tab, LF and CR fold to a space", () => {
    assert.equal(lineWithoutControls("a\tb\nc\r\nd\re"), "a b c d e");
  });

  test("printable text of every kind is unchanged", () => {
    for (const s of [
      "Run tests, then report.",
      "Ünïcödé — “quotes” … ñ",
      "日本語",
      "emoji 🎉 👩‍💻 🇩🇪",
      "[2J ]0;title",
      "",
      "~!@#$%^&*()_+`",
    ]) {
      assert.equal(textWithoutControls(s), s);
      assert.equal(lineWithoutControls(s), s);
    }
  });
});

// ——— properties over random strings ———

const PRINTABLE = [
  "a",
  "Z",
  "0",
  " ",
  "[",
  "]",
  ";",
  "\\",
  "^",
  "_",
  "P",
  "é",
  "—",
  "日本",
  "🎉",
  "👩‍💻",
  "\u00a0",
  "\u00ff",
  "\u0100",
  "\u2028",
];
const WHITESPACE = ["\t", "\n"];

function randomSequence(random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const params = Array.from({ length: Math.floor(random() * 4) }, () => pick(["0", "1", "9", ";", "?", ">"])).join("");
  const payload = Array.from({ length: Math.floor(random() * 6) }, () => pick(["a", "0", ";", " ", "é", "/", ":"])).join("");
  const st = pick(["\x1b\\", "\x9c"]);
  switch (Math.floor(random() * 7)) {
    case 0:
      return `${pick(["\x1b[", "\x9b"])}${params}${pick(["", " ", "$"])}${pick(["m", "J", "H", "q", "~", "@"])}`;
    case 1:
      return `${pick(["\x1b]", "\x9d"])}${pick(["0", "2", "8;", "52;c"])};${payload}${pick(["\x07", st])}`;
    case 2:
      return `${pick(["\x1bP", "\x90", "\x1b_", "\x9f", "\x1b^", "\x9e", "\x1bX", "\x98"])}${payload}${st}`;
    case 3:
      return `\x1b${pick(["", "(", "#", " "])}${pick(["7", "8", "c", "B", "=", "M"])}`;
    default: {
      // A lone control that cannot start a sequence (ESC and the 8-bit introducers only come whole).
      const lone = [...Array.from({ length: 32 }, (_, i) => i), 0x7f, ...Array.from({ length: 32 }, (_, i) => 0x80 + i)].filter(
        (c) => ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b, 0x90, 0x98, 0x9b, 0x9d, 0x9e, 0x9f].includes(c),
      );
      return String.fromCharCode(pick(lone));
    }
  }
}

describe("properties (seeded)", () => {
  test("any string: no forbidden control left, one-line has no tab or LF, and both are idempotent", () => {
    const random = seededRandom(0x7e5a);
    for (let i = 0; i < 5000; i++) {
      // Any UTF-16 code unit below U+0200, controls and all, plus a few wider characters.
      const n = Math.floor(random() * 40);
      let s = "";
      for (let k = 0; k < n; k++) s += random() < 0.9 ? String.fromCharCode(Math.floor(random() * 0x200)) : "日🎉";
      const text = textWithoutControls(s);
      const line = lineWithoutControls(s);
      const ctx = `#${i} ${JSON.stringify(s)}`;
      assert.doesNotMatch(text, FORBIDDEN_TEXT, ctx);
      assert.doesNotMatch(line, FORBIDDEN_LINE, ctx);
      assert.equal(textWithoutControls(text), text, `not idempotent: ${ctx}`);
      assert.equal(lineWithoutControls(line), line, `not idempotent: ${ctx}`);
    }
  });

  test("printable text with whole sequences and lone controls mixed in: exactly the printable text is left", () => {
    const random = seededRandom(0x5eed);
    for (let i = 0; i < 5000; i++) {
      let input = "";
      let printable = "";
      const n = Math.floor(random() * 20);
      for (let k = 0; k < n; k++) {
        const r = random();
        if (r < 0.3) input += randomSequence(random);
        else {
          const piece =
            r < 0.4 ? WHITESPACE[Math.floor(random() * WHITESPACE.length)]! : PRINTABLE[Math.floor(random() * PRINTABLE.length)]!;
          input += piece;
          printable += piece;
        }
      }
      const ctx = `#${i} ${JSON.stringify(input)}`;
      assert.equal(textWithoutControls(input), printable, ctx);
      assert.equal(lineWithoutControls(input), printable.replace(/[\t\n]/g, " "), ctx);
      // Text without controls is never touched.
      assert.equal(textWithoutControls(printable), printable, ctx);
    }
  });
});
