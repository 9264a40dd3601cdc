// Saved Gateway secrets are bound to the server they were saved for (issue 8, finding 2):
// a new origin drops token, password and setup code unless new ones come in the same call,
// and the device tokens the client keeps under the old URL go with the Gateway.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { gatewayOrigin, originChanged } from "../../common/gateway-origin.ts";
import { SECRET_NOT_SAVED } from "../../common/credential-storage.ts";
import { memoryBackend, SettingsStore } from "../../main/core/settings.ts";
import { CredentialVault, memoryStorage } from "../../main/core/vault.ts";

const HOME = "wss://home.example:8443";
const ALL = { token: "tok-HOME", password: "pw-HOME", setupCode: "setup-HOME" };

async function withHome(secrets: Partial<typeof ALL> = ALL) {
  const storage = memoryStorage();
  const vault = await CredentialVault.open(storage);
  const store = new SettingsStore(memoryBackend(), vault);
  const id = store.saveGateway({ label: "Home", color: "#0a84ff", url: HOME, ...secrets }).gateways[0]!.id;
  return { storage, vault, store, id };
}

const edit = (id: string, url: string, more: Record<string, string> = {}) => ({ id, label: "Home", color: "#0a84ff", url, ...more });

describe("gatewayOrigin", () => {
  test("normalises host case, default ports, paths and trailing slashes; ws and wss differ", () => {
    assert.equal(gatewayOrigin("WSS://Home.Example:443/"), "wss://home.example");
    assert.equal(gatewayOrigin("ws://home.example:80/some/path?q=1"), "ws://home.example");
    assert.equal(gatewayOrigin(" ws://127.0.0.1:18789 "), "ws://127.0.0.1:18789");
    assert.equal(gatewayOrigin("ws://[::1]:18789/"), "ws://[::1]:18789");
    assert.equal(gatewayOrigin("http://home.example"), null);
    assert.equal(gatewayOrigin("ws://"), null);
    assert.equal(originChanged("wss://home.example", "WSS://HOME.example:443/x/"), false);
    assert.equal(originChanged("ws://home.example", "wss://home.example"), true, "scheme is part of the origin");
    assert.equal(originChanged("wss://home.example", "wss://home.example:444"), true);
    assert.equal(originChanged("wss://home.example", "wss://evil.example"), true);
    assert.equal(originChanged("wss://home.example", "not a url"), true);
  });
});

describe("secrets follow only their own origin", () => {
  test("a URL on another origin, without new secrets, forgets token, password and setup code", async () => {
    const { store, vault, id } = await withHome();
    assert.deepEqual(store.gatewayConfigs()[0], {
      id,
      label: "Home",
      color: "#0a84ff",
      url: HOME,
      token: "tok-HOME",
      password: "pw-HOME",
      bootstrapToken: "setup-HOME",
    });
    const s = store.saveGateway(edit(id, "wss://evil.example"));
    assert.deepEqual(
      store.gatewayConfigs()[0],
      { id, label: "Home", color: "#0a84ff", url: "wss://evil.example" },
      "nothing goes to the new server",
    );
    const g = s.gateways[0]!;
    assert.deepEqual([g.hasToken, g.hasPassword, g.hasSetupCode], [false, false, false]);
    assert.deepEqual(
      vault.names().filter((n) => n.startsWith("gateway-")),
      [],
      "dropped from the vault, not just hidden",
    );
    // Moving back does not resurrect them.
    store.saveGateway(edit(id, HOME));
    assert.equal(store.gatewayConfigs()[0]!.token, undefined);
  });

  test("new secrets in the same call are kept, and only those", async () => {
    const { store, id } = await withHome();
    store.saveGateway(edit(id, "wss://work.example", { token: "tok-WORK" }));
    assert.deepEqual(store.gatewayConfigs()[0], { id, label: "Home", color: "#0a84ff", url: "wss://work.example", token: "tok-WORK" });
  });

  for (const [what, url] of [
    ["host case", "WSS://HOME.EXAMPLE:8443"],
    ["a trailing slash", "wss://home.example:8443/"],
    ["a path", "wss://home.example:8443/gateway"],
  ] as const) {
    test(`the same origin with ${what} keeps every secret`, async () => {
      const { store, id } = await withHome();
      store.saveGateway(edit(id, url));
      const c = store.gatewayConfigs()[0]!;
      assert.deepEqual([c.token, c.password, c.bootstrapToken], ["tok-HOME", "pw-HOME", "setup-HOME"]);
    });
  }

  test("a default port written out is the same origin", async () => {
    const { store, id } = await withHome();
    store.saveGateway(edit(id, "wss://home.example", { token: "t443" }));
    store.saveGateway(edit(id, "wss://home.example:443/"));
    assert.equal(store.gatewayConfigs()[0]!.token, "t443");
    store.saveGateway(edit(id, "ws://home.example:443"));
    assert.equal(store.gatewayConfigs()[0]!.token, undefined, "ws on port 443 is another origin than wss");
  });

  test("the binding holds even when the drop cannot be written (unavailable keychain)", async () => {
    // Launch 1 saved a token; launch 2 cannot read the vault; launch 3 can again.
    const storage = memoryStorage();
    const vault1 = await CredentialVault.open(storage);
    const store1 = new SettingsStore(memoryBackend(), vault1);
    const saved = store1.saveGateway({ label: "Home", color: "#0a84ff", url: HOME, token: "tok-HOME" });
    await store1.flush();
    const doc = memoryBackend();
    await doc.write({ gateways: saved.gateways.map(({ id, label, color, url }) => ({ id, label, color, url })) });

    let readable = false;
    const flaky = { ...storage, read: async () => (readable ? storage.read() : Promise.reject(new Error("keychain locked"))) };
    const store2 = new SettingsStore(doc, await CredentialVault.open(flaky));
    assert.equal(store2.view().credentialStorage, "unavailable");
    store2.saveGateway(edit(saved.gateways[0]!.id, "wss://evil.example"));
    await store2.flush();

    readable = true;
    const store3 = new SettingsStore(doc, await CredentialVault.open(flaky));
    assert.equal(store3.view().gateways[0]!.url, "wss://evil.example");
    assert.equal(store3.gatewayConfigs()[0]!.token, undefined, "the old token stays bound to the old server");
    assert.equal(store3.view().gateways[0]!.hasToken, false);
  });

  test("secrets saved before binding are bound to the Gateway's address at load", async () => {
    const storage = memoryStorage(JSON.stringify({ "gateway-token|gw-old": "tok-LEGACY" }));
    const doc = memoryBackend({ gateways: [{ id: "gw-old", label: "Old", color: "#0a84ff", url: HOME }] });
    const vault = await CredentialVault.open(storage);
    const store = new SettingsStore(doc, vault);
    assert.equal(store.gatewayConfigs()[0]!.token, "tok-LEGACY");
    assert.equal(vault.get("gateway-token|gw-old"), null, "the unbound name is gone");
    store.saveGateway(edit("gw-old", "wss://evil.example"));
    assert.equal(store.gatewayConfigs()[0]!.token, undefined);
  });
});

