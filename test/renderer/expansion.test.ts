// E1–E4: open/closed per card, remembered per connection, reset only by a confirmed clear.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ExpansionMemory } from "../../renderer/lib/expansion.ts";
import { card, clearedByRead, connected, endedRun, entry, GW, KEY, offline, steps, T0 } from "./fixtures.ts";

const URL_A = "ws://127.0.0.1:18789";

function memory(collapseByDefault = false): ExpansionMemory {
  const m = new ExpansionMemory({ collapseByDefault });
  m.connection(GW, connected(T0), URL_A);
  return m;
}

describe("E1: a new card's default", () => {
  test("starts expanded", () => {
    const m = memory();
    m.observe(entry());
    assert.equal(m.isOpen(entry()), true);
  });

  test("starts collapsed when Collapse task progress by default is on", () => {
    const m = memory(true);
    m.observe(entry());
    assert.equal(m.isOpen(entry()), false);
  });

  test("a card never observed answers with the default", () => {
    assert.equal(memory().isOpen(entry()), true);
    assert.equal(memory(true).isOpen(entry()), false);
  });

  test("changing S2 later leaves cards already shown alone; new ones follow it", () => {
    const m = memory();
    m.observe(entry());
    m.setCollapseByDefault(true);
    m.observe(entry({ card: card({ revision: 2 }) }));
    assert.equal(m.isOpen(entry()), true);
    const other = entry({ sessionKey: "agent:main:dashboard:other" });
    m.observe(other);
    assert.equal(m.isOpen(other), false);
  });
});

describe("E2: only a confirmed clear makes a card new", () => {
  test("a changed note or checklist keeps the person's choice", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.observe(entry({ card: card({ revision: 2, markdown: "Something else" }) }));
    m.observe(entry({ card: card({ revision: 3, steps: steps("completed", "completed", "in_progress") }) }));
    m.observe(entry({ card: card({ revision: 4, markdown: null }) }));
    assert.equal(m.isOpen(entry()), false);
  });

  test("after a read confirmed the clear, the next card gets the default again", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry()); // closed by hand
    m.observe(clearedByRead(T0 + 1000));
    m.observe(entry({ card: card({ revision: 1, updatedAt: T0 + 2000 }), confirmedAt: T0 + 2000 }));
    assert.equal(m.isOpen(entry()), true);
    assert.equal(m.isManual(entry()), false);
  });

  test("with S2 on, a new card after a confirmed clear starts collapsed even if the old one was open", () => {
    const m = memory(true);
    m.observe(entry());
    m.toggle(entry()); // opened by hand
    assert.equal(m.isOpen(entry()), true);
    m.observe(clearedByRead(T0 + 1000));
    m.observe(entry({ card: card({ updatedAt: T0 + 2000 }), confirmedAt: T0 + 2000 }));
    assert.equal(m.isOpen(entry()), false);
  });

  test("our own dismiss empties the slot before any read: not a confirmed clear", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    // applyCleared: card gone, confirmedAt still that of the card we saw
    m.observe(entry({ card: null, derived: null, confirmedAt: T0 }));
    m.observe(entry({ card: card({ revision: 5 }), confirmedAt: T0 + 500 }));
    assert.equal(m.isOpen(entry()), false);
  });

  test("our own dismiss followed by the confirming read: the next card is new", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.observe(entry({ card: null, derived: null, confirmedAt: T0 }));
    m.observe(clearedByRead(T0 + 300));
    m.observe(entry({ card: card({ revision: 1 }), confirmedAt: T0 + 900 }));
    assert.equal(m.isOpen(entry()), true);
  });

  for (const [why, extra] of [
    ["offline", { freshness: "offline" as const }],
    ["the read failed", { freshness: "stale" as const, error: { code: "UNAVAILABLE", message: "busy" } }],
    ["no access", { hidden: true }],
    ["update required", { updateRequired: true }],
    ["never confirmed", { confirmedAt: null }],
  ] as const) {
    test(`a clear that cannot be confirmed (${why}) keeps the previous choice`, () => {
      const m = memory();
      m.observe(entry());
      m.toggle(entry());
      m.observe(clearedByRead(T0 + 1000, extra));
      m.observe(entry({ card: card({ revision: 1, updatedAt: T0 + 2000 }), confirmedAt: T0 + 2000 }));
      assert.equal(m.isOpen(entry()), false);
    });
  }

  test("a lower revision from a read without a null in between keeps the choice (no guessing)", () => {
    const m = memory();
    m.observe(entry({ card: card({ revision: 7 }) }));
    m.toggle(entry());
    m.observe(entry({ card: card({ revision: 1, updatedAt: T0 + 5000 }), confirmedAt: T0 + 5000 }));
    assert.equal(m.isOpen(entry()), false);
  });
});

