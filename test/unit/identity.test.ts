// docs/gateway.md §1.2: Ed25519 device identity in the formats the Gateway verifies.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import {
  createDeviceIdentity,
  deviceIdFromPublicKey,
  parseDeviceIdentity,
  publicKeyRawBase64UrlFromPem,
  signDevicePayload,
} from "../../main/core/identity.ts";

/** The raw key computed independently of identity.ts, via JWK (x = raw key, base64url). */
function rawKeyViaJwk(publicKeyPem: string): Buffer {
  const jwk = createPublicKey(publicKeyPem).export({ format: "jwk" }) as { x?: string; crv?: string };
  assert.equal(jwk.crv, "Ed25519");
  return Buffer.from(jwk.x!, "base64url");
}

describe("device identity", () => {
  const id = createDeviceIdentity();

  test("is an Ed25519 key pair in PEM", () => {
    assert.match(id.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
    assert.match(id.privateKeyPem, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(createPublicKey(id.publicKeyPem).asymmetricKeyType, "ed25519");
  });

  test("deviceId is the lowercase hex SHA-256 of the raw 32-byte public key", () => {
    const raw = rawKeyViaJwk(id.publicKeyPem);
    assert.equal(raw.length, 32);
    const expected = createHash("sha256").update(raw).digest("hex");
    assert.equal(id.deviceId, expected);
    assert.match(id.deviceId, /^[0-9a-f]{64}$/);
    assert.equal(deviceIdFromPublicKey(id.publicKeyPem), expected);
  });

  test("publicKeyRawBase64UrlFromPem is the raw key, unpadded base64url", () => {
    const b64 = publicKeyRawBase64UrlFromPem(id.publicKeyPem);
    assert.doesNotMatch(b64, /[=+/]/);
    assert.equal(b64.length, 43);
    assert.deepEqual(Buffer.from(b64, "base64url"), rawKeyViaJwk(id.publicKeyPem));
  });

  test("signDevicePayload: an unpadded base64url Ed25519 signature that verifies with the public key", () => {
    const payload = `v3|${id.deviceId}|openclaw-linux|ui|operator|operator.read,operator.write|1760000000000|tok|nonce-1|linux|`;
    const sig = signDevicePayload(id.privateKeyPem, payload);
    assert.doesNotMatch(sig, /[=+/]/);
    const bytes = Buffer.from(sig, "base64url");
    assert.equal(bytes.length, 64);
    assert.equal(verify(null, Buffer.from(payload, "utf8"), createPublicKey(id.publicKeyPem), bytes), true);
    // a different payload, or another key, does not verify
    assert.equal(verify(null, Buffer.from(payload + "x", "utf8"), createPublicKey(id.publicKeyPem), bytes), false);
    const other = createDeviceIdentity();
    assert.equal(verify(null, Buffer.from(payload, "utf8"), createPublicKey(other.publicKeyPem), bytes), false);
  });

  test("signs the UTF-8 bytes of non-ASCII payloads", () => {
    const payload = "v3|ü|日本|🎉";
    const sig = Buffer.from(signDevicePayload(id.privateKeyPem, payload), "base64url");
    assert.equal(verify(null, Buffer.from(payload, "utf8"), createPublicKey(id.publicKeyPem), sig), true);
  });

  test("two identities differ", () => {
    const other = createDeviceIdentity();
    assert.notEqual(other.deviceId, id.deviceId);
  });
});

describe("parseDeviceIdentity", () => {
  const id = createDeviceIdentity();

  test("accepts a valid stored identity (round trip through JSON)", () => {
    assert.deepEqual(parseDeviceIdentity(JSON.parse(JSON.stringify(id))), id);
  });

  test("rejects a mismatched deviceId", () => {
    assert.equal(parseDeviceIdentity({ ...id, deviceId: "0".repeat(64) }), null);
    const other = createDeviceIdentity();
    assert.equal(parseDeviceIdentity({ ...id, deviceId: other.deviceId }), null);
    assert.equal(parseDeviceIdentity({ ...id, publicKeyPem: other.publicKeyPem }), null);
  });

  test("rejects a corrupt private key", () => {
    assert.equal(parseDeviceIdentity({ ...id, privateKeyPem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }), null);
  });

  test("rejects garbage without throwing", () => {
    for (const v of [
      null,
      undefined,
      1,
      "x",
      [],
      {},
      { deviceId: 1, publicKeyPem: "x", privateKeyPem: "y" },
      { ...id, publicKeyPem: "not pem" },
    ]) {
      assert.equal(parseDeviceIdentity(v), null);
    }
  });

  test("a non-Ed25519 key is not an identity of this format", () => {
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
    const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    // deviceIdFromPublicKey would hash "the last 32 bytes" of any key; a stored id that does
    // not match that hash is rejected.
    assert.equal(parseDeviceIdentity({ deviceId: "f".repeat(64), publicKeyPem, privateKeyPem }), null);
  });
});
