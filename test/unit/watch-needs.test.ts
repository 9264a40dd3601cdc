// `watch`'s needs-you lines (Y8): the `{"type":"needs"}` JSON shape, the plain line and the
// TTY rows above the cards, with Gateway text kept exactly in JSON and never steering a terminal.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { needsJson, needsLine, plainNeedsLine, statusBlock } from "../../main/cli/watch-format.ts";
import { NeedsBook } from "../../main/core/needs.ts";
import type { DeskSnapshot, NeedEvent } from "../../common/model.ts";

const GW = "127.0.0.1-18789";
const URL = "ws://user:secret@127.0.0.1:18789/?token=abc";
const KEY = "agent:main:dashboard:7debc8f4-7645-490b-ab82-aa738fbada16";
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const HOSTILE = "echo '\u001b[2J\u001b]0;owned\u0007' \u009b31m \u007f <b>x</b>";

function events(command: string): NeedEvent[] {
  const out: NeedEvent[] = [];
  const book = new NeedsBook({ now: () => 1_000, onChange: (_g, e) => void (e && out.push(e)) });
  const request = {
    command,
    cwd: "/srv",
    host: "gateway",
    allowedDecisions: ["allow-once", "deny"],
    sessionKey: KEY,
    agentId: "main",
    runId: "r",
  };
  book.handleEvent(GW, "exec.approval.requested", { id: "a1", request, createdAtMs: 1_000, expiresAtMs: 1_801_000 });
  book.handleEvent(GW, "exec.approval.resolved", { id: "a1", decision: "allow-once", resolvedBy: "approver" });
  return out;
}

describe("watch: needs-you lines", () => {
  test("the JSON line has the documented shape, the exact command and a link without secrets", () => {
    const [arrived, resolved] = events("uname -s");
    const line = JSON.parse(needsJson(needsLine(arrived!, URL)));
    assert.deepEqual(Object.keys(line), [
      "type",
      "gateway",
      "event",
      "id",
      "kind",
      "sessionKey",
      "agentId",
      "runId",
      "command",
      "cwd",
      "host",
      "title",
      "description",
      "questions",
      "allowedDecisions",
      "arrivedAt",
      "expiresAt",
      "link",
      "outcome",
    ]);
    assert.equal(line.event, "arrived");
    assert.equal(line.command, "uname -s");
    assert.equal(line.link, "http://127.0.0.1:18789/approve/a1");
    const end = JSON.parse(needsJson(needsLine(resolved!, URL)));
    assert.deepEqual(end.outcome, { outcome: "allowed-once", text: "allowed once in approver", resolvedBy: "approver", endedAt: 1_000 });
  });

  test("control characters: escaped in JSON (same value read back), gone from plain and TTY lines", () => {
    const [arrived] = events(HOSTILE);
    const json = needsJson(needsLine(arrived!, URL));
    assert.doesNotMatch(json, CONTROL);
    assert.equal(JSON.parse(json).command, HOSTILE);
    const plain = plainNeedsLine(arrived!, "Fix \u001b[31mbuild", URL);
    assert.doesNotMatch(plain, CONTROL);
    assert.match(plain, /<b>x<\/b>/);
    const snapshot = {
      gateways: [
        {
          id: GW,
          label: "local",
          color: null,
          url: URL,
          sessions: [],
          cards: [],
          activity: [],
          boards: { supported: true, pins: [] },
          connection: { state: "connected", since: 0, serverVersion: null, scopes: [], limited: false, advice: "" },
          needs: { answering: "on", advice: null, entries: [arrived!.entry] },
          cardsKnown: true,
        },
      ],
    } as DeskSnapshot;
    const rows = statusBlock(snapshot, 200, 12, 1_000);
    assert.match(rows[1] ?? "", /^! .*waits for your approval · expires in 30 min/);
    assert.ok(rows.indexOf(rows.find((r) => r.includes("No progress cards"))!) > 1, "needs rows come above the cards");
    for (const r of rows) assert.doesNotMatch(r, CONTROL);
  });
});
