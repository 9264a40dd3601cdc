// S3: credentials behind one storage interface; the headless file is 0600.
import { createLogger, formatFields } from "../../main/core/logger.ts";
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CredentialVault, dataHome, fileStorage, memoryStorage } from "../../main/core/vault.ts";
import { parseDeviceIdentity } from "../../main/core/identity.ts";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "progress-desk-vault-"));
  dirs.push(dir);
  return dir;
}
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const posix = process.platform !== "win32";

describe("CredentialVault with memoryStorage", () => {
  test("round trip: set, flush, reopen", async () => {
    const storage = memoryStorage();
    const vault = await CredentialVault.open(storage);
    assert.equal(vault.get("token"), null);
    vault.set("token", "s3cret");
    vault.set("device-token|ws://x|id|operator", JSON.stringify({ token: "dt", scopes: ["operator.read"] }));
    await vault.flush();
    assert.ok(storage.blob);
    assert.deepEqual(JSON.parse(storage.blob), {
      token: "s3cret",
      "device-token|ws://x|id|operator": '{"token":"dt","scopes":["operator.read"]}',
    });
    const reopened = await CredentialVault.open(storage);
    assert.equal(reopened.get("token"), "s3cret");
    assert.equal(reopened.protection, "file");
  });

  test("delete persists; deleting a missing name writes nothing", async () => {
    let writes = 0;
    const base = memoryStorage();
    const storage = {
      ...base,
      read: base.read,
      write: async (b: string) => {
        writes++;
        await base.write(b);
      },
    };
    const vault = await CredentialVault.open(storage);
    vault.set("a", "1");
    vault.set("a", "1"); // unchanged: no write
    await vault.flush();
    assert.equal(writes, 1);
    vault.delete("nope");
    await vault.flush();
    assert.equal(writes, 1);
    vault.delete("a");
    await vault.flush();
    assert.equal(writes, 2);
    assert.equal((await CredentialVault.open(base)).get("a"), null);
  });

  test("writes land in order (last value wins on disk)", async () => {
    const storage = memoryStorage();
    const vault = await CredentialVault.open(storage);
    for (let i = 0; i < 20; i++) vault.set("k", String(i));
    await vault.flush();
    assert.equal(JSON.parse(storage.blob!).k, "19");
  });

  test("a blob that is not a JSON object is kept as it is: the vault is unavailable and writes nothing", async () => {
    for (const blob of ["{not json", "[1,2]", "null", '"str"', "42", ""]) {
      const storage = memoryStorage(blob);
      const vault = await CredentialVault.open(storage);
      assert.equal(vault.protection, "unavailable", blob);
      assert.equal(vault.get("token"), null, blob);
      vault.set("token", "new");
      vault.deviceIdentity();
      await vault.flush();
      assert.equal(storage.blob, blob, `never written over: ${JSON.stringify(blob)}`);
      assert.equal(vault.get("token"), "new", "changes live in memory for this run");
    }
    // non-string values are ignored, strings kept
    const mixed = await CredentialVault.open(memoryStorage(JSON.stringify({ a: "1", b: 2, c: null })));
    assert.equal(mixed.get("a"), "1");
    assert.equal(mixed.get("b"), null);
    assert.equal(mixed.protection, "file");
  });

  test("a storage whose read fails is unavailable, with the reason", async () => {
    let writes = 0;
    const storage = {
      protection: "os-keychain" as const,
      read: async () => Promise.reject(new Error("keychain locked")),
      write: async () => void writes++,
    };
    const vault = await CredentialVault.open(storage);
    assert.equal(vault.protection, "unavailable");
    assert.equal(vault.unavailableReason, "keychain locked");
    vault.set("a", "1");
    await vault.flush();
    assert.equal(writes, 0);
    assert.throws(() => vault.allowUnprotected(), /no separate place/, "no fallback here: it says so");
  });

  test("allowed unencrypted writes go to the fallback; the next launch uses it; a readable launch merges it back and removes it", async () => {
    const saved = JSON.stringify({ "device-identity": "ID-PAIRED", "gateway-token|a|ws://a": "old-a", keep: "k" });
    const main = memoryStorage(saved);
    const fallback = memoryStorage();
    let readable = false;
    const storage = {
      ...main,
      read: async () => (readable ? main.read() : Promise.reject(new Error("locked"))),
      unprotectedFallback: () => fallback,
    };

    const launch2 = await CredentialVault.open(storage);
    assert.equal(launch2.protection, "unavailable");
    launch2.set("device-identity", "ID-TEMP");
    launch2.set("gateway-token|a|ws://a", "new-a");
    await launch2.flush();
    assert.equal(fallback.blob, null, "nothing anywhere before the person chooses");
    launch2.allowUnprotected();
    assert.equal(launch2.protection, "file");
    await launch2.flush();
    assert.deepEqual(JSON.parse(fallback.blob!), { "device-identity": "ID-TEMP", "gateway-token|a|ws://a": "new-a" });
    assert.equal(main.blob, saved, "the unreadable one untouched");

    const launch3 = await CredentialVault.open(storage);
    assert.equal(launch3.protection, "file", "still locked: the fallback the person chose is used");
    assert.equal(launch3.get("gateway-token|a|ws://a"), "new-a");

    readable = true;
    const launch4 = await CredentialVault.open(storage);
    assert.equal(launch4.protection, "file");
    assert.deepEqual(
      JSON.parse(main.blob!),
      { "device-identity": "ID-PAIRED", "gateway-token|a|ws://a": "new-a", keep: "k" },
      "newer secrets win; the paired identity stays",
    );
    assert.equal(fallback.blob, null, "the unencrypted copy is gone once merged");
  });

  test("a damaged fallback is never written over either", async () => {
    const fallback = memoryStorage("{damaged");
    const storage = { ...memoryStorage("{damaged too"), unprotectedFallback: () => fallback };
    const vault = await CredentialVault.open(storage);
    assert.equal(vault.protection, "unavailable");
    assert.throws(() => vault.allowUnprotected());
    await vault.flush();
    assert.equal(fallback.blob, "{damaged");
  });

  test("a failing write warns, never throws or rejects flush", async () => {
    const storage = {
      protection: "file" as const,
      read: async () => null,
      write: async () => {
        throw new Error("disk full");
      },
    };
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn", sink: (r) => void warnings.push(`${r.message}${formatFields(r.fields)}`) });
    const vault = await CredentialVault.open(storage, logger);
    vault.set("a", "1");
    await vault.flush();
    assert.equal(vault.get("a"), "1");
    assert.ok(
      warnings.some((w) => /disk full/.test(w)),
      JSON.stringify(warnings),
    );
  });

  test("deviceIdentity() is created once and stable across reopen", async () => {
    const storage = memoryStorage();
    const vault = await CredentialVault.open(storage);
    const first = vault.deviceIdentity();
    assert.ok(parseDeviceIdentity(first));
    assert.deepEqual(vault.deviceIdentity(), first);
    await vault.flush();
    const reopened = await CredentialVault.open(storage);
    assert.deepEqual(reopened.deviceIdentity(), first);
  });

  test("a damaged stored identity is replaced by a new valid one", async () => {
    const storage = memoryStorage(JSON.stringify({ "device-identity": "{broken" }));
    const vault = await CredentialVault.open(storage);
    const id = vault.deviceIdentity();
    assert.ok(parseDeviceIdentity(id));
    await vault.flush();
    assert.deepEqual(JSON.parse(JSON.parse(storage.blob!)["device-identity"]), id);
  });
});