describe("E3: remembered per card for the current connection", () => {
  test("a manual close is never undone by new revisions, runs finishing or a reconnect", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.observe(entry({ card: card({ revision: 2 }) }));
    m.observe(entry({ card: card({ revision: 2 }), run: endedRun("done") }));
    m.observe(entry({ card: card({ revision: 3, steps: steps("completed", "completed", "completed") }) }));
    m.connection(GW, offline(T0 + 60_000), URL_A);
    m.observe(entry({ card: card({ revision: 3 }), freshness: "offline" }));
    m.connection(GW, { state: "connecting", attempt: 1, advice: "…" }, URL_A);
    m.connection(GW, connected(T0 + 90_000), URL_A);
    m.observe(entry({ card: card({ revision: 3 }), confirmedAt: T0 + 90_500 }));
    assert.equal(m.isOpen(entry()), false);
  });

  test("a manual open survives a reconnect too, with S2 on", () => {
    const m = memory(true);
    m.observe(entry());
    m.toggle(entry());
    m.connection(GW, offline(T0 + 1), URL_A);
    m.connection(GW, connected(T0 + 2), URL_A);
    m.observe(entry({ confirmedAt: T0 + 3 }));
    assert.equal(m.isOpen(entry()), true);
  });

  test("pairing approval on the same Gateway is a reconnect, not another connection", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.connection(
      GW,
      {
        state: "pairing_required",
        requestId: "r1",
        deviceId: "d",
        command: "openclaw devices approve r1",
        reason: "scope-upgrade",
        advice: "",
      },
      URL_A,
    );
    m.connection(GW, connected(T0 + 10), URL_A);
    assert.equal(m.isOpen(entry()), false);
  });

  test("another connection starts fresh: the Gateway's address changed", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.connection(GW, connected(T0 + 10), "wss://gateway.example:443");
    m.observe(entry({ confirmedAt: T0 + 11 }));
    assert.equal(m.isOpen(entry()), true);
  });

  test("another connection starts fresh: it came back after its credentials were refused", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.connection(GW, { state: "auth_failed", code: "AUTH_TOKEN_MISMATCH", setting: "token", advice: "" }, URL_A);
    m.connection(GW, connected(T0 + 10), URL_A);
    assert.equal(m.isOpen(entry()), true);
  });

  test("another connection starts fresh: the Gateway was removed and added again", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.forgetGateway(GW);
    m.connection(GW, connected(T0 + 10), URL_A);
    m.observe(entry({ confirmedAt: T0 + 11 }));
    assert.equal(m.isOpen(entry()), true);
  });

  test("the same session key on another Gateway is another card", () => {
    const m = memory();
    m.connection("work", connected(T0), "wss://work.example");
    const home = entry();
    const work = entry({ gatewayId: "work" });
    m.observe(home);
    m.observe(work);
    m.toggle(home);
    assert.equal(m.isOpen(home), false);
    assert.equal(m.isOpen(work), true);
  });

  test("bare keys read for different agents are different cards (G4)", () => {
    const m = memory();
    const a = entry({ sessionKey: "global", agentId: "a" });
    const b = entry({ sessionKey: "global", agentId: "b" });
    m.observe(a);
    m.observe(b);
    m.toggle(a);
    assert.equal(m.isOpen(a), false);
    assert.equal(m.isOpen(b), true);
  });

  test("cards seen before the first connection (an offline snapshot) keep their state when it connects", () => {
    const m = new ExpansionMemory();
    m.observe(entry({ freshness: "offline" }));
    m.toggle(entry());
    m.connection(GW, connected(T0 + 5), URL_A);
    assert.equal(m.isOpen(entry()), false);
  });
});

describe("E4: the title bar toggles; the initial state never animates", () => {
  test("toggle flips and reports the new state", () => {
    const m = memory();
    m.observe(entry());
    assert.equal(m.toggle(entry()), false);
    assert.equal(m.toggle(entry()), true);
  });

  test("only a change by the person may animate", () => {
    const m = memory();
    m.observe(entry());
    assert.equal(m.mayAnimate(entry()), false);
    m.observe(entry({ card: card({ revision: 2 }) }));
    assert.equal(m.mayAnimate(entry()), false);
    m.toggle(entry());
    assert.equal(m.mayAnimate(entry()), true);
  });

  test("a new card after a confirmed clear shows its initial state without animation", () => {
    const m = memory();
    m.observe(entry());
    m.toggle(entry());
    m.observe(clearedByRead(T0 + 1));
    m.observe(entry({ confirmedAt: T0 + 2 }));
    assert.equal(m.mayAnimate(entry()), false);
  });

  test("listeners hear toggles and resets", () => {
    const m = memory();
    let calls = 0;
    const off = m.subscribe(() => (calls += 1));
    m.observe(entry());
    m.toggle(entry());
    assert.equal(calls, 1);
    m.observe(clearedByRead(T0 + 1));
    m.observe(entry({ confirmedAt: T0 + 2 })); // closed → default open: a visible change
    assert.equal(calls, 2);
    off();
    m.toggle(entry());
    assert.equal(calls, 2);
  });

  test("setOpen (e.g. from a notification) counts as the person's choice", () => {
    const m = memory(true);
    m.observe(entry());
    m.setOpen(entry(), true);
    assert.equal(m.isOpen(entry()), true);
    assert.equal(m.isManual(entry()), true);
    m.observe(entry({ card: card({ revision: 9 }) }));
    assert.equal(m.isOpen(entry()), true);
  });
});

test("fixtures: the key is a dashboard session", () => {
  assert.ok(KEY.startsWith("agent:"));
});
