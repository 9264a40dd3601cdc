// What the desk's snapshot says of a Gateway whose cards are not read yet (no connection here:
// nothing listens on the discard port). Once read: test/gateway/roster.test.ts, on a real Gateway.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ProgressDesk } from "../../main/core/desk.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

test("a Gateway's cards are not all read before the desk has read them: a page shows 'loading', not 'no progress yet'", async () => {
  const desk = new ProgressDesk({
    gateways: [{ url: "ws://127.0.0.1:9" }],
    vault: await CredentialVault.open(memoryStorage()),
    clientVersion: "0.0.0-test",
  });
  assert.deepEqual(
    desk.snapshot().gateways.map((g) => g.cardsKnown),
    [false],
  );
});
