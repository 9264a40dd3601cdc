// N5 / P2: what every glance surface agrees on. The note's first readable line, rule by
// rule (one Markdown construct per case, each with a near miss that must stay as written),
// the order of visible cards, and the card and pin keys. Written for the mutation run,
// which found the rules of glance.ts pinned only by a few combined examples.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { visibleCards } from "../../common/visible-cards.ts";
import { noteLine } from "../../common/note-line.ts";
import type { DeskSnapshot, GatewaySnapshot } from "../../common/model.ts";
import { card, entry, T0 } from "../renderer/fixtures.ts";
import { cardSlotKey, gatewaySessionKey } from "../../common/keys.ts";

const first = (cases: Array<[string, string | null]>): void => {
  for (const [markdown, line] of cases) assert.equal(noteLine(markdown), line, JSON.stringify(markdown));
};

describe("noteLine: blocks that are skipped", () => {
  test("fenced code with ``` or ~~~ (up to three spaces in, any fence length, CRLF too)", () => {
    first([
      ["```\ncode\n```\nAfter", "After"],
      ["  ~~~\nsecret\n~~~\nShown", "Shown"],
      ["   ```\nsecret\n```\nShown", "Shown"],
      ["~~~~\nin\n~~~~\nout", "out"],
      ["```\r\nx\r\n```\r\nShown", "Shown"],
    ]);
  });

  test("indented code (four spaces or a tab)", () => {
    first([
      ["    indented code\nShown", "Shown"],
      ["\tindented\nShown", "Shown"],
      ["    - code item\nShown", "Shown"],
      ["   - item", "item"],
    ]);
  });

  test("link reference definitions, rules, heading underlines and table delimiter rows", () => {
    first([
      ["[ref]: https://x.test\nShown", "Shown"],
      ["   [ref]: x\nShown", "Shown"],
      ["[a]:", "[a]:"],
      ["===\nShown", "Shown"],
      ["* * *\nShown", "Shown"],
      ["___\nShown", "Shown"],
      ["-----\nShown", "Shown"],
      ["==", "=="],
      ["|---|:---:|\nShown", "Shown"],
      ["--- | ---\nShown", "Shown"],
      ["#\nNext", "Next"],
      ["  \n\t\nNext", "Next"],
    ]);
  });
});

describe("noteLine: inline syntax removed, text kept", () => {
  test("HTML, comments and <progress> go; autolinks keep their address", () => {
    first([
      ['<progress value="1"></progress>Shown', "Shown"],
      ["<progress/>Shown", "Shown"],
      ["<PROGRESS value=2>Shown", "Shown"],
      ["<!-- note -->Shown", "Shown"],
      ["<b>x</b> y", "x y"],
      ["<https://x.test/a>", "https://x.test/a"],
      ["<mailto:a@b.c>", "mailto:a@b.c"],
    ]);
  });

  test("images, inline and reference links keep their text", () => {
    first([
      ["![alt](x.png) z", "alt z"],
      ["[text](url) z", "text z"],
      ["[text][ref] z", "text z"],
      ["[text][] z", "text z"],
    ]);
  });

  test("quote, list, task and heading markers", () => {
    first([
      ["> > nested", "nested"],
      ["- x", "x"],
      ["* x", "x"],
      ["+ x", "x"],
      ["12. x", "x"],
      ["3) x", "x"],
      ["1234567890. x", "1234567890. x"],
      ["- [ ] todo", "todo"],
      ["- [X] done", "done"],
      ["[x] done", "done"],
      ["###### h6", "h6"],
      ["####### seven", "####### seven"],
      ["## Title ##", "Title"],
      ["Learn C#", "Learn C#"],
    ]);
  });

  test("emphasis, strike-through and code spans; intraword markers stay", () => {
    first([
      ["**b** __c__ ~~s~~", "b c s"],
      ["*i* _j_", "i j"],
      ["**bold**text", "boldtext"],
      ["snake_case_name", "snake_case_name"],
      ["2*3*4", "2*3*4"],
      ["*a*b", "*a*b"],
      ["`x` y", "x y"],
      ["a ** b", "a b"],
    ]);
  });

  test("backslash escapes keep the character literally", () => {
    first([
      ["\\*not emphasis\\*", "*not emphasis*"],
      ["\\_under\\_", "_under_"],
      ["\\# not heading", "# not heading"],
      ["\\[not link\\](x)", "[not link](x)"],
    ]);
  });

  test("a table row reads as its cells joined by ·", () => {
    first([["| a | b |", "a · b"]]);
  });

  test("entities: named ones in any case, numeric ones, invalid code points as U+FFFD, unknown ones as written", () => {
    first([
      ["&#65;", "A"],
      ["&#0;x", "\ufffdx"],
      ["&#1114112;x", "\ufffdx"],
      ["&#1114111;", "\u{10ffff}"],
      ["&AMP;", "&"],
      ["&unknown;", "&unknown;"],
      ["a&nbsp;&nbsp;b", "a b"],
      ["&quot;q&quot; &apos;", '"q" \''],
      ["&lt;&gt;", "<>"],
    ]);
  });

  test("white space is folded and trimmed", () => {
    first([["  a   \t b  ", "a b"]]);
  });
});

