// Issue 12: the card history file — atomic, at most one write a second, a damaged file
// set aside and reported, a damaged entry losing only itself.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { HISTORY_FILE_NAME, historyPath, loadHistoryFile, openHistoryFile } from "../../main/core/card-history-file.ts";
import { deriveCard } from "../../common/card.ts";
import type { CardEntry } from "../../common/model.ts";
import { FakeClock } from "./fake-clock.ts";

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "pd-history-"));
  dirs.push(d);
  return d;
};

function entry(revision: number, at: number, sessionKey = "agent:main:main"): CardEntry {
  const card = { sessionKey, revision, updatedAt: at, markdown: "secret-ish note", steps: [{ step: "A", status: "in_progress" as const }] };
  return {
    gatewayId: "gw",
    sessionKey,
    agentId: null,
    title: "t",
    card,
    derived: deriveCard(card, null),
    freshness: "live",
    confirmedAt: at,
    error: null,
    hidden: false,
    updateRequired: false,
    refresh: null,
  };
}

describe("card history file", () => {
  test("lives in the data folder as card-history.json", () => {
    assert.equal(HISTORY_FILE_NAME, "card-history.json");
    assert.equal(historyPath(join("data", "dir")), join("data", "dir", "card-history.json"));
  });

  test("is written at most once a second, and what was written loads back", () => {
    const dir = tempDir();
    const path = historyPath(dir);
    const clock = new FakeClock(1_000_000);
    const p = openHistoryFile(path, { now: () => clock.now, schedule: clock.schedule });
    p.history.observe(entry(1, clock.now));
    clock.advance(0);
    assert.equal(p.writes, 1);
    for (let rev = 2; rev <= 6; rev += 1) {
      clock.advance(100);
      p.history.observe(entry(rev, clock.now));
    }
    assert.equal(p.writes, 1, "changes within the second wait");
    clock.advance(1000);
    assert.equal(p.writes, 2, "then go out together");
    const loaded = loadHistoryFile(path);
    assert.equal(loaded.problem, null);
    assert.deepEqual(
      loaded.histories[0]!.records.map((r) => r.revision),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(readFileSync(path, "utf8").includes("secret-ish"), false, "no note text on disk");
    assert.deepEqual(readdirSync(dir), [HISTORY_FILE_NAME], "no temporary file left behind");
  });

  test("flush writes what is pending at once (quit)", () => {
    const path = historyPath(tempDir());
    const clock = new FakeClock(5_000);
    const p = openHistoryFile(path, { now: () => clock.now, schedule: clock.schedule });
    p.history.observe(entry(1, clock.now));
    clock.advance(0);
    p.history.observe(entry(2, clock.now));
    p.flush();
    assert.deepEqual(
      loadHistoryFile(path).histories[0]!.records.map((r) => r.revision),
      [1, 2],
    );
  });

  test("read-only mode (watch) never writes", () => {
    const path = historyPath(tempDir());
    const clock = new FakeClock(5_000);
    const p = openHistoryFile(path, { now: () => clock.now, schedule: clock.schedule, write: false });
    p.history.observe(entry(1, clock.now));
    clock.advance(2000);
    p.flush();
    assert.equal(existsSync(path), false);
  });

  test("a damaged file is set aside, reported in one sentence, and a new history starts", () => {
    const dir = tempDir();
    const path = historyPath(dir);
    writeFileSync(path, '{"version":1,"histories":[{"gatew');
    writeFileSync(join(dir, "settings.json"), "{}\n");
    const warnings: string[] = [];
    const p = openHistoryFile(path, { warn: (m) => warnings.push(m) });
    assert.equal(p.history.data().length, 0);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /card history .* is damaged: it is not valid JSON .*kept as .*card-history\.json\.damaged/);
    assert.equal(readFileSync(`${path}.damaged`, "utf8"), '{"version":1,"histories":[{"gatew', "kept for a look, byte for byte");
    assert.equal(readFileSync(join(dir, "settings.json"), "utf8"), "{}\n", "nothing else is touched");
  });

  test("a damaged entry loses only itself", () => {
    const path = historyPath(tempDir());
    const good = {
      gatewayId: "gw",
      sessionKey: "k",
      agentId: null,
      fromStart: true,
      endedAt: null,
      unwatchedSince: null,
      records: [{ at: 1, revision: 1, statuses: "ip", steps: ["a", "b"] }],
    };
    const bad = { ...good, records: [{ at: "yesterday", revision: 1, statuses: "ip" }] };
    writeFileSync(path, JSON.stringify({ version: 1, histories: [good, bad, { ...good, sessionKey: "k2" }] }));
    const loaded = loadHistoryFile(path);
    assert.deepEqual(
      loaded.histories.map((h) => h.sessionKey),
      ["k", "k2"],
    );
    assert.match(loaded.problem ?? "", /1 damaged entry; it was left out, the rest kept/);
  });

  test("a file of another version is not taken for a history", () => {
    const path = historyPath(tempDir());
    writeFileSync(path, JSON.stringify({ version: 9, histories: [] }));
    assert.match(loadHistoryFile(path).problem ?? "", /not a version 1 card history/);
  });
});
