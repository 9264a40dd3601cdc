// The openSession verb (main/core/desk-service.ts): it builds the Control UI link of a card's
// session from that card's Gateway URL and hands it to the external opener; false (nothing
// opened) where no route can be built. A real core (never started: no connection is made)
// and a recording opener.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CardRef } from "../../common/contract.ts";
import { isDeskError } from "../../common/errors.ts";
import { wireCore } from "../harness/wired-core.ts";

const KEY = "agent:dev:dashboard:2cb6be5e-93ad-4920-8ac5-86282b7168c2";
const LINK = "http://127.0.0.1:9/chat/dev/2cb6be5e93ad49208ac586282b7168c2";

async function setup(url: string) {
  const opened: string[] = [];
  const { desk, service } = await wireCore(
    { url: "ws://127.0.0.1:9", token: "t" },
    {
      service: {
        override: { id: "home", url, token: "secret-token", password: "secret-password" },
        openExternal: (link: string) => {
          opened.push(link);
          return true;
        },
      },
    },
  );
  desk.configure(service.gateways());
  return { service, opened };
}

const card = (over: Partial<CardRef> = {}): CardRef => ({ gatewayId: "home", sessionKey: KEY, agentId: "dev", ...over });

describe("openSession (desk service)", () => {
  test("opens the session's Control UI chat page on the card's Gateway", async () => {
    const { service, opened } = await setup("ws://127.0.0.1:9");
    assert.equal(await service.call("openSession", [card()], "popover"), true);
    assert.deepEqual(opened, [LINK]);
    // The tray and notices reach the same code without a page.
    assert.equal(await service.openSession(card()), true);
    assert.deepEqual(opened, [LINK, LINK]);
  });

  test("no secret of the Gateway URL or its settings reaches the link", async () => {
    const { service, opened } = await setup("ws://user:hunter2@127.0.0.1:9/?token=abc#password=def");
    assert.equal(await service.call("openSession", [card()], "dashboard"), true);
    assert.deepEqual(opened, [LINK]);
    for (const secret of ["hunter2", "user", "abc", "def", "secret-token", "secret-password", "token", "password", "?", "#", "@"]) {
      assert.ok(!opened[0]!.includes(secret), `${secret} in ${opened[0]}`);
    }
  });

  test("an unknown Gateway or a key without a route answers false and opens nothing", async () => {
    const { service, opened } = await setup("ws://127.0.0.1:9");
    assert.equal(await service.call("openSession", [card({ gatewayId: "elsewhere" })], "popover"), false);
    assert.equal(await service.call("openSession", [card({ sessionKey: "agent:main:main" })], "popover"), false);
    assert.equal(await service.openSession(card({ gatewayId: "elsewhere" })), false);
    assert.deepEqual(opened, []);
  });

  test("a malformed card is refused before anything is opened", async () => {
    const { service, opened } = await setup("ws://127.0.0.1:9");
    for (const args of [[], [{ gatewayId: "home" }], [{ ...card(), sessionKey: 7 }], ["home"]]) {
      const refused = (err: unknown): boolean => isDeskError(err, "BAD_REQUEST") && /card/.test(err.message);
      await assert.rejects(service.call("openSession", args, "popover"), refused);
    }
    assert.deepEqual(opened, []);
  });
});
