// What the logger removes before anything is written, so no log line, file or diagnostics
// text holds a secret: the values the app knows are secret (Gateway tokens, passwords, setup
// codes, bootstrap and device tokens, the host's URL secrets) wherever they appear, even in
// part; any field whose name says it is secret; and the secret-looking shapes the activity
// lines already mask (credentials in URLs, secret-named parameters, bearer values, key blobs).
import { redactSecrets } from "./activity/redact-secrets.ts";

export const REDACTED = "[redacted]";

/** A field whose name says its value is secret (token, password, setupCode, bootstrapToken, secret, …). */
const SECRET_FIELD =
  /(token|passw(or)?d|passwd|secret|setup[_-]?code|api[_-]?key|private[_-]?key|authorization|credential|cookie|signature)/i;

/** A known secret's pieces this long or longer are redacted too (a truncated token is still a leak). */
export const MIN_FRAGMENT = 8;
/** Nested fields deeper than this are cut, not walked (a log line is not a data dump). */
const MAX_DEPTH = 5;

export type Redactor = {
  /** Registers a value that must never be written; shorter than 4 characters is ignored (it would mask words). */
  protect(secret: string | null | undefined): void;
  text(text: string): string;
  /** Fields with secret-named keys masked and every string redacted, walked to a bounded depth. */
  value(value: unknown): unknown;
};

export function createRedactor(): Redactor {
  const secrets = new Set<string>();
  // Every MIN_FRAGMENT-long window of every secret: a text holding one of them holds part of a secret.
  const windows = new Set<string>();

  const maskKnown = (text: string): string => {
    if (secrets.size === 0) return text;
    const covered: boolean[] = [];
    let any = false;
    for (const s of secrets) {
      if (s.length < MIN_FRAGMENT) {
        for (let at = text.indexOf(s); at !== -1; at = text.indexOf(s, at + 1)) {
          for (let i = at; i < at + s.length; i++) covered[i] = true;
          any = true;
        }
      }
    }
    for (const w of windows) {
      for (let at = text.indexOf(w); at !== -1; at = text.indexOf(w, at + 1)) {
        for (let i = at; i < at + w.length; i++) covered[i] = true;
        any = true;
      }
    }
    if (!any) return text;
    let out = "";
    for (let i = 0; i < text.length; i++) {
      if (!covered[i]) out += text[i];
      else if (!covered[i - 1]) out += REDACTED;
    }
    return out;
  };

  const text = (t: string): string => redactSecrets(maskKnown(t));

  const value = (v: unknown, depth = 0): unknown => {
    if (typeof v === "string") return text(v);
    if (v === null || typeof v !== "object") return v;
    if (v instanceof Error) return text(v.message);
    if (depth >= MAX_DEPTH) return "…";
    if (Array.isArray(v)) return v.map((x) => value(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // `hasToken: true` says nothing secret; a string or an object under such a name may.
      const carriesValue = (typeof x === "string" && x !== "") || (typeof x === "object" && x !== null);
      out[k] = SECRET_FIELD.test(k) && carriesValue ? REDACTED : value(x, depth + 1);
    }
    return out;
  };

  return {
    protect(secret) {
      if (typeof secret !== "string" || secret.length < 4 || secrets.has(secret)) return;
      secrets.add(secret);
      for (let i = 0; i + MIN_FRAGMENT <= secret.length; i++) windows.add(secret.slice(i, i + MIN_FRAGMENT));
    },
    text,
    value: (v) => value(v),
  };
}
