// G2: the advice a failed connection shows is what tells the person what to do, so its
// wording per case is behaviour. These pin the cases the mutation run found unpinned.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  checkHello,
  describeDisconnect,
  errorFacts,
  offlineAdvice,
  terminalState,
  type ErrorFacts,
} from "../../main/core/connection-state.ts";
import type { ConnectionState } from "../../common/model.ts";

const URL = "ws://gw.example:18789";
const CTX = { url: URL, deviceId: "0123456789abcdef".repeat(4) };

function facts(detailCode: string | null, extra: Partial<ErrorFacts> = {}): ErrorFacts {
  return {
    code: "INVALID_REQUEST",
    detailCode,
    details: detailCode ? { code: detailCode } : null,
    message: "boom",
    retryAfterMs: undefined,
    ...extra,
  };
}

function authFailed(state: ConnectionState | null): Extract<ConnectionState, { state: "auth_failed" }> {
  assert.equal(state?.state, "auth_failed");
  return state as Extract<ConnectionState, { state: "auth_failed" }>;
}

describe("errorFacts", () => {
  test("nothing thrown at all reads as an unknown error", () => {
    assert.equal(errorFacts(null).message, "unknown error");
    assert.equal(errorFacts(undefined).message, "unknown error");
  });
});

describe("pairing", () => {
  test("NOT_PAIRED without details: the device id's first 12 characters and the list command", () => {
    const s = terminalState({ ...facts(null), code: "NOT_PAIRED" }, CTX);
    assert.ok(s?.state === "pairing_required");
    assert.equal(s.requestId, null);
    assert.equal(s.reason, "not-paired");
    assert.equal(
      s.advice,
      "This device is not paired with the Gateway yet. On the Gateway host run `openclaw devices list` and approve device 0123456789ab…, then reconnect.",
    );
  });

  test("a reason from the Gateway is spelled out in words", () => {
    const s = terminalState(
      facts("PAIRING_REQUIRED", { details: { code: "PAIRING_REQUIRED", reason: "scope-upgrade", requestId: "r-1" } }),
      CTX,
    );
    assert.ok(s?.state === "pairing_required");
    assert.match(s.advice, /^The Gateway asks to approve a scope upgrade\. On the Gateway host run `openclaw devices approve r-1`/);
  });
});

describe("update required", () => {
  test("a protocol mismatch names the protocol; other version codes pass the Gateway's message on", () => {
    const proto = terminalState(facts("PROTOCOL_MISMATCH"), CTX);
    assert.ok(proto?.state === "update_required");
    assert.equal(proto.reason, "the Gateway does not speak protocol 4");
    const client = terminalState(facts("CLIENT_VERSION_MISMATCH", { message: "client too old" }), CTX);
    assert.ok(client?.state === "update_required");
    assert.equal(client.reason, "client too old");
  });

  test("checkHello: a wrong protocol names the Gateway's address; missing methods are listed", () => {
    const wrong = checkHello({ protocol: 3 }, URL);
    assert.ok(wrong?.state === "update_required");
    assert.match(wrong.advice, /ws:\/\/gw\.example:18789/);
    const bare = checkHello({ protocol: 4 }, URL);
    assert.ok(bare?.state === "update_required");
    assert.equal(bare.reason, "the Gateway lacks progressCard.get, sessions.subscribe");
    assert.match(bare.advice, /\(progressCard\.get, sessions\.subscribe missing\)/);
  });
});

describe("sign-in failures", () => {
  test("a scope mismatch is a token problem", () => {
    const s = authFailed(terminalState(facts("AUTH_SCOPE_MISMATCH"), CTX));
    assert.equal(s.setting, "token");
  });

  test("a missing token and a rejected one get different advice", () => {
    const missing = authFailed(terminalState(facts("AUTH_TOKEN_MISSING"), CTX));
    const rejected = authFailed(terminalState(facts("AUTH_TOKEN_MISMATCH"), CTX));
    assert.match(missing.advice, /needs a token/);
    assert.match(rejected.advice, /rejected the token \(AUTH_TOKEN_MISMATCH\)/);
  });

  test("a missing password and a rejected one get different advice", () => {
    const missing = authFailed(terminalState(facts("AUTH_PASSWORD_MISSING"), CTX));
    const rejected = authFailed(terminalState(facts("AUTH_PASSWORD_MISMATCH"), CTX));
    assert.equal(missing.setting, "password");
    assert.equal(
      missing.advice,
      `The Gateway at ${URL} needs a password. Set gateway.auth.password in Settings, or OPENCLAW_GATEWAY_PASSWORD.`,
    );
    assert.equal(
      rejected.advice,
      `The Gateway at ${URL} rejected the password. Set gateway.auth.password in Settings, or OPENCLAW_GATEWAY_PASSWORD.`,
    );
  });

  test("rate limited: says when to try again in whole seconds, rounded up, or 'later'", () => {
    const hinted = authFailed(terminalState(facts("AUTH_RATE_LIMITED", { retryAfterMs: 2_500 }), CTX));
    assert.match(hinted.advice, /then reconnect in 3 s\.$/);
    const bare = authFailed(terminalState(facts("AUTH_RATE_LIMITED"), CTX));
    assert.match(bare.advice, /then reconnect later\.$/);
  });

  test("a rejected device token and a refused identity each say how to pair again", () => {
    const token = authFailed(terminalState(facts("AUTH_DEVICE_TOKEN_MISMATCH"), CTX));
    assert.match(token.advice, /Enter the Gateway token in Settings to pair again/);
    const identity = authFailed(terminalState(facts("DEVICE_IDENTITY_STALE"), CTX));
    assert.equal(identity.setting, "identity");
    assert.match(identity.advice, /refused this device's identity \(DEVICE_IDENTITY_STALE\).*openclaw devices remove/);
  });
});

describe("offline", () => {
  test("an unreachable Gateway (not restarting) asks whether it runs", () => {
    assert.equal(
      offlineAdvice(URL, "connection refused", 4_000, false),
      `Cannot reach the Gateway at ${URL} (connection refused). Retrying in 4 s. Is \`openclaw gateway\` running there?`,
    );
  });

  test("host-not-found and time-outs are recognised from the message when the code is missing", () => {
    const err = (message: string): ErrorFacts => ({ code: null, detailCode: null, details: null, message, retryAfterMs: undefined });
    assert.equal(describeDisconnect(null, "", err("getaddrinfo ENOTFOUND gw.example")), "host not found");
    assert.equal(describeDisconnect(null, "", err("connect ETIMEDOUT 127.0.0.1:18789")), "timed out");
  });
});
