// Agent and Gateway text is data on every short surface: the tray title and menu rows, a
// notification's title and body, `watch`'s block and plain lines, activity details, a note's
// first line (character references included) and log lines never carry a control character.
/* eslint-disable no-control-regex -- the output is checked for control characters */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { TrayTracker } from "../../main/core/tray-model.ts";
import { noticeBody, noticeTitle } from "../../main/core/notifications/notice-text.ts";
import { plainCardLine, plainConnectionLine, statusBlock } from "../../main/cli/watch-format.ts";
import { cleanDetail } from "../../main/core/activity/payload.ts";
import { noteLine } from "../../common/note-line.ts";
import { createLogger, formatRecord, stderrLine, type LogRecord } from "../../main/core/logger.ts";
import type { CardEntry, ConnectionState, DeskSnapshot, SessionActivity } from "../../common/model.ts";
import { card, connected, entry, T0 } from "../renderer/fixtures.ts";

/** Any ASCII control (tab and LF included: these are one-line surfaces), DEL or U+0080–U+009F. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

// Each class of sequence an agent could write, around words that must stay readable.
const HOSTILE_TITLE = "Fix\x1b]0;pwned\x07 the\x1b[2J \x1b]52;c;cm0gLXJm\x1b\\build\x9b31m\x08\r";
const HOSTILE_STEP = "Run\x1b]8;;https://evil.example/\x1b\\ tests\x1b]8;;\x1b\\\x1bP$qm\x1b\\\x07";
const HOSTILE_NOTE = "Waiting\x1b[1;31m on\x9d0;t\x9c CI\x1b[0m\n\nmore";

function hostileEntry(): CardEntry {
  return entry({
    title: HOSTILE_TITLE,
    card: card({
      markdown: HOSTILE_NOTE,
      steps: [
        { step: "Done", status: "completed" },
        { step: HOSTILE_STEP, status: "in_progress" },
      ],
    }),
  });
}

function snapshotOf(e: CardEntry, connection: ConnectionState = connected(T0), activity: SessionActivity[] = []): DeskSnapshot {
  return {
    gateways: [
      {
        id: e.gatewayId,
        label: "Home\x1b]0;gw\x07",
        color: null,
        url: "ws://home.test:18789",
        connection,
        sessions: [],
        cards: [e],
        boards: { supported: true, pins: [] },
        activity,
        needs: { answering: "off", advice: null, entries: [] },
        cardsKnown: true,
      },
    ],
  };
}

describe("tray model with a control-laden title and step", () => {
  test("the title and every menu row show the words and no control character", () => {
    const t = new TrayTracker();
    const s = snapshotOf(hostileEntry());
    for (const g of s.gateways) t.noteConnection(g.id, g.connection, T0);
    const m = t.model(s, T0 + 1000, { showTitle: true });
    assert.doesNotMatch(m.title, CONTROL, JSON.stringify(m.title));
    assert.match(m.title, /Fix the build/);
    assert.equal(m.cards.length, 1);
    for (const row of m.cards) {
      assert.doesNotMatch(row.label, CONTROL, JSON.stringify(row.label));
      assert.match(row.label, /Fix the build — Run tests/);
    }
    for (const row of m.connections) assert.doesNotMatch(row.label, CONTROL, JSON.stringify(row.label));
  });
});

describe("notification text with a control-laden title, step and note", () => {
  test("title and body carry the words, no control character", () => {
    const e = hostileEntry();
    const title = noticeTitle(e, "Home\x1b[2J\x9b1m");
    assert.doesNotMatch(title, CONTROL, JSON.stringify(title));
    assert.equal(title, "Home · Fix the build");
    const told = [
      {
        pending: { key: "k", gen: 1, kinds: new Set(["stepCompleted" as const]), updates: 1, fromCompleted: 0, entry: e, cleared: false },
        kind: "stepCompleted" as const,
        stallText: undefined,
      },
    ];
    const body = noticeBody(told, null);
    assert.doesNotMatch(body, CONTROL, JSON.stringify(body));
    assert.equal(body, "Step completed · 1/2 · Now: Run tests · Waiting on CI");
  });

  test("a title of nothing but controls falls back to the session key, as an empty one does", () => {
    const e = entry({ title: "\x1b]0;pwned\x07\x1b[2J" });
    assert.equal(noticeTitle(e, null), e.sessionKey);
  });
});

describe("watch text with a control-laden card", () => {
  test("the TTY block and the plain lines show the words, no control character", () => {
    const e = hostileEntry();
    const activity: SessionActivity = {
      gatewayId: e.gatewayId,
      sessionKey: e.sessionKey,
      live: true,
      runId: "r1",
      current: { glyph: "shell", label: "Shell · \x1b]0;t\x07make", tool: "exec", status: "running", at: T0 },
      lines: [],
      stall: { kind: "silent", sinceMs: 0, lastEventAt: T0, text: "No new activity\x1b[2J" },
      updatedAt: T0,
    };
    const advice: ConnectionState = { state: "connecting", attempt: 2, advice: "Connecting\x1b]0;x\x07 to the Gateway" };
    const lines = [
      ...statusBlock(snapshotOf(e, connected(T0), [activity]), 120, 12, T0),
      ...statusBlock(snapshotOf(e, advice), 120, 12, T0),
      plainCardLine(e),
      plainConnectionLine("Home\x1b[2J", advice),
    ];
    for (const l of lines) assert.doesNotMatch(l, CONTROL, JSON.stringify(l));
    const text = lines.join("\n");
    assert.match(text, /Fix the build 1\/2/);
    assert.match(text, /Run tests/);
    assert.match(text, /⋯ Shell · make/);
  });
});

describe("other text on its way to a surface", () => {
  test("a note's first line: a control written as a character reference is removed too", () => {
    assert.equal(noteLine("Waiting &#27;]0;pwned&#7;on &#x9b;2JCI&#127;"), "Waiting on CI");
    assert.equal(noteLine(HOSTILE_NOTE), "Waiting on CI");
  });

  test("an activity detail: sequences leave whole, not as `]0;title`", () => {
    assert.equal(cleanDetail("npm\x1b]0;pwned\x07 test\x9b2J"), "npm test");
  });

  test("a log line on stderr, in the file and in diagnostics quotes a Gateway's message without its controls", () => {
    const records: LogRecord[] = [];
    const logger = createLogger({ sink: (r) => void records.push(r), level: "debug" });
    logger.warn("read failed: \x1b]0;pwned\x07bad card\x9b2J", { label: "x\x1b[31my", detail: "two\nlines\x07" });
    const [r] = records;
    assert.ok(r);
    for (const line of [stderrLine(r).trimEnd(), formatRecord(r), ...logger.recent()]) {
      assert.doesNotMatch(line, CONTROL, JSON.stringify(line));
      assert.match(line, /read failed: bad card label=xy/);
    }
  });
});
