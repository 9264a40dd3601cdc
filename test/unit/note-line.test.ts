// N5: the first-line rule (common/note-line.ts) on whole Markdown blocks as marked lexes them;
// the line-by-line corpus is in glance-note-line*.test.ts, the card's agreement in the browser suite.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Lexer } from "marked";
import { noteLine, noteLineOfTokens, noteTextOfTokens } from "../../common/note-line.ts";

const first = (cases: Array<[string, string | null]>): void => {
  for (const [markdown, line] of cases) assert.equal(noteLine(markdown), line, JSON.stringify(markdown));
};

describe("noteLine on blocks", () => {
  test("code blocks are never a line, however they are written or nested", () => {
    first([
      ["```\nonly code\n```", null],
      ["- item with code:\n\n  ```\n  x\n  ```", "item with code:"],
      ["> ```\n> quoted code\n> ```\n\nAfter", "After"],
    ]);
  });

  test("a real table reads as its header row; an HTML block as its text", () => {
    first([
      ["| Step | State |\n|:--|--:|\n| build | ok |", "Step · State"],
      ["<div>\n  <p>Inside <em>html</em></p>\n</div>", "Inside html"],
      ["<details>\n<summary>Summary</summary>\n</details>", "Summary"],
    ]);
  });

  test("a setext heading is its text; a paragraph its first line", () => {
    first([
      ["Heading\n-------\nbody", "Heading"],
      ["first line\nsecond line", "first line"],
      ["hard  \nbreak", "hard"],
    ]);
  });

  test("a bar's fallback text is dropped only up to its closing tag", () => {
    first([
      ["<progress value=1>hidden</progress> shown", "shown"],
      ["<progress value=1> then text", "then text"],
    ]);
  });

  test("a loose task list's box is dropped as a tight one's is", () => {
    first([
      ["- [ ] first\n\n- [x] second", "first"],
      ["- [x] done\n\n  more", "done"],
    ]);
  });

  test("an image reads as its alt text the way the card shows it, without emphasis or code marks", () => {
    first([["![*Build* `ok`](x.png) now", "Build ok now"]]);
  });

  test("tokens already lexed give the same line (the card's path)", () => {
    for (const note of ["# Plan\nbody", "```\nx\n```\n| a | b |", "<!-- c -->\n\n*em* text"]) {
      assert.equal(noteLineOfTokens(Lexer.lex(note, { gfm: true })), noteLine(note), JSON.stringify(note));
    }
  });
});

describe("noteTextOfTokens: a note as plain text before it is drawn (issue 21)", () => {
  const text = (markdown: string): string => noteTextOfTokens(Lexer.lex(markdown, { gfm: true }));

  test("one line per readable line: headings, paragraphs, list items, table rows, quotes", () => {
    assert.equal(
      text(
        "# Release\n\nFirst **bold** line\nsecond line\n\n- [x] lint `src/a.ts`\n- see [the board](https://b.example)\n\n> quoted\n\n| A | B |\n|--|--|\n| 1 | 2 |",
      ),
      "Release\nFirst bold line\nsecond line\nlint src/a.ts\nsee the board\nquoted\nA · B\n1 · 2",
    );
  });

  test("code blocks keep their lines as text; blank lines and rules are dropped", () => {
    assert.equal(text("Run:\n\n```sh\nnpm test\n\nnpm run build\n```\n\n---\n\nDone"), "Run:\nnpm test\nnpm run build\nDone");
  });

  test("terminal controls and invisible characters never reach the text", () => {
    assert.equal(text("ok \u001b[31mred\u001b[0m\n\n```\nbell\u0007 here\n```"), "ok red\nbell here");
  });

  test("nothing readable is the empty string", () => {
    assert.equal(text("***\n\n<!-- only a comment -->"), "");
  });
});
