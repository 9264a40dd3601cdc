// P1 / N5: one truncation rule — word boundary, "…", middle ellipsis for paths and URLs.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { isDetailToken, middleEllipsis, truncate } from "../../common/truncate.ts";
import { seededRandom } from "../harness/seeded-random.ts";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}
function len(text: string): number {
  return graphemes(text).length;
}

/** Seeded, so a failure is reproducible. */
const rng = seededRandom;

const PIECES = [
  "a",
  "b",
  "c",
  "x",
  "Repair",
  "session",
  "owner",
  "the",
  "of",
  "é",
  "e\u0301",
  "n\u0303\u0301",
  "日本",
  "한국어",
  "🎉",
  "👍🏽",
  "👩‍💻",
  "🇩🇪",
  "🏳️‍🌈",
  "1️⃣",
  "—",
  ",",
  ".",
  ";",
  "-",
  ":",
  "(",
  ")",
  " ",
  " ",
  " ",
  "  ",
  "\t",
  "\n",
  "/home/user/projects/very/long/path/to/file.ts",
  "https://example.com/a/b/c?x=1",
  "com.example.app.Service",
  "src\\win\\path.cs",
  "supercalifragilisticexpialidocious",
];

function randomText(random: () => number): string {
  const n = Math.floor(random() * 25);
  let s = "";
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(random() * PIECES.length)];
  return s;
}

