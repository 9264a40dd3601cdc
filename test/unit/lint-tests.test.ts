// scripts/lint-tests.ts: each way a skip can hide its reason, and each `.only`, is caught;
// reasoned skips and look-alikes in comments and strings are not.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lintTestSource } from "../../scripts/lint-tests.ts";

const lint = (text: string) => lintTestSource("sample.test.ts", text).map((f) => `${f.line}:${f.column} ${f.message}`);

describe("lint-tests", () => {
  const caught: [string, string, RegExp][] = [
    ["describe.skip", 'describe.skip("s", () => {});', /^1:10 `\.skip` cannot say why/],
    ["suite.skip", 'suite.skip("s", () => {});', /^1:7 `\.skip` cannot say why/],
    ["it.skip", 'it.skip("t", () => {});', /^1:4 `\.skip` cannot say why/],
    ["test.skip", 'test.skip("t", () => {});', /^1:6 `\.skip` cannot say why/],
    ["t.test.skip", 'test("p", async (t) => { await t.test.skip("t", () => {}); });', /`\.skip` cannot say why/],
    ["{ skip: true }", 'test("t", { skip: true }, () => {});', /^1:13 a skip needs its reason/],
    ['{ skip: "" }', 'describe("s", { skip: "" }, () => {});', /a skip needs its reason/],
    ["{ skip: `  ` }", 'it("t", { timeout: 5, skip: `  ` }, () => {});', /a skip needs its reason/],
    ["t.test with { skip: true }", 'test("p", async (t) => { await t.test("t", { skip: true }, () => {}); });', /a skip needs its reason/],
    ["t.skip()", 'test("t", (t) => { t.skip(); });', /`t\.skip\(\)` needs its reason/],
    ["describe.only", 'describe.only("s", () => {});', /^1:10 `\.only` left in/],
    ["it.only", 'it.only("t", () => {});', /`\.only` left in/],
    ["test.only", "test.only(() => {});", /`\.only` left in/],
    ["{ only: true }", 'test("t", { only: true }, () => {});', /^1:13 `only` left in/],
    ["{ only }", 'const only = true; describe("s", { only }, () => {});', /`only` left in/],
  ];
  for (const [name, source, expected] of caught) {
    test(`catches ${name}`, () => {
      const findings = lint(source);
      assert.equal(findings.length, 1, findings.join("\n"));
      assert.match(findings[0]!, expected);
    });
  }

  test("lets reasoned skips, todos, { only: false } and look-alikes in comments and strings pass", () => {
    const source = [
      'describe("s", { skip: "no Chromium here" }, () => {',
      '  test("a", { skip: noChromium, timeout: 5 }, () => {});',
      '  it("b", { skip: `needs ${tool}` }, () => {});',
      '  test("c", { skip }, () => {});',
      '  test("d", { only: false }, () => {});',
      '  test.todo("e");',
      '  test("f", (t) => { t.skip("not on this platform"); });',
      '  // describe.skip("old") and test.only are mentioned here, { skip: true } too',
      "  const sample = 'it.only(\"x\", { skip: true })';",
      "});",
    ].join("\n");
    assert.deepEqual(lint(source), []);
  });

  test("reports every finding with its line", () => {
    const findings = lint('test("a", () => {});\n\ndescribe.skip("s", () => {\n  it.only("t", { skip: true }, () => {});\n});');
    assert.deepEqual(
      findings.map((f) => f.split(" ")[0]),
      ["3:10", "4:6", "4:18"],
    );
  });
});
