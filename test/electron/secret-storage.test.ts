// Credentials at rest (main/electron/secret-storage.ts): the vault blob encrypted with safeStorage in a 0600 file, the plain fallback with its warning, re-encryption, damage handling, and an end-to-end CredentialVault round trip. A FAKE safeStorage "encrypts" reversibly (a key tag + base64).
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { CredentialVault } from "../../main/core/vault.ts";
import { osProtection, safeStorageFile, UNPROTECTED_WARNING, type SafeStorageLike } from "../../main/electron/secret-storage.ts";
import { FakeSafeStorage } from "./fake-electron.ts";

const asSafe = (f: FakeSafeStorage): SafeStorageLike => f as unknown as SafeStorageLike;
const SECRET = JSON.stringify({ "gateway-token:home": "tok-PLAINTEXT-123", "device-token": "dev-SECRET-456" });

let root = "";
let path = "";
let n = 0;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "pd-secret-storage-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  // A fresh, not yet existing folder per test: the storage creates it.
  path = join(root, `case-${++n}`, "credentials.json");
});

async function onDisk(): Promise<{ text: string; envelope: { format: string; data: string }; mode: number }> {
  const text = await readFile(path, "utf8");
  const mode = (await stat(path)).mode & 0o777;
  return { text, envelope: JSON.parse(text) as { format: string; data: string }, mode };
}

describe("osProtection", () => {
  test("available encryption protects, except Linux's basic_text backend", async () => {
    const safe = new FakeSafeStorage();
    assert.equal(await osProtection(asSafe(safe), "darwin"), true);
    assert.equal(await osProtection(asSafe(safe), "win32"), true);
    assert.equal(await osProtection(asSafe(safe), "linux"), true);
    for (const backend of ["kwallet", "kwallet5", "kwallet6", "unknown"] as const) {
      safe.backend = backend;
      assert.equal(await osProtection(asSafe(safe), "linux"), true, backend);
    }
    safe.backend = "basic_text";
    assert.equal(await osProtection(asSafe(safe), "linux"), false);
    // The backend name only matters on Linux.
    assert.equal(await osProtection(asSafe(safe), "darwin"), true);
    safe.available = false;
    safe.backend = "gnome_libsecret";
    assert.equal(await osProtection(asSafe(safe), "darwin"), false);
    assert.equal(await osProtection(asSafe(safe), "linux"), false);
  });
});

