// The activity tracker's pure parts (main/core/activity/): tool labels, fingerprints and
// payload details, each on its own.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { kindOf } from "../../main/core/activity/tool-labels.ts";
import { argsFingerprint, summaryFingerprint } from "../../main/core/activity/fingerprint.ts";
import { cleanDetail, detailFromArgs } from "../../main/core/activity/payload.ts";

describe("tool labels", () => {
  test("known tools have their glyph and verb; shell tools are commands", () => {
    assert.deepEqual([kindOf("read").glyph, kindOf("read").verb], ["read", "Read"]);
    assert.equal(kindOf("bash").command, true);
    assert.equal(kindOf("web_search").verb, "Web search");
    assert.equal(kindOf("progress_card").noDetail, true);
  });

  test("an unknown tool gets the generic glyph and its name in words", () => {
    assert.deepEqual(kindOf("memory_get"), { glyph: "tool", verb: "Memory get" });
    assert.deepEqual(kindOf("my-tool.v2"), { glyph: "tool", verb: "My tool v2" });
    assert.equal(kindOf("__").verb, "Tool");
  });
});

describe("fingerprints", () => {
  test("the same arguments in any key order give the same fingerprint; other values another", () => {
    assert.equal(argsFingerprint("exec", { command: "ls", cwd: "/a" }), argsFingerprint("exec", { cwd: "/a", command: "ls" }));
    assert.notEqual(argsFingerprint("exec", { command: "ls" }), argsFingerprint("exec", { command: "pwd" }));
    assert.notEqual(argsFingerprint("exec", { command: "ls" }), argsFingerprint("bash", { command: "ls" }));
  });

  test("secret-named fields do not count, and the raw text never appears", () => {
    assert.equal(argsFingerprint("http", { url: "u", token: "a" }), argsFingerprint("http", { url: "u", token: "b" }));
    const fp = summaryFingerprint("exec", "npm test --secret-value");
    assert.ok(fp.startsWith("exec:") && !fp.includes("npm"), fp);
  });
});

describe("payload details", () => {
  test("one line, invisible characters gone, the leading word dropped, secrets masked", () => {
    assert.equal(cleanDetail("from  docs/\u200bguide.md\n\tnext", /^from\s+/i), "docs/guide.md next");
    assert.equal(cleanDetail("TOKEN=abc make"), "TOKEN=*** make");
    assert.equal(cleanDetail(""), null);
    assert.equal(cleanDetail(42), null);
    assert.equal(cleanDetail("\u200b\n"), null);
  });

  test("a very long summary is capped before it is redacted", () => {
    assert.equal(cleanDetail("a ".repeat(3000))!.length, 2000);
  });

  test("from arguments: the command of a shell, a quoted query, a URL, a path; nothing for a card write", () => {
    assert.equal(detailFromArgs("exec", { cmd: "npm test" }), "npm test");
    assert.equal(detailFromArgs("web_search", { q: "electron tray" }), '"electron tray"');
    assert.equal(detailFromArgs("web_fetch", { url: "https://x.test/a" }), "https://x.test/a");
    assert.equal(detailFromArgs("read", { file_path: "src/a.ts" }), "src/a.ts");
    assert.equal(detailFromArgs("progress_card", { path: "x" }), null);
    assert.equal(detailFromArgs("read", "not an object"), null);
  });
});