describe("truncate", () => {
  test("text under budget is unchanged", () => {
    assert.equal(truncate("2/5 Repair session owner", 40), "2/5 Repair session owner");
    assert.equal(truncate("exactly ten", 11), "exactly ten");
    assert.equal(truncate("", 10), "");
    assert.equal(truncate("🎉 done 👍🏽", 9), "🎉 done 👍🏽");
  });

  test("white space is folded (and trimmed) before measuring", () => {
    assert.equal(truncate("  Repair \n\n session\t\towner  ", 100), "Repair session owner");
    // 20 characters after folding: fits in 20 although the raw text is longer
    assert.equal(truncate("Repair\n\n\n\nsession    owner", 20), "Repair session owner");
  });

  test("prose is cut at a word boundary with an ellipsis", () => {
    const out = truncate("Repair the session owner table before the release", 20);
    assert.equal(out, "Repair the session…");
    assert.ok(len(out) <= 20);
  });

  test("a boundary that would waste over half the budget cuts inside the long word instead", () => {
    // boundary after "ab " leaves 17 of 20 unused → cut inside the word
    assert.equal(truncate("ab supercalifragilisticexpialidocious", 20), "ab supercalifragili…");
    // boundary after 12 of 20 characters is kept
    assert.equal(truncate("Repair owner supercalifragilistic", 20), "Repair owner…");
  });

  test("trailing punctuation is dropped before the ellipsis", () => {
    const out = truncate("Install, test, report and ship it", 16);
    assert.equal(out, "Install, test…");
  });

  test("a long path keeps its end visible with a middle ellipsis", () => {
    const path = "/home/user/projects/very/long/path/to/file.ts";
    const out = truncate(path, 24);
    assert.ok(out.endsWith("file.ts"), out);
    assert.ok(out.startsWith("/"), out);
    assert.ok(out.includes("…"), out);
    assert.equal(len(out), 24);
    // also after prose
    const mixed = truncate(`Editing ${path} now`, 30);
    assert.ok(mixed.startsWith("Editing "), mixed);
    assert.ok(mixed.endsWith("file.ts"), mixed);
    assert.ok(len(mixed) <= 30, mixed);
  });

  test("a long URL keeps its end visible", () => {
    const url = "https://github.com/openclaw/openclaw/pull/12345/files";
    const out = truncate(`See ${url}`, 28);
    assert.ok(out.endsWith("12345/files"), out);
    assert.ok(len(out) <= 28);
    assert.equal(isDetailToken(url), true);
    assert.equal(isDetailToken("com.example.app"), true);
    assert.equal(isDetailToken("C:\\Users\\me"), true);
    assert.equal(isDetailToken("hello"), false);
    assert.equal(isDetailToken("e.g."), false);
  });

  test("emoji and combining marks are never split", () => {
    const text = "👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻👩‍💻";
    // ZWJ sequences count as one character each
    assert.equal(len(text), 6);
    const out = truncate(text, 4);
    assert.equal(out, "👩‍💻👩‍💻👩‍💻…");
    const accents = "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301";
    assert.equal(truncate(accents, 3), "e\u0301e\u0301…");
    const flags = "🇩🇪🇫🇷🇯🇵🇧🇷";
    assert.equal(truncate(flags, 3), "🇩🇪🇫🇷…");
    // 5 flags in 4: keep = 3, head 1, tail 2
    assert.equal(middleEllipsis("🇩🇪🇫🇷🇯🇵🇧🇷🇮🇹", 4), "🇩🇪…🇧🇷🇮🇹");
  });

  test("one huge word without a boundary is hard-cut", () => {
    const out = truncate("supercalifragilisticexpialidocious", 10);
    assert.equal(out, "supercali…");
    assert.equal(len(out), 10);
  });

  test("budget 0 and 1", () => {
    assert.equal(truncate("anything at all", 0), "");
    assert.equal(truncate("anything at all", -5), "");
    assert.equal(truncate("anything at all", 1), "…");
    assert.equal(truncate("a", 1), "a");
    assert.equal(truncate("", 0), "");
    assert.equal(truncate("/a/very/long/path/file.ts", 1), "…");
    assert.equal(middleEllipsis("abcdef", 0), "");
    assert.equal(middleEllipsis("abcdef", 1), "…");
    assert.equal(middleEllipsis("abcdef", 2), "…f");
  });

  test("property: never longer than the budget, ellipsis iff cut, nothing split, prefix at a boundary", () => {
    const random = rng(0xc0ffee);
    for (let i = 0; i < 3000; i++) {
      const text = randomText(random);
      const budget = Math.floor(random() * 40);
      const out = truncate(text, budget);
      const folded = text.replace(/\s+/g, " ").trim();
      const ctx = `#${i} budget=${budget} text=${JSON.stringify(text)} out=${JSON.stringify(out)}`;

      assert.ok(len(out) <= Math.max(0, budget), `too long: ${ctx}`);
      if (budget > 0 && len(folded) <= budget) {
        assert.equal(out, folded, `changed although it fits: ${ctx}`);
        continue;
      }
      if (budget <= 0) {
        assert.equal(out, "", ctx);
        continue;
      }
      assert.ok(out.includes("…"), `cut without an ellipsis: ${ctx}`);
      // Every character shown is a whole character of the input (or the ellipsis).
      const source = new Set(graphemes(folded));
      for (const g of graphemes(out)) {
        if (g === "…" || g === " ") continue;
        assert.ok(source.has(g), `split or invented character ${JSON.stringify(g)}: ${ctx}`);
      }
      // Prose cuts keep a prefix of the text. The prefix ends at a word boundary, unless
      // the last boundary that fits would waste over half the budget (then the word is cut).
      if (out.endsWith("…") && out.indexOf("…") === out.length - 1) {
        const kept = out.slice(0, -1);
        assert.ok(folded.startsWith(kept), `not a prefix: ${ctx}`);
        const next = folded.slice(kept.length);
        if (kept.length > 0 && !/^[\s,;:.–—-]/.test(next)) {
          const lastSpace = kept.lastIndexOf(" ");
          const boundaryAt = lastSpace < 0 ? 0 : len(kept.slice(0, lastSpace + 1));
          assert.ok(budget - boundaryAt > budget / 2, `cut inside a word although a boundary at ${boundaryAt} was usable: ${ctx}`);
        }
      }
    }
  });

  test("property: middleEllipsis keeps head and tail of the token", () => {
    const random = rng(42);
    for (let i = 0; i < 1000; i++) {
      const token = randomText(random).replace(/\s+/g, "");
      const budget = 2 + Math.floor(random() * 30);
      const out = middleEllipsis(token, budget);
      const g = graphemes(token);
      const ctx = `budget=${budget} token=${JSON.stringify(token)} out=${JSON.stringify(out)}`;
      assert.ok(len(out) <= budget, ctx);
      if (g.length <= budget) {
        assert.equal(out, token, ctx);
        continue;
      }
      const [head, tail] = out.split("…") as [string, string];
      assert.ok(token.startsWith(head), ctx);
      assert.ok(token.endsWith(tail), ctx);
      assert.ok(len(tail) >= len(head), `the end should get more room: ${ctx}`);
    }
  });
});
