// Issue 12: the Control UI link of a session, and the shared duration wording.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { humanDuration, humanRange } from "../../common/duration.ts";
import { sessionLink } from "../../common/session-link.ts";

const KEY = "agent:dev:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";

describe("session link", () => {
  test("builds /chat/<agentId>/<32 hex> on the Gateway's own host and port", () => {
    assert.equal(sessionLink("ws://127.0.0.1:18789", KEY), "http://127.0.0.1:18789/chat/dev/2cb6be5e93ad49208ac586282b7168c2");
    assert.equal(sessionLink("wss://gw.example:443/", KEY), "https://gw.example/chat/dev/2cb6be5e93ad49208ac586282b7168c2");
    assert.equal(sessionLink("wss://[::1]:9000", KEY), "https://[::1]:9000/chat/dev/2cb6be5e93ad49208ac586282b7168c2");
  });

  test("agent id main when the key names none; hex in lower case", () => {
    assert.equal(
      sessionLink("ws://h:1", "dashboard:2CB6BE5E-93AD-4920-8AC5-86282B7168C2"),
      "http://h:1/chat/main/2cb6be5e93ad49208ac586282b7168c2",
    );
  });

  test("never carries a token, password, query or fragment of the Gateway URL", () => {
    const link = sessionLink("ws://user:hunter2@127.0.0.1:18789/?token=abc#token=def", KEY)!;
    assert.equal(link, "http://127.0.0.1:18789/chat/dev/2cb6be5e93ad49208ac586282b7168c2");
    assert.doesNotMatch(link, /hunter2|abc|def|token/);
  });

  test("null where no route can be built", () => {
    for (const [url, key] of [
      ["ws://h:1", "agent:main:main"],
      ["ws://h:1", "global"],
      ["ws://h:1", "agent:dev:x2cb6be5e-93ad-4920-8ac5-86282b7168c2"],
      ["ws://h:1", "agent:d/../x:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2"],
      ["http://h:1", KEY],
      ["not a url", KEY],
    ])
      assert.equal(sessionLink(url!, key!), null, `${url} ${key}`);
  });
});

describe("human durations", () => {
  test("seconds under a minute, then minutes, then hours and minutes", () => {
    assert.equal(humanDuration(45_000), "45 s");
    assert.equal(humanDuration(12 * 60_000), "12 min");
    assert.equal(humanDuration(64 * 60_000), "1 h 4 min");
    assert.equal(humanDuration(120 * 60_000), "2 h");
  });

  test("ranges are rounded outwards", () => {
    assert.equal(humanRange(10.5 * 60_000, 19.2 * 60_000), "about 10–20 min");
    assert.equal(humanRange(0, 4 * 60_000), "up to 4 min");
    assert.equal(humanRange(40 * 60_000, 70 * 60_000), "about 40 min–1 h 10 min");
    assert.equal(humanRange(1000, 20_000), "under a minute");
  });
});
