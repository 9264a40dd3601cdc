// A security rule: no secret reaches an activity line. Every label detail passes through
// `redactSecrets` before it is kept, shown, or used as a stall detector's evidence.

/** A field or option name that says its value is a secret (fingerprints leave such fields out). */
export const SECRET_NAME =
  /(token|passw(or)?d|passwd|secret|api[_-]?key|apikey|private[_-]?key|access[_-]?key|auth|credential|cookie|session[_-]?id|signature|^key$|_key$|-key$)/i;
const MASK = "***";

/**
 * Masks what looks like a secret in a short text (a command, a path, a URL): env
 * assignments (`NAME=value`), secret-named options and query parameters, credentials in
 * URLs, `Bearer` values, well-known key prefixes, and long hex or base64-like blobs.
 */
export function redactSecrets(text: string): string {
  let t = text;
  // `Authorization: Bearer x`, `Bearer x`, `Basic x`.
  t = t.replace(
    /\b(authorization\s*[:=]\s*)(?:(bearer|basic|token)\s+)?("[^"]*"|'[^']*'|[^\s"']+)/gi,
    (_m, a: string, s?: string) => `${a}${s ? `${s} ` : ""}${MASK}`,
  );
  t = t.replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, (_m, s: string) => `${s} ${MASK}`);
  // user:password@ in URLs.
  t = t.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi, `$1${MASK}@`);
  // Secret-named query parameters.
  t = t.replace(
    /([?&;](?:[A-Za-z0-9]+[_.-])*(?:token|key|apikey|secret|password|passwd|sig|signature|auth|code|credential)(?:[_.-][A-Za-z0-9]+)*=)[^&#\s]+/gi,
    `$1${MASK}`,
  );
  // Env assignments: NAME=value (any upper-case name), also after `export`/`env`.
  t = t.replace(/(^|[\s;&|(`])([A-Z][A-Z0-9_]*=)("[^"]*"|'[^']*'|[^\s;&|)`]+)/g, (_m, pre: string, name: string) => `${pre}${name}${MASK}`);
  // Secret-named options (the word is a whole part of the name): --token x, --api-key=x;
  // `--author` is not touched, nor `-p x` (too ambiguous).
  t = t.replace(
    /(--?(?:[A-Za-z0-9]+[-_])*(?:token|password|passwd|secret|apikey|key|auth|credentials?|cookie)(?:[-_][A-Za-z0-9]+)*)(=|\s+)("[^"]*"|'[^']*'|[^\s;&|]+)/gi,
    (_m, opt: string, sep: string) => `${opt}${sep}${MASK}`,
  );
  // Secret-named JSON/YAML-ish fields: "token": "x", password: x.
  t = t.replace(
    /((?:^|[\s{,"'])(?:[A-Za-z0-9]+[_-])*(?:token|password|passwd|secret|apikey|api[_-]key)["']?\s*:\s*)("[^"]*"|'[^']*'|[^\s,}]+)/gi,
    `$1${MASK}`,
  );
  // Well-known key shapes.
  t = t.replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, MASK);
  t = t.replace(
    /\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|xox[abprs]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)/g,
    MASK,
  );
  // Long blobs: hex of 32+, or base64-like of 32+ mixing upper, lower and digits.
  t = t.replace(/\b[0-9a-fA-F]{32,}\b/g, MASK);
  t = t.replace(/[A-Za-z0-9+/_-]{32,}={0,2}/g, (m) =>
    /[A-Z]/.test(m) && /[a-z]/.test(m) && /[0-9]/.test(m) && !m.includes("/") ? MASK : m,
  );
  return t;
}
