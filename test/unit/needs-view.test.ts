// How a needs-you entry reads (common/needs-view.ts) and where its Control UI link goes
// (common/session-link.ts needPageLink, used by the openNeed verb in main and in the browser host): pure, with entries written by hand.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GatewaySnapshot } from "../../common/model.ts";
import { expiresText, hasHiddenCharacters, needSummary, needYouText, visibleText } from "../../common/needs-view.ts";
import { needPageLink } from "../../common/session-link.ts";
import { connected, need, T0 } from "../renderer/fixtures.ts";

describe("visibleText: what a command hides is shown", () => {
  test("terminal controls, bidi overrides and zero-width marks become signs; tabs, newlines and other text stay", () => {
    const raw = "echo ok\u001b[2K\r\u0007 \u202egnp.exe\u202c\u200b\tnext\nline é 🙂";
    assert.equal(visibleText(raw), "echo ok␛[2K␍␇ ⟨U+202E⟩gnp.exe⟨U+202C⟩⟨U+200B⟩\tnext\nline é 🙂");
    assert.equal(hasHiddenCharacters(raw), true);
    assert.equal(hasHiddenCharacters("uname -s\n\tls"), false);
    assert.equal(visibleText('<b>x</b> & "y"'), '<b>x</b> & "y"', "markup is left as text for the page to escape");
  });
});

describe("summaries and expiry", () => {
  test("a command on one line, a question's text, a waiting run's kind", () => {
    assert.equal(needSummary(need({ command: "ls\n  -la" }), 40), "ls -la");
    const q = need({
      kind: "question",
      command: null,
      questions: [{ questionId: "q", header: "H", question: "Ship it?", options: [], multiSelect: false, isOther: false }],
    });
    assert.equal(needSummary(q, 40), "Ship it?");
    assert.equal(needSummary(need({ kind: "waiting", command: null }), 40), "Waiting for approval");
  });

  test("expires in minutes, hours, under a minute, expired; none without an expiry", () => {
    assert.equal(expiresText(T0 + 24 * 60_000 + 30_000, T0), "expires in 24 min");
    assert.equal(expiresText(T0 + 90 * 60_000, T0), "expires in 1 h 30 min");
    assert.equal(expiresText(T0 + 10_000, T0), "expires in under a minute");
    assert.equal(expiresText(T0, T0), "expired");
    assert.equal(expiresText(null, T0), null);
    assert.equal(needYouText(1), "1 needs you");
    assert.equal(needYouText(3), "3 need you");
  });
});

describe("needPageLink: a pending entry's page on its own Gateway", () => {
  const gw = (url: string, entries = [need({ id: "appr-1" })]): GatewaySnapshot => ({
    id: "home",
    label: "Home",
    color: null,
    url,
    connection: connected(T0),
    sessions: [],
    cards: [],
    boards: { widgets: [], updateRequired: false } as never,
    activity: [],
    needs: { answering: "off", advice: null, entries },
    cardsKnown: true,
  });
  const needLink = (g: GatewaySnapshot, ref: { gatewayId: string; id: string }) => needPageLink([g], ref);

  test("the Control UI's /approve/<id> on the Gateway's host, never its credentials", () => {
    assert.equal(
      needLink(gw("ws://user:secret@127.0.0.1:18789/?token=abc"), { gatewayId: "home", id: "appr-1" }),
      "http://127.0.0.1:18789/approve/appr-1",
    );
    assert.equal(needLink(gw("wss://gw.example"), { gatewayId: "home", id: "appr-1" }), "https://gw.example/approve/appr-1");
  });

  test("null for an entry the core does not hold, another Gateway, or an entry without a page", () => {
    assert.equal(needLink(gw("ws://127.0.0.1:1"), { gatewayId: "home", id: "appr-2" }), null);
    assert.equal(needLink(gw("ws://127.0.0.1:1"), { gatewayId: "work", id: "appr-1" }), null);
    assert.equal(needLink(gw("ws://127.0.0.1:1", [need({ id: "appr-1", linkPath: null })]), { gatewayId: "home", id: "appr-1" }), null);
  });
});