describe("safeStorageFile with OS protection", () => {
  test("the blob is written encrypted in a 0600 JSON envelope, and read back", async () => {
    const safe = new FakeSafeStorage();
    const warnings: string[] = [];
    const storage = await safeStorageFile(path, asSafe(safe), "darwin", (m) => warnings.push(m));
    assert.equal(storage.protection, "os-keychain");
    assert.equal(await storage.read(), null, "nothing stored yet");

    await storage.write(SECRET);
    const disk = await onDisk();
    assert.equal(disk.mode, 0o600);
    assert.deepEqual(Object.keys(disk.envelope).sort(), ["data", "format"]);
    assert.equal(disk.envelope.format, "safeStorage");
    assert.equal(Buffer.from(disk.envelope.data, "base64").toString("utf8"), `K1:${Buffer.from(SECRET).toString("base64")}`);
    for (const plain of [SECRET, "tok-PLAINTEXT-123", "dev-SECRET-456", "gateway-token"])
      assert.equal(disk.text.includes(plain), false, plain);
    assert.deepEqual(await readdir(dirname(path)), ["credentials.json"], "no temp file left behind");

    assert.equal(await storage.read(), SECRET);
    // A fresh start reads the same file.
    const again = await safeStorageFile(path, asSafe(safe), "darwin", (m) => warnings.push(m));
    assert.equal(await again.read(), SECRET);
    assert.deepEqual(warnings, []);
    assert.equal(safe.encrypts, 1, "reading does not rewrite a current file");
  });

  test("a later write replaces the blob", async () => {
    const safe = new FakeSafeStorage();
    const storage = await safeStorageFile(path, asSafe(safe), "win32", () => assert.fail("no warning"));
    await storage.write("first");
    await storage.write("second");
    assert.equal(await storage.read(), "second");
    assert.equal((await onDisk()).mode, 0o600);
  });

  test("a plain envelope left from an unprotected run is read, then rewritten encrypted", async () => {
    const safe = new FakeSafeStorage();
    const unprotected = new FakeSafeStorage();
    unprotected.available = false;
    const before = await safeStorageFile(path, asSafe(unprotected), "linux", () => undefined);
    await before.write(SECRET);
    assert.equal((await onDisk()).envelope.format, "plain");

    const storage = await safeStorageFile(path, asSafe(safe), "linux", () => assert.fail("no warning"));
    assert.equal(await storage.read(), SECRET);
    const disk = await onDisk();
    assert.equal(disk.envelope.format, "safeStorage");
    assert.equal(disk.text.includes("tok-PLAINTEXT-123"), false);
    assert.equal(disk.mode, 0o600);
    assert.equal(safe.encrypts, 1);
    assert.equal(await storage.read(), SECRET);
    assert.equal(safe.encrypts, 1, "rewritten once");
  });

  test("after a key rotation (shouldReEncrypt) the blob is rewritten under the new key", async () => {
    const safe = new FakeSafeStorage();
    const storage = await safeStorageFile(path, asSafe(safe), "darwin", () => undefined);
    await storage.write(SECRET);
    safe.key = "K2";
    assert.equal(await storage.read(), SECRET);
    const disk = await onDisk();
    assert.equal(disk.envelope.format, "safeStorage");
    assert.equal(Buffer.from(disk.envelope.data, "base64").toString("utf8"), `K2:${Buffer.from(SECRET).toString("base64")}`);
    assert.equal(safe.encrypts, 2);
    // Now current: the next read leaves it alone.
    assert.equal(await storage.read(), SECRET);
    assert.equal(safe.encrypts, 2);
  });

  test("a damaged file cannot be read: read() throws, and the file is left as it is", async () => {
    const safe = new FakeSafeStorage();
    const warnings: string[] = [];
    const storage = await safeStorageFile(path, asSafe(safe), "darwin", (m) => warnings.push(m));
    await storage.write("x");
    for (const text of [
      "{not json",
      "",
      "null",
      "42",
      '"text"',
      "[]",
      '{"format":"other","data":"eA=="}',
      '{"format":"safeStorage","data":5}',
      '{"format":"plain","data":null}',
      '{"data":"eA=="}',
    ]) {
      await writeFile(path, text);
      await assert.rejects(storage.read(), /damaged/, text);
      assert.equal(await readFile(path, "utf8"), text);
    }
    assert.equal(safe.decrypts, 0, "nothing undecodable was handed to safeStorage");
    assert.equal(warnings.length, 10);
    assert.match(warnings[0]!, /kept as they are; nothing is written over them/);
  });

  test("a blob safeStorage cannot decrypt: read() throws and warns", async () => {
    const safe = new FakeSafeStorage();
    const warnings: string[] = [];
    const storage = await safeStorageFile(path, asSafe(safe), "darwin", (m) => warnings.push(m));
    await storage.write(SECRET);
    safe.failDecrypt = "keychain access denied";
    await assert.rejects(storage.read(), /could not decrypt them: keychain access denied/);
    assert.deepEqual(warnings, [
      "Progress Desk can't read its saved credentials (the system keychain could not decrypt them: keychain access denied). They are kept as they are; nothing is written over them.",
    ]);
    // Ciphertext that is not ours at all fails the same way.
    safe.failDecrypt = null;
    await writeFile(path, JSON.stringify({ format: "safeStorage", data: Buffer.from("garbage").toString("base64") }));
    await assert.rejects(storage.read());
    assert.equal(warnings.length, 2);
  });
});

describe("safeStorageFile without OS protection", () => {
  for (const [label, platform, configure] of [
    ["encryption unavailable", "darwin", (s: FakeSafeStorage) => void (s.available = false)],
    ["Linux basic_text backend", "linux", (s: FakeSafeStorage) => void (s.backend = "basic_text")],
  ] as const) {
    test(`${label}: warns once, writes a plain 0600 envelope, and reads it back`, async () => {
      const safe = new FakeSafeStorage();
      configure(safe);
      const warnings: string[] = [];
      const storage = await safeStorageFile(path, asSafe(safe), platform, (m) => warnings.push(m));
      assert.deepEqual(warnings, [UNPROTECTED_WARNING]);
      assert.equal(storage.protection, "file");
      await storage.write(SECRET);
      const disk = await onDisk();
      assert.deepEqual(disk.envelope, { format: "plain", data: SECRET });
      assert.equal(disk.mode, 0o600);
      assert.equal(await storage.read(), SECRET);
      await storage.write("again");
      assert.equal(await storage.read(), "again");
      assert.deepEqual(warnings, [UNPROTECTED_WARNING], "only once");
      assert.equal(safe.encrypts, 0);
      assert.equal(safe.decrypts, 0);
    });
  }

  test("the warning tells the person plainly", () => {
    assert.match(UNPROTECTED_WARNING, /unencrypted/);
    assert.match(UNPROTECTED_WARNING, /only you can read/);
  });

  test("an encrypted envelope cannot be read without protection: read() throws, with no decrypt attempt", async () => {
    const safe = new FakeSafeStorage();
    const writer = await safeStorageFile(path, asSafe(safe), "linux", () => undefined);
    await writer.write(SECRET);
    safe.backend = "basic_text";
    const storage = await safeStorageFile(path, asSafe(safe), "linux", () => undefined);
    await assert.rejects(storage.read(), /keychain is not available/);
    assert.equal(safe.decrypts, 0);
  });
});

