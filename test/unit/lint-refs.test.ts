// scripts/lint-refs.ts: references in comments must point inside the repository.
import assert from "node:assert/strict";
import { test } from "node:test";
import { definedIds, lintRefs, sectionsOf } from "../../scripts/lint-refs.ts";

const ids = definedIds("- **R6** paused\n- **E1** one\n- **E2** two\n- **E3** three\n");
const docs = (page: string): Set<string> | null => (page === "docs/gateway.md" ? sectionsOf("## 4. Cards\n### 4.6 Paused\n") : null);
const lint = (text: string, file = "x.ts"): string[] => lintRefs(file, text, ids, docs).map((f) => f.message);

test("an id a comment cites must be defined in docs/requirements.md", () => {
  assert.deepEqual(lint("// R6: paused\nconst a = 1;"), []);
  assert.deepEqual(lint("// R9: not a requirement\n"), ["R9 is not defined in docs/requirements.md"]);
});

test("a range is checked id by id", () => {
  assert.deepEqual(lint("/* E1–E3 */"), []);
  assert.deepEqual(lint("/* E1–E4 */"), ["E4 is not defined in docs/requirements.md"]);
});

test("strings and code never count, only comments", () => {
  assert.deepEqual(lint('const s = "R9 and gateway-protocol §4";\n'), []);
});

test("a docs page reference needs the page and the section", () => {
  assert.deepEqual(lint("// docs/gateway.md §4.6\n"), []);
  assert.deepEqual(lint("// docs/gateway.md §4.9\n"), ["docs/gateway.md has no section §4.9"]);
  assert.deepEqual(lint("// docs/nowhere.md §1\n"), ["docs/nowhere.md does not exist"]);
  assert.deepEqual(lint("// (spec: elsewhere.md §2)\n"), ["elsewhere.md does not exist"]);
});

test("the old reference to a document outside the repository is refused", () => {
  assert.equal(lint("// gateway-protocol §4.6\n").length, 1);
});

test("Svelte files: script comments and markup comments are read, with their lines", () => {
  const found = lintRefs("a.svelte", '<script lang="ts">\n  // R9\n</script>\n<!-- N8 -->\n', ids, docs);
  assert.deepEqual(
    found.map((f) => [f.line, f.message]),
    [
      [4, "N8 is not defined in docs/requirements.md"],
      [2, "R9 is not defined in docs/requirements.md"],
    ],
  );
});
