// G1 / docs/gateway.md §8.3: zero-configuration discovery. Everything is injected
// (env, home, readFile): no test touches the real home directory.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  DEFAULT_GATEWAY_PORT,
  discoverGateway,
  discoveredGateway,
  gatewayIdForUrl,
  openclawConfigPath,
} from "../../main/core/discovery.ts";
import { localGateway } from "../../main/core/desk-service.ts";

const HOME = join("/", "home", "alice");
const DEFAULT_PATH = join(HOME, ".openclaw", "openclaw.json");

/** A readFile over an in-memory set of files; records which paths were read. */
function files(map: Record<string, string>): { readFile: (p: string) => string; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readFile(p: string): string {
      reads.push(p);
      const text = map[p];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${p}'`), { code: "ENOENT" });
      return text;
    },
  };
}

const CONFIG = `{
  // OpenClaw writes comments and trailing commas
  gateway: {
    port: 19001,
    auth: { mode: "token", token: "file-token", },
  },
}`;

describe("openclawConfigPath", () => {
  test("default is ~/.openclaw/openclaw.json", () => {
    assert.equal(openclawConfigPath({}, HOME), DEFAULT_PATH);
  });
  test("OPENCLAW_HOME replaces ~", () => {
    assert.equal(openclawConfigPath({ OPENCLAW_HOME: join("/", "srv", "oc") }, HOME), join("/", "srv", "oc", ".openclaw", "openclaw.json"));
  });
  test("OPENCLAW_STATE_DIR holds openclaw.json", () => {
    assert.equal(
      openclawConfigPath({ OPENCLAW_STATE_DIR: join("/", "state"), OPENCLAW_HOME: join("/", "srv") }, HOME),
      join("/", "state", "openclaw.json"),
    );
  });
  test("OPENCLAW_CONFIG_PATH wins over everything", () => {
    const env = {
      OPENCLAW_CONFIG_PATH: join("/", "etc", "oc.json5"),
      OPENCLAW_STATE_DIR: join("/", "state"),
      OPENCLAW_HOME: join("/", "srv"),
    };
    assert.equal(openclawConfigPath(env, HOME), join("/", "etc", "oc.json5"));
  });
  test("a leading ~ in OPENCLAW_CONFIG_PATH / OPENCLAW_STATE_DIR is the home directory (as OpenClaw's resolveUserPath does)", () => {
    assert.equal(openclawConfigPath({ OPENCLAW_STATE_DIR: "~/oc-state" }, HOME), join(HOME, "oc-state", "openclaw.json"));
    assert.equal(openclawConfigPath({ OPENCLAW_CONFIG_PATH: "~/oc.json" }, HOME), join(HOME, "oc.json"));
  });
  test("discoverGateway reads the file at the resolved path", () => {
    const statePath = join("/", "state", "openclaw.json");
    const fs = files({ [statePath]: CONFIG });
    const d = discoverGateway({ env: { OPENCLAW_STATE_DIR: join("/", "state") }, home: HOME, readFile: fs.readFile });
    assert.deepEqual(fs.reads, [statePath]);
    assert.equal(d.url, "ws://127.0.0.1:19001");
  });
});