describe("CredentialVault over safeStorageFile", () => {
  test("values set in the vault survive a restart, encrypted on disk", async () => {
    const safe = new FakeSafeStorage();
    const vault = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => assert.fail("no warning")));
    assert.equal(vault.protection, "os-keychain");
    assert.equal(vault.get("gateway-token:home"), null);
    vault.set("gateway-token:home", "tok-PLAINTEXT-123");
    vault.set("gateway-password:work", "pw-SECRET-789");
    vault.delete("gateway-password:work");
    await vault.flush();

    const disk = await onDisk();
    assert.equal(disk.envelope.format, "safeStorage");
    assert.equal(disk.text.includes("tok-PLAINTEXT-123"), false);
    assert.equal(disk.mode, 0o600);

    const reopened = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => undefined));
    assert.equal(reopened.get("gateway-token:home"), "tok-PLAINTEXT-123");
    assert.equal(reopened.get("gateway-password:work"), null);
  });

  // Issue 8, finding 3: launch 1 encrypts; launch 2 finds the keychain gone (or refusing,
  // or the file damaged). Nothing may be lost: the file stays byte for byte.
  const launch2Faults: [string, (safe: FakeSafeStorage) => Promise<void> | void][] = [
    ["encryption unavailable", (safe) => void (safe.available = false)],
    ["decryption throws", (safe) => void (safe.failDecrypt = "The user name or passphrase you entered is not correct.")],
    ["the file is corrupted", async () => writeFile(path, (await readFile(path, "utf8")).slice(0, 40))],
  ];
  for (const [label, fault] of launch2Faults) {
    test(`keychain lost between launches (${label}): the file is never overwritten or downgraded; the vault says unavailable`, async () => {
      const safe = new FakeSafeStorage();
      const first = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => undefined));
      first.set("gateway-token|home|wss://home.example", "tok-PLAINTEXT-123");
      first.deviceIdentity();
      await first.flush();
      await fault(safe);
      const bytes = await readFile(path);

      const warnings: string[] = [];
      const second = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", (m) => warnings.push(m)));
      assert.equal(second.protection, "unavailable");
      assert.ok(second.unavailableReason);
      assert.equal(second.get("gateway-token|home|wss://home.example"), null);
      // Everything that would have written: a device token, a new identity, a secret.
      second.set("device-token|ws://x|d|operator", "dev-2");
      second.deviceIdentity();
      second.set("gateway-token|home|wss://home.example", "tok-NEW");
      await second.flush();
      assert.deepEqual(await readFile(path), bytes, "byte for byte");
      assert.deepEqual(await readdir(dirname(path)), ["credentials.json"], "no other file either");
      assert.ok(warnings.some((w) => /nothing is written over them/.test(w)));
      assert.equal(warnings.includes(UNPROTECTED_WARNING), false, "no claim that tokens are being kept unencrypted");

      // The person chose unencrypted storage: a separate 0600 file, the encrypted one still intact.
      second.allowUnprotected();
      await second.flush();
      assert.deepEqual(await readFile(path), bytes);
      const side = join(dirname(path), "credentials.unprotected.json");
      assert.deepEqual(JSON.parse(await readFile(side, "utf8")).format, "plain");
      assert.equal((await stat(side)).mode & 0o777, 0o600);
    });
  }

  test("when the keychain is back, the saved secrets return and what was kept unencrypted meanwhile is merged in, then removed", async () => {
    const safe = new FakeSafeStorage();
    const first = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => undefined));
    first.set("gateway-token|home|wss://home.example", "tok-PLAINTEXT-123");
    const identity = first.deviceIdentity();
    await first.flush();
    safe.available = false;
    const second = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => undefined));
    second.allowUnprotected();
    second.set("gateway-token|work|wss://work.example", "tok-WORK");
    await second.flush();
    safe.available = true;
    const third = await CredentialVault.open(await safeStorageFile(path, asSafe(safe), "darwin", () => undefined));
    assert.equal(third.protection, "os-keychain");
    assert.equal(third.get("gateway-token|home|wss://home.example"), "tok-PLAINTEXT-123");
    assert.equal(third.get("gateway-token|work|wss://work.example"), "tok-WORK");
    assert.deepEqual(third.deviceIdentity(), identity, "the paired identity is kept");
    assert.deepEqual(await readdir(dirname(path)), ["credentials.json"], "the unencrypted file is gone");
    const disk = await onDisk();
    assert.equal(disk.envelope.format, "safeStorage");
    assert.equal(disk.text.includes("tok-WORK"), false);
  });
});
