// Issue 8, finding 2, through the page contract: a page (or anything holding the host
// secret) that points an existing Gateway at a server of its choice must not get that
// Gateway's saved secrets sent there. Real core, real settings store and vault, the
// official client; the home Gateway and the TRAP are FAKES on loopback (trap-gateway.ts).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { memoryStorage } from "../../main/core/vault.ts";
import { until } from "../harness/until.ts";
import { wireCore } from "../harness/wired-core.ts";
import { helloOk, startFakeGateway } from "./fake-gateway.ts";
import { startTrapGateway } from "./trap-gateway.ts";

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const DEVICE_TOKEN = "devtok-HOME-5ecret";
// The client sends a setup code instead of a token when both are saved: one case each, so
// every kind of secret is one the trap would receive without the defence.
const CASES: [string, Record<string, string>, string, string][] = [
  ["token and password", { token: "tok-HOME-5ecret", password: "pw-HOME-5ecret" }, "token", "tok-HOME-5ecret"],
  ["setup code", { setupCode: "setup-HOME-5ecret" }, "bootstrapToken", "setup-HOME-5ecret"],
];

for (const [what, SECRETS, field, sent] of CASES)
  test(`saveGateway with a trap's URL on a Gateway with a saved ${what}: the trap never sees a secret`, async () => {
    const home = await startFakeGateway({
      onConnect: () => ({
        ok: true,
        payload: helloOk({ auth: { role: "operator", scopes: ["operator.read", "operator.write"], deviceToken: DEVICE_TOKEN } }),
      }),
    });
    const trap = await startTrapGateway();
    const storage = memoryStorage();
    const { vault, settings, desk, service } = await wireCore({ url: home.url }, { storage });
    cleanups.push(
      () => home.close(),
      () => trap.close(),
      () => desk.stop(),
    );
    const call = (method: string, ...args: unknown[]) => service.call(method, args, "settings");

    await call("saveGateway", { label: "Home", color: "#0a84ff", url: home.url, ...SECRETS });
    desk.start();
    const state = () => desk.snapshot().gateways[0]?.connection.state;
    await until("home connected", () => state() === "connected");
    // The home Gateway really got the token, and handed this device a device token.
    const homeConnect = home.requests.find((r) => r.method === "connect")!;
    assert.equal((homeConnect.params.auth as Record<string, unknown>)[field], sent);
    await until("device token stored for home", () => vault.names().some((n) => n.startsWith(`device-token|${home.url}|`)));

    // The attack: same Gateway id, the trap's URL, no secrets.
    const id = settings.view().gateways[0]!.id;
    const after = (await call("saveGateway", { id, label: "Home", color: "#0a84ff", url: trap.url })) as {
      gateways: { hasToken: boolean; hasPassword: boolean; hasSetupCode: boolean }[];
    };
    await until("the trap got a connect", () => trap.connects.length > 0 && state() === "connected");

    const everything = trap.frames.join("\n");
    for (const secret of [...Object.values(SECRETS), DEVICE_TOKEN])
      assert.equal(everything.includes(secret), false, `${secret} reached the trap`);
    for (const c of trap.connects) {
      for (const field of ["token", "password", "bootstrapToken", "deviceToken"])
        assert.equal(c.auth?.[field], undefined, `auth.${field} was sent`);
    }
    assert.deepEqual(
      after.gateways.map((g) => [g.hasToken, g.hasPassword, g.hasSetupCode]),
      [[false, false, false]],
      "the page sees none saved",
    );
    assert.deepEqual(
      vault.names().filter((n) => n.startsWith("gateway-") || n.startsWith(`device-token|${home.url}|`)),
      [],
      "dropped, not just withheld",
    );
    await settings.flush();
    for (const secret of [...Object.values(SECRETS), DEVICE_TOKEN])
      assert.equal(storage.blob!.includes(secret), false, `${secret} still on disk`);

    // The trap does see a token when the person gives this server one: the check above can fail.
    const before = trap.connects.length;
    await call("saveGateway", { id, label: "Home", color: "#0a84ff", url: trap.url, token: "tok-FOR-TRAP" });
    await until("reconnected with the new token", () => trap.connects.length > before && state() === "connected");
    assert.equal(trap.connects.at(-1)!.auth?.token, "tok-FOR-TRAP");
  });