describe("discoverGateway precedence", () => {
  test("missing file → default ws://127.0.0.1:18789, no auth, no notes, no throw", () => {
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({}).readFile });
    assert.equal(DEFAULT_GATEWAY_PORT, 18789);
    assert.equal(d.url, "ws://127.0.0.1:18789");
    assert.equal(d.sources.url, "default");
    assert.equal(d.sources.auth, "none");
    assert.equal(d.token, undefined);
    assert.equal(d.password, undefined);
    assert.deepEqual(d.notes, []);
  });

  test("JSON5 file with comments and trailing commas: port and token", () => {
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile });
    assert.equal(d.url, "ws://127.0.0.1:19001");
    assert.equal(d.token, "file-token");
    assert.equal(d.sources.url, DEFAULT_PATH);
    assert.equal(d.sources.auth, DEFAULT_PATH);
  });

  test("a file without gateway.port uses the default port but still its token", () => {
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: `{gateway:{auth:{token:'t1'}}}` }).readFile });
    assert.equal(d.url, "ws://127.0.0.1:18789");
    assert.equal(d.token, "t1");
  });

  test("an out-of-range or non-integer gateway.port is ignored", () => {
    for (const port of ["0", "70000", "18790.5", '"19000"']) {
      const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: `{gateway:{port:${port}}}` }).readFile });
      assert.equal(d.url, "ws://127.0.0.1:18789", port);
    }
  });

  test("password mode reads gateway.auth.password", () => {
    const cfg = `{gateway:{auth:{mode:"password", password:"pw", token:"tok"}}}`;
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: cfg }).readFile });
    assert.equal(d.password, "pw");
    assert.equal(d.token, undefined);
  });

  test("env wins over the file: OPENCLAW_GATEWAY_URL and OPENCLAW_GATEWAY_TOKEN", () => {
    const env = { OPENCLAW_GATEWAY_URL: "wss://gw.example.com", OPENCLAW_GATEWAY_TOKEN: "env-token" };
    const d = discoverGateway({ env, home: HOME, readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile });
    assert.equal(d.url, "wss://gw.example.com");
    assert.equal(d.token, "env-token");
    assert.equal(d.sources.url, "OPENCLAW_GATEWAY_URL");
    assert.equal(d.sources.auth, "OPENCLAW_GATEWAY_TOKEN");
  });

  test("OPENCLAW_GATEWAY_PORT wins over gateway.port, and the file's token still applies (same local Gateway)", () => {
    const d = discoverGateway({
      env: { OPENCLAW_GATEWAY_PORT: "18799" },
      home: HOME,
      readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile,
    });
    assert.equal(d.url, "ws://127.0.0.1:18799");
    assert.equal(d.sources.url, "OPENCLAW_GATEWAY_PORT");
    assert.equal(d.token, "file-token");
  });

  test("a non-numeric OPENCLAW_GATEWAY_PORT is ignored", () => {
    const d = discoverGateway({ env: { OPENCLAW_GATEWAY_PORT: "abc" }, home: HOME, readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile });
    assert.equal(d.url, "ws://127.0.0.1:19001");
  });

  test("OPENCLAW_GATEWAY_URL wins over OPENCLAW_GATEWAY_PORT", () => {
    const d = discoverGateway({
      env: { OPENCLAW_GATEWAY_URL: "ws://10.0.0.2:1", OPENCLAW_GATEWAY_PORT: "18799" },
      home: HOME,
      readFile: files({}).readFile,
    });
    assert.equal(d.url, "ws://10.0.0.2:1");
  });

  test("OPENCLAW_GATEWAY_PASSWORD is used", () => {
    const d = discoverGateway({
      env: { OPENCLAW_GATEWAY_PASSWORD: "env-pw" },
      home: HOME,
      readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile,
    });
    assert.equal(d.password, "env-pw");
    assert.equal(d.token, undefined, "the file's token is not mixed in");
    assert.equal(d.sources.auth, "OPENCLAW_GATEWAY_PASSWORD");
  });

  test("explicit settings win over env and file", () => {
    const env = { OPENCLAW_GATEWAY_URL: "ws://env:1", OPENCLAW_GATEWAY_TOKEN: "env-token", OPENCLAW_GATEWAY_PORT: "2" };
    const d = discoverGateway({
      explicit: { url: "wss://settings.example:443", token: "settings-token" },
      env,
      home: HOME,
      readFile: files({ [DEFAULT_PATH]: CONFIG }).readFile,
    });
    assert.equal(d.url, "wss://settings.example:443");
    assert.equal(d.token, "settings-token");
    assert.deepEqual(d.sources, { url: "settings", auth: "settings" });
  });

  test("explicit password / setup code win over env credentials", () => {
    const d = discoverGateway({
      explicit: { bootstrapToken: "SETUP-1" },
      env: { OPENCLAW_GATEWAY_TOKEN: "env-token" },
      home: HOME,
      readFile: files({}).readFile,
    });
    assert.equal(d.bootstrapToken, "SETUP-1");
    assert.equal(d.token, undefined);
    assert.equal(d.sources.auth, "settings");
    const p = discoverGateway({
      explicit: { password: "pw" },
      env: { OPENCLAW_GATEWAY_TOKEN: "env-token" },
      home: HOME,
      readFile: files({}).readFile,
    });
    assert.equal(p.password, "pw");
    assert.equal(p.token, undefined);
  });

  test("explicit URL alone still uses env credentials", () => {
    const d = discoverGateway({
      explicit: { url: "ws://x:1" },
      env: { OPENCLAW_GATEWAY_TOKEN: "env-token" },
      home: HOME,
      readFile: files({}).readFile,
    });
    assert.equal(d.token, "env-token");
  });

  test("the file's token is NOT sent to a Gateway named elsewhere (explicit or env URL)", () => {
    const fs = files({ [DEFAULT_PATH]: CONFIG });
    const viaSettings = discoverGateway({ explicit: { url: "wss://work.example.com" }, env: {}, home: HOME, readFile: fs.readFile });
    assert.equal(viaSettings.token, undefined);
    assert.equal(viaSettings.password, undefined);
    assert.equal(viaSettings.sources.auth, "none");
    const viaEnv = discoverGateway({ env: { OPENCLAW_GATEWAY_URL: "wss://work.example.com" }, home: HOME, readFile: fs.readFile });
    assert.equal(viaEnv.token, undefined);
    assert.equal(viaEnv.sources.auth, "none");
  });
});

