// N5: noteLine's block and inline rules against their near misses: text that only looks like a
// fence, rule, link definition, table row or quote when the pattern is not anchored to the whole
// line, markers with extra spaces or a second marker, `<progress>` with attributes and content,
// `http:` autolinks, and tags that must leave a space. Written from the mutation run's survivors.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { noteLine } from "../../common/note-line.ts";

const first = (cases: Array<[string, string | null]>): void => {
  for (const [markdown, line] of cases) assert.equal(noteLine(markdown), line, JSON.stringify(markdown));
};

describe("noteLine: skip rules hold only for the whole line", () => {
  test("a fence marker inside a sentence does not open a code block", () => {
    first([["Run ```make``` now\nlater", "Run make now"]]);
  });

  test("link reference definitions: no space needed after the colon, a target is needed", () => {
    first([
      ["[ref]:https://x.test\nShown", "Shown"],
      ["[ref]: \nShown", "[ref]:"],
      ["Note [x]: y", "Note [x]: y"],
      ["[ref]:\nhttps://x.test\nShown", "[ref]:"],
      ["  [ref]:\n  https://x.test\nShown", "[ref]:"],
    ]);
  });

  test("rules: only a line made of the marker (trailing spaces allowed)", () => {
    first([
      ["--- \nShown", "Shown"],
      ["Step ---", "Step ---"],
      ["--- done", "--- done"],
      ["ab---", "ab---"],
      ["--->\nShown", "--->"],
    ]);
  });

  test("table delimiter rows: one or many columns, spaced or not, nothing else on the line", () => {
    first([
      ["|---|\nShown", "Shown"],
      ["|---|---|---|\nShown", "Shown"],
      ["| --- | --- |\nShown", "Shown"],
      ["a |---|", "a |---|"],
      ["ab|---|", "ab|---|"],
      ["|---| x", "--- · x"],
      ["|---|x", "--- · x"],
      ["|---|---x", "--- · ---x"],
    ]);
  });
});

describe("noteLine: inline HTML", () => {
  test("<progress> with attributes is removed with its text, leaving a space", () => {
    first([
      ['<progress value="3" max="10">3 of 10</progress> Building', "Building"],
      ['Step<progress value="1">1</progress>done', "Step done"],
    ]);
  });

  test("http: autolinks keep their address like https: ones", () => {
    first([["See <http://x.test/a>", "See http://x.test/a"]]);
  });

  test("tags with attributes are removed and leave a space between words", () => {
    first([
      ['<span class="x">Hi</span> there', "Hi there"],
      ["one<br>two", "one two"],
    ]);
  });
});

describe("noteLine: line markers", () => {
  test("quote markers only at the start, with or without a space, several deep", () => {
    first([
      ["a > b", "a > b"],
      ["x> y", "x> y"],
      [">quote", "quote"],
      [">>nested", "nested"],
    ]);
  });

  test("a list marker takes all spaces after it, so a task box or heading behind it is still seen", () => {
    first([
      ["-   [x] done", "done"],
      ["- [x]  # Title", "Title"],
    ]);
  });

  test("a task box only at the start of the line", () => {
    first([["Fix [x] box", "Fix [x] box"]]);
  });

  test("a code span fenced by two backticks loses both on each side", () => {
    first([
      ["``a``", "a"],
      ["Run ``make all`` now", "Run make all now"],
    ]);
  });

  test("a single tilde is text, not strikethrough", () => {
    first([["about ~5 min left", "about ~5 min left"]]);
  });
});

describe("noteLine: table rows", () => {
  test("only a line starting with a pipe is a table row", () => {
    first([
      ["a | b", "a | b"],
      ["a|b", "a|b"],
    ]);
  });

  test("cells are joined whatever the spacing around pipes and the line", () => {
    first([
      ["  | a | b |  ", "a · b"],
      ["| ab|cd |", "ab · cd"],
    ]);
  });
});
