// `watch` and a folded activity line (issue 19, the strip tidied): the `{"type":"activity"}` JSON
// line keeps its keys and adds an optional `count` only on a line standing for several calls; a new
// repeat is a new JSON line; the terminal row shows `×3` even when the label is cut.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { activityLine, activitySignature, statusBlock } from "../../main/cli/watch-format.ts";
import type { ActivityLine, DeskSnapshot, SessionActivity } from "../../common/model.ts";

const KEY = "agent:main:main";
const exec = (count?: number, label = "Shell · npm test"): ActivityLine => ({
  glyph: "shell",
  label,
  tool: "exec",
  at: 1_796_227_520_113,
  status: "running",
  ...(count === undefined ? {} : { count }),
});
const read: ActivityLine = { glyph: "read", label: "Read · docs/guide.md", tool: "read", at: 1_796_227_519_870, status: "done" };

function activity(current: ActivityLine): SessionActivity {
  return { gatewayId: "gw", sessionKey: KEY, live: true, runId: "r1", current, lines: [read, current], stall: null, updatedAt: 1 };
}

function snapshot(a: SessionActivity): DeskSnapshot {
  const connection = { state: "connected" as const, since: 1, serverVersion: null, scopes: [], limited: false, advice: "" };
  return {
    gateways: [
      {
        id: "gw",
        label: "gateway",
        color: null,
        url: "ws://127.0.0.1:1",
        connection,
        sessions: [],
        cards: [],
        boards: { supported: true, pins: [] },
        activity: [a],
        needs: { answering: "off", advice: null, entries: [] },
        cardsKnown: true,
      },
    ],
  };
}

describe("watch: folded activity lines", () => {
  test("--json: a single call keeps the documented keys; a folded one adds `count`", () => {
    const single = activityLine(activity(exec()));
    assert.deepEqual(Object.keys(single.current!).sort(), ["at", "glyph", "label", "status", "tool"]);
    assert.deepEqual(Object.keys(single.lines[0]!).sort(), ["at", "glyph", "label", "status", "tool"]);
    const folded = activityLine(activity(exec(3)));
    assert.deepEqual(folded.current, {
      glyph: "shell",
      label: "Shell · npm test",
      tool: "exec",
      status: "running",
      at: exec().at,
      count: 3,
    });
    assert.equal(folded.lines[1]!.count, 3);
    assert.equal("count" in folded.lines[0]!, false);
    assert.deepEqual(Object.keys(folded).sort(), ["current", "gateway", "lines", "live", "runId", "sessionKey", "stall", "type"]);
  });

  test("--json: one more repeat of the same line is a change worth a line", () => {
    assert.notEqual(activitySignature(activity(exec(2))), activitySignature(activity(exec(3))));
    assert.equal(activitySignature(activity(exec(3))), activitySignature(activity(exec(3))));
  });

  test("terminal: the live row says ×3, kept when the label is cut", () => {
    assert.ok(statusBlock(snapshot(activity(exec(3))), 120).includes("⋯ Shell · npm test ×3"));
    assert.ok(statusBlock(snapshot(activity(exec())), 120).includes("⋯ Shell · npm test"));
    const long = `Shell · ${"npm run test:integration -- --grep session ".repeat(3)}`;
    const row = statusBlock(snapshot(activity(exec(12, long))), 60).find((l) => l.startsWith("⋯"));
    assert.ok(row?.endsWith(" ×12"), row);
    assert.ok(row !== undefined && row.length <= 60, `${row?.length} characters`);
  });
});
