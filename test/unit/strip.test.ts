// C6: every invisible / bidirectional control range the Gateway strips is stripped again.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { stripInvisible } from "../../common/strip.ts";

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let cp = from; cp <= to; cp++) out.push(cp);
  return out;
}

const STRIPPED: Array<[string, number, number]> = [
  ["zero-width and LRM/RLM", 0x200b, 0x200f],
  ["bidi embeddings and overrides", 0x202a, 0x202e],
  ["word joiner and invisible operators", 0x2060, 0x2064],
  ["deprecated format characters", 0x206a, 0x206f],
  ["BOM / zero-width no-break space", 0xfeff, 0xfeff],
  ["tag characters (astral, surrogate pairs)", 0xe0000, 0xe007f],
];

describe("stripInvisible", () => {
  for (const [name, from, to] of STRIPPED) {
    test(`strips every code point of ${name} U+${from.toString(16).toUpperCase()}–U+${to.toString(16).toUpperCase()}`, () => {
      for (const cp of range(from, to)) {
        const ch = String.fromCodePoint(cp);
        assert.equal(stripInvisible(`a${ch}b`), "ab", `U+${cp.toString(16).toUpperCase()} should be stripped`);
        assert.equal(stripInvisible(`${ch}${ch}`), "", `U+${cp.toString(16).toUpperCase()} twice`);
      }
    });
  }

  test("tag characters are removed as whole surrogate pairs", () => {
    // U+E0041 TAG LATIN CAPITAL LETTER A = \uDB40\uDC41
    const tagged = "x\u{E0041}\u{E0042}\u{E007F}y";
    assert.equal(tagged.length, 8);
    const out = stripInvisible(tagged);
    assert.equal(out, "xy");
    // no lone surrogate left behind
    assert.ok(!/[\uD800-\uDFFF]/.test(out));
  });

  test("neighbours of the ranges are kept", () => {
    const keep = [0x200a, 0x2010, 0x2029, 0x202f, 0x205f, 0x2065, 0x2069, 0x2070, 0xfefe, 0xff00, 0xdfff0, 0xe0080, 0xe0100];
    for (const cp of keep) {
      const ch = String.fromCodePoint(cp);
      assert.equal(stripInvisible(`a${ch}b`), `a${ch}b`, `U+${cp.toString(16).toUpperCase()} should be kept`);
    }
  });

  test("surrogate pairs that only share the high surrogate with tags are kept", () => {
    // U+E0100 VARIATION SELECTOR-17 = \uDB40\uDD00: same high surrogate, outside the range.
    const vs17 = "\u{E0100}";
    assert.equal(vs17, "\uDB40\uDD00");
    assert.equal(stripInvisible(`a${vs17}`), `a${vs17}`);
  });

  test("normal text, whitespace and emoji are untouched", () => {
    const samples = [
      "Run tests, then report.",
      "  leading and trailing  \n\ttabs ",
      "Ünïcödé — “quotes” … ñ",
      "日本語のテキスト",
      "emoji 🎉🚀 flag 🇩🇪 skin 👍🏽",
      // combining marks are kept (a ZWJ is not: see the next test)
      "café e\u0301",
      "",
    ];
    for (const s of samples) assert.equal(stripInvisible(s), s);
  });

  test("ZWJ inside an emoji sequence is stripped (U+200D is in U+200B–200F)", () => {
    assert.equal(stripInvisible("👩\u200D💻"), "👩💻");
  });

  test("is global: strips every occurrence, and mixed ranges", () => {
    const dirty = "\uFEFF\u202EHello\u200B \u2060World\u206A\u{E0020}!";
    assert.equal(stripInvisible(dirty), "Hello World!");
  });
});