describe("visibleCards", () => {
  test("hidden entries and entries without a card are left out; newest first, then by session key", () => {
    const g = (id: string, cards: GatewaySnapshot["cards"]): GatewaySnapshot => ({ id, cards }) as unknown as GatewaySnapshot;
    const snapshot: DeskSnapshot = {
      gateways: [
        g("a", [
          entry({ sessionKey: "k-old", card: card({ updatedAt: T0 }) }),
          entry({ sessionKey: "k-hidden", card: card({ updatedAt: T0 + 9 }), hidden: true }),
          entry({ sessionKey: "k-none", card: null }),
          entry({ sessionKey: "k-b", card: card({ updatedAt: T0 + 5 }) }),
        ]),
        g("b", [
          entry({ gatewayId: "b", sessionKey: "k-a", card: card({ updatedAt: T0 + 5 }) }),
          entry({ gatewayId: "b", sessionKey: "k-new", card: card({ updatedAt: T0 + 7 }) }),
        ]),
      ],
    };
    assert.deepEqual(
      visibleCards(snapshot).map((e) => e.sessionKey),
      ["k-new", "k-a", "k-b", "k-old"],
    );
  });
});

describe("keys", () => {
  test("a card key names Gateway, session and agent; a pin key Gateway and session", () => {
    assert.equal(cardSlotKey({ gatewayId: "g", sessionKey: "s", agentId: "main" }), "g\u0000s\u0000main");
    assert.equal(cardSlotKey({ gatewayId: "g", sessionKey: "s", agentId: null }), "g\u0000s\u0000");
    assert.equal(gatewaySessionKey({ gatewayId: "g", sessionKey: "s" }), "g\u0000s");
  });
});

describe("noteLine: character references, HTML blocks, bars and breaks", () => {
  test("numeric references in decimal and hex (either case of x); out of range or zero is the replacement character", () => {
    first([
      ["&#65;&#x42;&#X43;&#x4a;", "ABCJ"],
      ["v&#49;&#50;", "v12"],
      ["a&#0;b", "a\uFFFDb"],
      ["a&#1114112;b", "a\uFFFDb"],
      ["a&#x10FFFF;b", "a\u{10FFFF}b"],
      ["&amp; &AMP; &foo;", "& & &foo;"],
    ]);
  });

  test("an HTML block: tags and comments leave a space, a bar goes with its fallback text", () => {
    first([
      ["<div>Building</div>", "Building"],
      ["<div>Build<br>done</div>", "Build done"],
      ['<div><progress value="1" max="3">1 of 3</progress> Building</div>', "Building"],
      ['<p>Build<progress value="1">x y</progress>ing</p>', "Build ing"],
      ['<p>Build<progress value="1">\nx\n</progress>ing</p>', "Build ing"],
    ]);
  });

  test("inline: only a <progress> tag opens a bar; a closing tag or a self-closing one hides nothing after it", () => {
    first([
      ['<span>Build</span> done <progress value="3" max="9">3/9</progress> now', "Build done now"],
      ["a <!-- note --> b", "a b"],
      ["a <!-- <progress> --> b </progress> c", "a b c"],
      ["<progress>1</progress> a <progress>2</progress> b", "a b"],
      ['<progress value="1"/> a <progress>2</progress> b', "a b"],
      ['<progress value="1" /> a <progress>2</progress> b', "a b"],
    ]);
  });

  test("inline: a bar hides only up to a closing tag after it, and code that spells one is not one", () => {
    first([
      ['<progress>1</progress> a <progress value="2"> b', "a b"],
      ['<progress value="1"> see `</progress>` here', "see </progress> here"],
    ]);
  });

  test("references in an HTML block, which marked leaves as written, are decoded here", () => {
    first([
      ["<p>Step &#50;&#x2F;&#X33; &#x2713;</p>", "Step 2/3 \u2713"],
      ["<p>a&#0;b&#1114112;c&#x10FFFF;</p>", "a\uFFFDb\uFFFDc\u{10FFFF}"],
    ]);
  });

  test("a surrogate written as a reference is U+FFFD, as the card shows it, even when two would pair", () => {
    first([["&#xD83D;&#xDE00; done", "\uFFFD\uFFFD done"]]);
  });

  test("an HTML block's lines go through the line rules: a heading mark goes, a lone # is no line", () => {
    first([
      ["<div>\n## Build\n</div>", "Build"],
      ["<div>\n#\nShown\n</div>", "Shown"],
    ]);
  });

  test("a commented-out closing tag does not close a bar, so its text is not hidden", () => {
    first([['<progress value="1"> a <!-- </progress> --> b', "a b"]]);
  });

  test("a hard line break ends the line (two spaces or a backslash)", () => {
    first([
      ["first  \nsecond", "first"],
      ["first\\\nsecond", "first"],
    ]);
  });

  test("a rule with spaces between its marks is skipped even inside a paragraph; a task box counts only at the start", () => {
    first([
      ["= = =\nBuilding", "Building"],
      ["see[x] this", "see[x] this"],
    ]);
  });
});
