// Fingerprints for "same tool, same arguments" (the stall detector's polling rule): a short
// hash, never shown and never the raw text; arguments are read in a stable key order and
// secret-named fields are left out before hashing.
import { SECRET_NAME } from "./redact-secrets.ts";

export function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

export function stableArgs(value: unknown, depth = 0): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (depth > 4) return '"…"';
  if (Array.isArray(value)) return `[${value.map((v) => stableArgs(v, depth + 1)).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => !SECRET_NAME.test(k))
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableArgs((value as Record<string, unknown>)[k], depth + 1)}`).join(",")}}`;
}

/** The fingerprint of a call reported by an `item` event: the tool and its summary text. */
export function summaryFingerprint(tool: string, summary: string): string {
  return `${tool}:${hash(summary)}`;
}

/** The fingerprint of a call reported by a `tool` event: the tool and its arguments. */
export function argsFingerprint(tool: string, args: unknown): string {
  return `${tool}:${hash(stableArgs(args))}`;
}
