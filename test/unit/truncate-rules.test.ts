// Truncation rules the mutation run found unpinned: a dotted identifier is a detail token
// only as a whole token, a detail token gets its middle ellipsis with exactly the minimum
// room left, and a run of trailing punctuation is dropped whole before the ellipsis.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { isDetailToken, truncate } from "../../common/truncate.ts";

describe("isDetailToken: dotted identifiers", () => {
  test("the whole token must be the identifier, not a piece of it", () => {
    assert.equal(isDetailToken("com.example.app"), true);
    assert.equal(isDetailToken("(com.example.app"), false);
    assert.equal(isDetailToken("com.example.app)"), false);
    assert.equal(isDetailToken("com.example.app,"), false);
  });
});

describe("truncate", () => {
  test("a path with exactly 12 characters of room left is shortened in its middle", () => {
    const out = truncate("see /a/very/long/path/to/the/file.ts", 16);
    assert.equal(out, "see /a/…/file.ts");
  });

  test("a path with less room than that is cut like prose", () => {
    assert.equal(truncate("see /a/very/long/path/to/the/file.ts", 15), "see /a/very/lo…");
  });

  test("every trailing punctuation mark and dash before the ellipsis goes, not just the last", () => {
    assert.equal(truncate("Wait, — then the rest continues", 8), "Wait…");
    assert.equal(truncate("Done;: next steps follow here", 8), "Done…");
  });
});
