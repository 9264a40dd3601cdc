// The logger and its redactor: levels, structured fields, the recent lines for diagnostics,
// and what never gets through (known secrets whole or in part, secret-named fields, secret shapes).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, formatRecord, type LogRecord } from "../../main/core/logger.ts";
import { createRedactor, MIN_FRAGMENT, REDACTED } from "../../main/core/log-redaction.ts";

const SECRET = "Zq4-Hn8w.Pe3Tb-Ux6k.Ma1";

describe("redactor", () => {
  test("a known secret is masked wherever it appears, and so is any piece of it as long as MIN_FRAGMENT", () => {
    const r = createRedactor();
    r.protect(SECRET);
    assert.equal(r.text(`auth with ${SECRET} failed`), `auth with ${REDACTED} failed`);
    assert.equal(r.text(`${SECRET}${SECRET}`), REDACTED, "adjacent copies are one masked run");
    const piece = SECRET.slice(3, 3 + MIN_FRAGMENT);
    assert.equal(r.text(`starts ${piece}…`), `starts ${REDACTED}…`);
    assert.equal(r.text(`prefix ${SECRET.slice(0, 12)}`), `prefix ${REDACTED}`);
    const short = SECRET.slice(0, MIN_FRAGMENT - 1);
    assert.equal(r.text(`short ${short}`), `short ${short}`, "shorter pieces are ordinary text");
  });

  test("before a secret is registered it passes; short values are never registered (they would mask words)", () => {
    const r = createRedactor();
    assert.equal(r.text(`x ${SECRET}`), `x ${SECRET}`);
    r.protect("abc");
    r.protect("");
    r.protect(null);
    assert.equal(r.text("abc abc"), "abc abc");
  });

  test("secret-named fields are masked at any depth; flags about secrets and other fields are kept", () => {
    const r = createRedactor();
    const out = r.value({
      config: { url: "ws://127.0.0.1:18789", token: "t-1", password: "p-1", bootstrapToken: "b-1", setupCode: "s-1" },
      args: [{ label: "Work", token: "t-2" }],
      auth: { deviceToken: "d-1", scopes: ["operator.read"] },
      hasToken: true,
      empty: { token: "" },
    });
    assert.deepEqual(out, {
      config: { url: "ws://127.0.0.1:18789", token: REDACTED, password: REDACTED, bootstrapToken: REDACTED, setupCode: REDACTED },
      args: [{ label: "Work", token: REDACTED }],
      auth: { deviceToken: REDACTED, scopes: ["operator.read"] },
      hasToken: true,
      empty: { token: "" },
    });
  });

  test("secret shapes in text are masked without being registered: URL credentials, query secrets, bearer values", () => {
    const r = createRedactor();
    assert.doesNotMatch(r.text("wss://user:hunter22@gw.example/ws"), /hunter22/);
    assert.doesNotMatch(r.text("GET /x?token=abcdef123&x=1"), /abcdef123/);
    assert.doesNotMatch(r.text("Authorization: Bearer abcdefghijklmnop"), /abcdefghijklmnop/);
  });

  test("string values and errors in fields are redacted as text", () => {
    const r = createRedactor();
    r.protect(SECRET);
    assert.deepEqual(r.value({ url: `http://127.0.0.1:1/${SECRET}/popover.html`, error: new Error(`bad ${SECRET}`) }), {
      url: `http://127.0.0.1:1/${REDACTED}/popover.html`,
      error: `bad ${REDACTED}`,
    });
  });
});

describe("logger", () => {
  test("levels below the threshold are dropped; records carry the child's fields; every record is redacted", () => {
    const records: LogRecord[] = [];
    const log = createLogger({ sink: (r) => void records.push(r), level: "info", now: () => 0 });
    const child = log.child({ gateway: "gw-1" });
    log.protect(SECRET);
    child.debug("not shown");
    child.info(`connected with ${SECRET}`, { token: SECRET, attempt: 2 });
    log.warn("slow");
    assert.deepEqual(records, [
      { time: 0, level: "info", message: `connected with ${REDACTED}`, fields: { gateway: "gw-1", token: REDACTED, attempt: 2 } },
      { time: 0, level: "warn", message: "slow", fields: {} },
    ]);
  });

  test("the recent lines are the formatted, redacted records, bounded, oldest first", () => {
    const log = createLogger({ sink: () => undefined, level: "debug", keep: 2, now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    log.protect(SECRET);
    log.debug("one");
    log.info("two", { url: `ws://h/${SECRET}` });
    log.error("three", { note: "two words" });
    assert.deepEqual(log.recent(), [`03:04:05.006Z info  two url=ws://h/${REDACTED}`, '03:04:05.006Z error three note="two words"']);
  });

  test("a sink that throws does not break the caller", () => {
    const log = createLogger({
      sink: () => {
        throw new Error("disk full");
      },
    });
    assert.doesNotThrow(() => log.error("x"));
    assert.equal(log.recent().length, 1);
  });

  test("formatRecord: one line, level padded, fields as key=value", () => {
    const record = { time: 0, level: "warn", message: "m", fields: { a: 1, b: "x y", c: undefined } } as const;
    assert.equal(formatRecord(record), '00:00:00.000Z warn  m a=1 b="x y"');
  });
});