describe("discoverGateway token references and notes", () => {
  test("a ${ENV} token reference is resolved from the environment", () => {
    const cfg = `{gateway:{auth:{token:"\${MY_GW_TOKEN}"}}}`;
    const d = discoverGateway({ env: { MY_GW_TOKEN: "from-env-ref" }, home: HOME, readFile: files({ [DEFAULT_PATH]: cfg }).readFile });
    assert.equal(d.token, "from-env-ref");
    assert.deepEqual(d.notes, []);
  });

  test("an unset ${ENV} reference gives a note, not a literal token", () => {
    const cfg = `{gateway:{auth:{token:"\${MY_GW_TOKEN}"}}}`;
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: cfg }).readFile });
    assert.equal(d.token, undefined);
    assert.equal(d.notes.length, 1);
    assert.match(d.notes[0]!, /gateway\.auth\.token.*MY_GW_TOKEN.*not set/);
  });

  test("a SecretRef object gives a note", () => {
    const cfg = `{gateway:{auth:{token:{source:"keychain", id:"openclaw-gateway"}}}}`;
    const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: cfg }).readFile });
    assert.equal(d.token, undefined);
    assert.equal(d.notes.length, 1);
    assert.match(d.notes[0]!, /gateway\.auth\.token .*secret store/);
  });

  test("invalid JSON5 gives a note and the default URL, never a throw", () => {
    const fs = files({ [DEFAULT_PATH]: "{ gateway: { port: 19001, " });
    const d = discoverGateway({ env: {}, home: HOME, readFile: fs.readFile });
    assert.equal(d.url, "ws://127.0.0.1:18789");
    assert.equal(d.token, undefined);
    assert.equal(d.notes.length, 1);
    assert.match(d.notes[0]!, /not valid JSON5/);
    assert.ok(d.notes[0]!.includes(DEFAULT_PATH));
  });

  test("odd but valid files do not throw", () => {
    for (const text of [
      "null",
      "[]",
      "42",
      `"text"`,
      "{gateway: null}",
      "{gateway: 'x'}",
      "{gateway:{auth:null}}",
      "{gateway:{auth:{token:''}}}",
    ]) {
      const d = discoverGateway({ env: {}, home: HOME, readFile: files({ [DEFAULT_PATH]: text }).readFile });
      assert.equal(d.url, "ws://127.0.0.1:18789", text);
      assert.equal(d.token, undefined, text);
    }
  });
});

describe("gatewayIdForUrl", () => {
  test("stable for the same URL", () => {
    assert.equal(gatewayIdForUrl("ws://127.0.0.1:18789"), gatewayIdForUrl("ws://127.0.0.1:18789"));
    assert.equal(gatewayIdForUrl("ws://127.0.0.1:18789"), gatewayIdForUrl("ws://127.0.0.1:18789/"));
  });
  test("distinct for different ports, hosts and paths", () => {
    const ids = new Set(
      [
        "ws://127.0.0.1:18789",
        "ws://127.0.0.1:18799",
        "ws://localhost:18789",
        "wss://gw.example.com",
        "wss://gw.example.com/gw",
        "ws://[::1]:18789",
      ].map(gatewayIdForUrl),
    );
    assert.equal(ids.size, 6);
  });
  test("default ports are made explicit", () => {
    assert.equal(gatewayIdForUrl("wss://gw.example.com"), gatewayIdForUrl("wss://gw.example.com:443"));
    assert.equal(gatewayIdForUrl("ws://gw.example.com"), gatewayIdForUrl("ws://gw.example.com:80"));
  });
  test("readable and safe as a key", () => {
    assert.equal(gatewayIdForUrl("ws://127.0.0.1:18789"), "127.0.0.1-18789");
    assert.match(gatewayIdForUrl("ws://[::1]:18789/a b"), /^[a-z0-9._-]+$/i);
    assert.match(gatewayIdForUrl("not a url"), /^[a-z0-9._-]+$/i);
  });
});

describe("a discovered Gateway as a config (the app's Local Gateway and `watch` alike)", () => {
  const found = { url: "ws://127.0.0.1:1", sources: { url: "default", auth: "none" }, notes: ["n"] };

  test("the URL and only the credentials that were found; sources and notes are not config", () => {
    assert.deepEqual(discoveredGateway(found), { url: "ws://127.0.0.1:1" });
    const withSome = discoveredGateway({ ...found, token: "t", password: "", bootstrapToken: "b" });
    assert.deepEqual(withSome, { url: "ws://127.0.0.1:1", token: "t", bootstrapToken: "b" });
    assert.deepEqual(discoveredGateway({ ...found, password: "p" }), { url: "ws://127.0.0.1:1", password: "p" });
  });

  test("the app's zero-configuration Gateway is the same config, labelled Local", () => {
    assert.deepEqual(localGateway({ ...found, token: "t" }), { url: "ws://127.0.0.1:1", label: "Local", token: "t" });
  });
});