describe("device tokens go with their Gateway", () => {
  const deviceToken = (url: string) => `device-token|${url}|dev-1|operator`;

  test("removeGateway drops the device tokens kept under its URL", async () => {
    const { store, vault, id } = await withHome();
    vault.set(deviceToken(HOME), JSON.stringify({ token: "dt-HOME", scopes: [] }));
    vault.set(deviceToken("wss://other.example"), JSON.stringify({ token: "dt-OTHER", scopes: [] }));
    store.removeGateway(id);
    assert.equal(vault.get(deviceToken(HOME)), null);
    assert.notEqual(vault.get(deviceToken("wss://other.example")), null, "another server's device token stays");
  });

  test("a new URL drops the old URL's device tokens", async () => {
    const { store, vault, id } = await withHome();
    vault.set(deviceToken(HOME), JSON.stringify({ token: "dt-HOME", scopes: [] }));
    store.saveGateway(edit(id, "wss://evil.example"));
    assert.equal(vault.get(deviceToken(HOME)), null);
  });

  test("kept while another Gateway still uses that URL", async () => {
    const { store, vault, id } = await withHome();
    store.saveGateway({ label: "Home again", color: "#30d158", url: HOME });
    vault.set(deviceToken(HOME), JSON.stringify({ token: "dt-HOME", scopes: [] }));
    store.removeGateway(id);
    assert.notEqual(vault.get(deviceToken(HOME)), null);
  });
});

describe("saving secrets while the keychain is unavailable", () => {
  async function locked() {
    const blob = "\u0000damaged";
    const storage = memoryStorage(blob);
    const vault = await CredentialVault.open(storage);
    const backend = memoryBackend();
    const store = new SettingsStore(backend, vault);
    return { storage, vault, store, backend, blob };
  }

  test("fails with a clear message and changes nothing, in memory or on disk", async () => {
    const { storage, store, backend, blob } = await locked();
    assert.equal(store.view().credentialStorage, "unavailable");
    assert.throws(() => store.saveGateway({ label: "Home", color: "#0a84ff", url: HOME, token: "tok-NEW" }), { message: SECRET_NOT_SAVED });
    await store.flush();
    assert.equal(storage.blob, blob, "the saved credentials are untouched");
    assert.deepEqual(store.view().gateways, []);
    assert.equal(backend.doc, null, "no settings written either");
    // A Gateway without secrets can still be saved.
    store.saveGateway({ label: "Home", color: "#0a84ff", url: HOME });
    await store.flush();
    assert.equal(storage.blob, blob);
  });

  test("the explicit choice in Settings lets new secrets go to a separate unencrypted file", async () => {
    const blob = "\u0000damaged";
    const fallback = memoryStorage();
    const storage = { ...memoryStorage(blob), unprotectedFallback: () => fallback };
    const vault = await CredentialVault.open(storage);
    const store = new SettingsStore(memoryBackend(), vault);
    assert.throws(() => store.update({ credentialStorage: "os-keychain" as "file" }), /only be set to "file"/);
    const s = store.update({ credentialStorage: "file" });
    assert.equal(s.credentialStorage, "file");
    store.saveGateway({ label: "Home", color: "#0a84ff", url: HOME, token: "tok-NEW" });
    await store.flush();
    assert.equal(storage.blob, blob, "the unreadable file is still as it was");
    assert.ok(fallback.blob?.includes("tok-NEW"));
  });
});
