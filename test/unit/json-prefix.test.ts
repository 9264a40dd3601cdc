// What a damaged JSON file still says (main/core/json-prefix.ts): the readable prefix.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readableJsonPrefix } from "../../main/core/json-prefix.ts";
import { normalizeSettings } from "../../main/core/settings.ts";

const GATEWAYS = [
  { answerApprovals: false, id: "home", url: "ws://127.0.0.1:18789", label: "Home", color: "#0a84ff" },
  { answerApprovals: false, id: "lab", url: "wss://lab.example:443", label: 'Lab "β" \\ \u00e9', color: "#30d158" },
  { answerApprovals: false, id: "ci", url: "ws://10.0.0.7:18789", label: "CI", color: "#ff9f0a" },
];
const FILE = JSON.stringify(
  {
    settings: { showCards: false, detector: { pollingRepeats: 7 }, pinned: ["home\u0000a"], gateways: GATEWAYS },
    windows: { d: { x: -1.5e2, y: 0 } },
  },
  null,
  "\t",
);

describe("readableJsonPrefix", () => {
  test("JSON reads as JSON.parse reads it; what follows a complete value is ignored", () => {
    for (const text of [FILE, "[]", "{}", '"x"', "true", "null", '{"a":[1,{"b":null}],"c":"\\u00e9\\n"}']) {
      assert.deepEqual(readableJsonPrefix(text), JSON.parse(text), text);
    }
    assert.deepEqual(readableJsonPrefix(`${FILE}\u0000garbage`), JSON.parse(FILE));
    assert.deepEqual(readableJsonPrefix(`\uFEFF${FILE}`), JSON.parse(FILE), "a byte order mark is skipped");
  });

  test("cut anywhere, every Gateway complete before the cut is kept, and nothing else is invented", () => {
    const ends = GATEWAYS.map((g) => FILE.indexOf("}", FILE.indexOf(JSON.stringify(g.color))) + 1);
    for (let cut = 0; cut <= FILE.length; cut++) {
      const read = readableJsonPrefix(FILE.slice(0, cut)) as { settings?: unknown } | undefined;
      const kept = normalizeSettings(read?.settings).gateways;
      const complete = GATEWAYS.filter((_, i) => (ends[i] ?? Infinity) <= cut);
      assert.deepEqual(kept.slice(0, complete.length), complete, `cut at ${cut}`);
      // A Gateway cut short is kept only as far as its id and address were written whole.
      for (const g of kept.slice(complete.length))
        assert.ok(
          GATEWAYS.some((o) => o.id === g.id && o.url === g.url),
          `cut at ${cut}`,
        );
    }
  });

  test("bytes that make no sense stop the reading there; what came before is kept", () => {
    assert.deepEqual(readableJsonPrefix('{"a": 1, "b": [true, false, @@@], "c": 3}'), { a: 1, b: [true, false] });
    assert.deepEqual(readableJsonPrefix('{"a": 1 "b": 2}'), { a: 1 });
    assert.deepEqual(readableJsonPrefix('{"a": "bad \u0001 control", "b": 2}'), {});
    assert.equal(readableJsonPrefix("\u00ff\u00fe garbage"), undefined);
    assert.equal(readableJsonPrefix(""), undefined);
  });

  test("a number or word cut at the very end is not read (123 could have been 12345)", () => {
    assert.deepEqual(readableJsonPrefix('{"a": 1, "b": 123'), { a: 1 });
    assert.deepEqual(readableJsonPrefix('{"a": 1, "b": tru'), { a: 1 });
    assert.deepEqual(readableJsonPrefix('{"a": 1, "b": "cut'), { a: 1 });
    assert.deepEqual(readableJsonPrefix('{"a": 1, "b'), { a: 1 });
  });

  test("a key named __proto__ is data, as JSON.parse makes it, never the object's prototype", () => {
    const read = readableJsonPrefix('{"__proto__": {"polluted": true}, "a": 1, "b": ') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(read), Object.prototype);
    assert.deepEqual(Object.keys(read), ["__proto__", "a"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test("nesting deeper than any settings file stops the reading there, without exhausting the stack", () => {
    const deep = `{"a": 1, "b": ${"[".repeat(100_000)}`;
    let kept: unknown[] = [];
    for (let depth = 3; depth <= 64; depth++) kept = [kept];
    assert.deepEqual(readableJsonPrefix(deep), { a: 1, b: kept }, "the lists down to depth 64 (the object is depth 1)");
  });
});