describe("fileStorage", () => {
  test("missing file reads as null", async () => {
    const dir = await tempDir();
    assert.equal(await fileStorage(join(dir, "none.json")).read(), null);
  });

  test("writes the blob with mode 0600 in a created folder, atomically (no temp file left)", async () => {
    const dir = await tempDir();
    const path = join(dir, "nested", "deeper", "credentials.json");
    const storage = fileStorage(path);
    assert.equal(storage.protection, "file");
    await storage.write('{"a":"1"}');
    assert.equal(await readFile(path, "utf8"), '{"a":"1"}');
    assert.equal(await storage.read(), '{"a":"1"}');
    if (posix) {
      const st = await stat(path);
      assert.equal(st.mode & 0o777, 0o600, `mode ${(st.mode & 0o777).toString(8)}`);
    }
    const { readdir } = await import("node:fs/promises");
    assert.deepEqual(await readdir(join(dir, "nested", "deeper")), ["credentials.json"]);
  });

  test(
    "an existing world-readable file becomes 0600 on the next write",
    { skip: posix ? false : "file modes are POSIX only; Windows has no 0600" },
    async () => {
      const dir = await tempDir();
      const path = join(dir, "credentials.json");
      await writeFile(path, "{}", { mode: 0o644 });
      await fileStorage(path).write('{"b":"2"}');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
    },
  );

  test("a vault on a file: round trip, 0600, identity stable across reopen", async () => {
    const dir = await tempDir();
    const path = join(dir, "vault.json");
    const vault = await CredentialVault.open(fileStorage(path));
    const id = vault.deviceIdentity();
    vault.set("token", "t");
    await vault.flush();
    if (posix) assert.equal((await stat(path)).mode & 0o777, 0o600);
    const again = await CredentialVault.open(fileStorage(path));
    assert.equal(again.get("token"), "t");
    assert.deepEqual(again.deviceIdentity(), id);
  });

  test("a corrupt file is kept byte for byte; the allowed fallback is a 0600 file beside it", async () => {
    const dir = await tempDir();
    const path = join(dir, "vault.json");
    await writeFile(path, "\u0000\u0001garbage", { mode: 0o600 });
    const before = await readFile(path);
    const vault = await CredentialVault.open(fileStorage(path));
    assert.equal(vault.protection, "unavailable");
    vault.set("token", "t");
    await vault.flush();
    assert.deepEqual(await readFile(path), before);
    vault.allowUnprotected();
    await vault.flush();
    assert.deepEqual(await readFile(path), before, "still untouched after the choice");
    const side = join(dir, "vault.unprotected.json");
    assert.equal(JSON.parse(await readFile(side, "utf8")).token, "t");
    if (posix) assert.equal((await stat(side)).mode & 0o777, 0o600);
    assert.equal((await CredentialVault.open(fileStorage(path))).get("token"), "t", "the next launch reads the fallback");
  });
});

