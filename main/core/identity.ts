// Ed25519 device identity in the formats the Gateway verifies (docs/gateway.md §1.2).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";

export type DeviceIdentity = {
  deviceId: string;
  publicKeyPem: string;
  privateKeyPem: string;
};

/** The raw 32-byte Ed25519 public key: the tail of the SPKI DER encoding. */
function rawPublicKey(publicKeyPem: string): Buffer {
  const der = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return der.subarray(der.length - 32);
}

export function createDeviceIdentity(): DeviceIdentity {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { deviceId: deviceIdFromPublicKey(publicKeyPem), publicKeyPem, privateKeyPem };
}

export function deviceIdFromPublicKey(publicKeyPem: string): string {
  return createHash("sha256").update(rawPublicKey(publicKeyPem)).digest("hex");
}

export function publicKeyRawBase64UrlFromPem(publicKeyPem: string): string {
  return rawPublicKey(publicKeyPem).toString("base64url");
}

export function signDevicePayload(privateKeyPem: string, payload: string): string {
  return sign(null, Buffer.from(payload, "utf8"), createPrivateKey(privateKeyPem)).toString("base64url");
}

/** Validates a stored identity; a corrupt or mismatched one is rejected rather than used. */
export function parseDeviceIdentity(value: unknown): DeviceIdentity | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.deviceId !== "string" || typeof v.publicKeyPem !== "string" || typeof v.privateKeyPem !== "string") {
    return null;
  }
  try {
    if (deviceIdFromPublicKey(v.publicKeyPem) !== v.deviceId) return null;
    createPrivateKey(v.privateKeyPem);
  } catch {
    return null;
  }
  return { deviceId: v.deviceId, publicKeyPem: v.publicKeyPem, privateKeyPem: v.privateKeyPem };
}
