// The one error rule: expected failures come back as values with a stable code; only bugs throw.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readCard } from "../../common/card.ts";
import { DeskError, isDeskError, unwrap } from "../../common/errors.ts";
import { checkSecretFlags, resolveSecrets } from "../../main/cli/secret-args.ts";
import { ProgressDesk } from "../../main/core/desk.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

const noStdin = { readStdin: async (): Promise<Buffer> => Buffer.from("") };

describe("DeskError and Result", () => {
  test("a DeskError carries its code and message, and is told apart by code", () => {
    const e = new DeskError("BAD_REQUEST", "card must be {gatewayId, sessionKey, agentId}");
    assert.ok(e instanceof Error);
    assert.equal(e.code, "BAD_REQUEST");
    assert.equal(e.message, "card must be {gatewayId, sessionKey, agentId}");
    assert.ok(isDeskError(e, "BAD_REQUEST"));
    assert.ok(!isDeskError(e, "FORBIDDEN"));
    assert.ok(!isDeskError(Object.assign(new Error("x"), { code: "BAD_REQUEST" })), "only the one type counts");
  });

  test("a malformed card from the wire is a MALFORMED_CARD value, not a throw", () => {
    const bad = readCard({ sessionKey: "agent:main:x", revision: 0, updatedAt: 1 });
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.code, "MALFORMED_CARD");
      assert.match(bad.error.message, /revision/);
    }
    assert.deepEqual(readCard(null), { ok: true, value: null });
    assert.throws(
      () => unwrap(bad),
      (e: unknown) => isDeskError(e, "MALFORMED_CARD"),
    );
  });

  test("wrong command-line secrets are USAGE values with the message the CLI prints", async () => {
    const both = checkSecretFlags({ token: "a", "token-file": "f" });
    assert.equal(both.ok, false);
    if (!both.ok) assert.equal(both.error.message, "give --token or --token-file, not both");
    const empty = await resolveSecrets({ "token-file": "-" }, noStdin);
    assert.equal(empty.ok, false);
    if (!empty.ok) {
      assert.equal(empty.error.code, "USAGE");
      assert.equal(empty.error.message, "--token-file: standard input is empty");
    }
    const missing = await resolveSecrets({ "password-file": "/nonexistent/progress-desk/secret" }, noStdin);
    assert.ok(!missing.ok && /cannot read .*: no such file$/.test(missing.error.message));
    assert.deepEqual(await resolveSecrets({ token: "t0k", "setup-code-file": "-" }, { readStdin: async () => Buffer.from("code\n") }), {
      ok: true,
      value: { token: "t0k", setupCode: "code" },
    });
  });
});

describe("one answer per action", () => {
  test("dismissing a card of a Gateway that is gone is an error outcome, like any other failed write", async () => {
    const desk = new ProgressDesk({ gateways: [], vault: await CredentialVault.open(memoryStorage()), clientVersion: "0.0.0-test" });
    assert.deepEqual(await desk.dismiss("removed", "agent:main:x", { revision: 1, confirmed: true }), {
      outcome: "error",
      code: "UNKNOWN_GATEWAY",
      message: 'No Gateway with id "removed"',
    });
    // Refresh keeps its contract (a rejected call with FAILED over the page contract), told by the one type.
    await assert.rejects(desk.refresh("removed", "agent:main:x"), (e: unknown) => isDeskError(e, "UNKNOWN_GATEWAY"));
  });
});