describe("dataHome", () => {
  const home = join("/", "home", "alice");
  test("PROGRESS_DESK_HOME wins everywhere", () => {
    for (const os of ["darwin", "linux", "win32"]) {
      assert.equal(
        dataHome({ PROGRESS_DESK_HOME: join("/", "pd"), XDG_CONFIG_HOME: join("/", "xdg"), APPDATA: "C:\\AppData" }, home, os),
        join("/", "pd"),
      );
    }
  });
  test("darwin: ~/Library/Application Support/Progress Desk", () => {
    assert.equal(dataHome({}, home, "darwin"), join(home, "Library", "Application Support", "Progress Desk"));
    assert.equal(
      dataHome({ XDG_CONFIG_HOME: join("/", "xdg") }, home, "darwin"),
      join(home, "Library", "Application Support", "Progress Desk"),
    );
  });
  test("linux: $XDG_CONFIG_HOME/progress-desk, else ~/.config/progress-desk", () => {
    assert.equal(dataHome({ XDG_CONFIG_HOME: join("/", "xdg") }, home, "linux"), join("/", "xdg", "progress-desk"));
    assert.equal(dataHome({}, home, "linux"), join(home, ".config", "progress-desk"));
    assert.equal(dataHome({ XDG_CONFIG_HOME: "" }, home, "linux"), join(home, ".config", "progress-desk"));
    assert.equal(dataHome({}, home, "freebsd"), join(home, ".config", "progress-desk"));
  });
  test("win32: %APPDATA%\\Progress Desk, else ~/AppData/Roaming", () => {
    assert.equal(dataHome({ APPDATA: join("/", "appdata") }, home, "win32"), join("/", "appdata", "Progress Desk"));
    assert.equal(dataHome({}, home, "win32"), join(home, "AppData", "Roaming", "Progress Desk"));
  });
});
