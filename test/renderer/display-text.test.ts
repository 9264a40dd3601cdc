// The pages take Gateway text in without control characters; keys, ids and clean entries are untouched.
/* eslint-disable no-control-regex -- the output is checked for control characters */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connectionForDisplay, entryForDisplay, sessionsForDisplay } from "../../renderer/lib/display-text.ts";
import { card, entry, sessionRow, T0 } from "./fixtures.ts";

const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const NOTE_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe("entryForDisplay", () => {
  test("title, steps, current step, note, error and refresh messages lose their controls; keys stay", () => {
    const key = "agent:main:dashboard:\x1b[2J";
    const e = entry({
      sessionKey: key,
      title: "Ship\x1b]0;pwned\x07 it\x9b2J",
      card: card({
        sessionKey: key,
        markdown: "Waiting\x1b]52;c;eA==\x07 on CI\r\n\nmore\tthings",
        steps: [
          { step: "Build\x1b[1m", status: "completed" },
          { step: "Run\x1b]8;;https://x.example/\x1b\\ tests", status: "in_progress" },
        ],
      }),
      error: { code: "MALFORMED_CARD", message: "bad\x07 card" },
      refresh: { status: "failed", key: "k", error: "refused\x1bP$q\x1b\\ by agent", code: null, terminal: false, at: T0 },
    });
    const shown = entryForDisplay(e);
    assert.equal(shown.sessionKey, key, "a key is an id: calls go back with it");
    assert.equal(shown.title, "Ship it");
    assert.deepEqual(
      shown.card?.steps.map((s) => s.step),
      ["Build", "Run tests"],
    );
    assert.equal(shown.derived?.current, "Run tests");
    assert.equal(shown.card?.markdown, "Waiting on CI\n\nmore\tthings");
    assert.equal(shown.error?.message, "bad card");
    assert.equal(shown.refresh?.status === "failed" && shown.refresh.error, "refused by agent");
    assert.doesNotMatch(shown.card?.markdown ?? "", NOTE_CONTROL);
  });

  test("an entry without controls is the same object (the page redraws nothing for it)", () => {
    const e = entry({ card: card({ markdown: "Two\n\nparagraphs\twith a tab" }) });
    assert.equal(entryForDisplay(e), e);
  });
});

describe("connectionForDisplay and sessionsForDisplay", () => {
  test("advice, reason, command and session titles lose their controls", () => {
    const c = connectionForDisplay({
      state: "pairing_required",
      requestId: "r\x1b]0;x\x07",
      deviceId: "d",
      command: "openclaw devices approve r\x1b]0;x\x07",
      reason: "not-paired\x9b2J",
      advice: "Approve\x1b[2J it",
    });
    assert.ok(c.state === "pairing_required");
    for (const text of [c.advice, c.reason, c.command ?? ""]) assert.doesNotMatch(text, CONTROL, JSON.stringify(text));
    assert.equal(c.advice, "Approve it");
    const rows = sessionsForDisplay([sessionRow("agent:main:a", { title: "Title\x1b]0;x\x07 here" })]);
    assert.equal(rows[0]?.title, "Title here");
    assert.equal(rows[0]?.key, "agent:main:a");
  });
});
