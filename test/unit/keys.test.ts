// The composite keys of common/keys.ts: what each identifies, and the formats that are stored
// on disk (Settings.pinned, card-history.json) staying exactly as they are.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  cardSlotKey,
  gatewaySessionKey,
  isOnGateway,
  needEntryKey,
  parseGatewaySessionKey,
  slotKeyWithinGateway,
} from "../../common/keys.ts";
import { CardHistory } from "../../common/card-history.ts";
import { openHistoryFile } from "../../main/core/card-history-file.ts";
import { deriveCard } from "../../common/card.ts";
import { repairSettings } from "../../common/settings-schema.ts";
import type { CardEntry } from "../../common/model.ts";
import { FakeClock } from "./fake-clock.ts";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function entry(sessionKey: string, agentId: string | null, revision: number, at: number): CardEntry {
  const card = { sessionKey, revision, updatedAt: at, markdown: "", steps: [{ step: "A", status: "in_progress" as const }] };
  const derived = deriveCard(card, null);
  const base = { title: "t", card, derived, freshness: "live", confirmedAt: at, error: null } as const;
  return { ...base, gatewayId: "gw", sessionKey, agentId, hidden: false, updateRequired: false, refresh: null };
}

describe("what each key identifies", () => {
  test("a card slot across Gateways: Gateway, session, and the agent of a bare key only", () => {
    assert.equal(cardSlotKey({ gatewayId: "g", sessionKey: "global", agentId: "ops" }), "g\u0000global\u0000ops");
    assert.equal(cardSlotKey({ gatewayId: "g", sessionKey: "global", agentId: null }), "g\u0000global\u0000");
    assert.notEqual(
      cardSlotKey({ gatewayId: "g", sessionKey: "global", agentId: "a" }),
      cardSlotKey({ gatewayId: "g", sessionKey: "global", agentId: "b" }),
    );
    // An agent:<id>:… key names its agent itself (G4): the same card whatever agent is passed.
    assert.equal(cardSlotKey({ gatewayId: "g", sessionKey: "agent:a:x", agentId: "a" }), "g\u0000agent:a:x\u0000");
  });

  test("a session on a Gateway parses back into its parts; anything else is not one", () => {
    const key = gatewaySessionKey({ gatewayId: "gw-1", sessionKey: "agent:main:dashboard:1" });
    assert.deepEqual(parseGatewaySessionKey(key), { gatewayId: "gw-1", sessionKey: "agent:main:dashboard:1" });
    for (const bad of ["", "no-separator", "\u0000s", "g\u0000"]) assert.equal(parseGatewaySessionKey(bad), null);
    assert.equal(isOnGateway(key, "gw-1"), true);
    assert.equal(isOnGateway(key, "gw"), false, "a Gateway whose id is a prefix of another's");
  });

  test("a slot within one Gateway, and a needs-you entry across Gateways", () => {
    assert.equal(slotKeyWithinGateway("agent:a:x", "a"), "agent:a:x");
    assert.equal(slotKeyWithinGateway("global", "a"), "global\u0000a");
    assert.equal(needEntryKey({ gatewayId: "g", id: "ask_1" }), "g\u0001ask_1");
  });
});

describe("stored formats do not change", () => {
  test("Settings.pinned holds `gatewayId NUL sessionKey`, and repairing the settings keeps it", () => {
    const pinned = gatewaySessionKey({ gatewayId: "gw", sessionKey: "agent:main:main" });
    assert.equal(pinned, "gw\u0000agent:main:main");
    assert.deepEqual(repairSettings({ pinned: [pinned] }).pinned, ["gw\u0000agent:main:main"]);
  });

  test("card-history.json keeps one history per card, named by its fields (no composite key)", () => {
    const dir = mkdtempSync(join(tmpdir(), "pd-keys-"));
    dirs.push(dir);
    const path = join(dir, "card-history.json");
    const clock = new FakeClock(1_000);
    const file = openHistoryFile(path, { now: () => clock.now, schedule: clock.schedule });
    file.history.observe(entry("global", "ops", 1, 1_000));
    file.history.observe(entry("agent:a:x", null, 1, 1_000));
    file.history.observe(entry("agent:a:x", null, 2, 2_000));
    file.flush();
    const written = JSON.parse(readFileSync(path, "utf8")) as { version: number; histories: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(written), ["version", "histories"]);
    assert.deepEqual(
      written.histories.map((h) => [h.gatewayId, h.sessionKey, h.agentId, (h.records as unknown[]).length]),
      [
        ["gw", "global", "ops", 1],
        ["gw", "agent:a:x", null, 2],
      ],
    );
    assert.deepEqual(Object.keys(written.histories[0]!), [
      "gatewayId",
      "sessionKey",
      "agentId",
      "fromStart",
      "endedAt",
      "unwatchedSince",
      "records",
    ]);
    // What was written loads back to the same cards.
    const again = new CardHistory(openHistoryFile(path, { write: false }).history.data());
    assert.equal(again.current("gw", "agent:a:x", null)?.records.length, 2);
    assert.equal(again.current("gw", "global", "ops")?.records.length, 1);
  });
});
