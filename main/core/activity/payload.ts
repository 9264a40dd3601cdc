// Reading an `agent` event's payload: typed field access that never trusts the wire, and the
// one-line detail of a call (from the Gateway's `meta` summary or a few known argument
// fields), invisible and control characters removed, capped, and redacted. Tool output is never read.
import { lineWithoutControls } from "../../../common/control-chars.ts";
import { stripInvisible } from "../../../common/strip.ts";
import { kindOf } from "./tool-labels.ts";
import { redactSecrets } from "./redact-secrets.ts";

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** One-line, invisible-free, redacted detail text, or null. */
export function cleanDetail(raw: unknown, lead?: RegExp): string | null {
  const s = str(raw);
  if (s === null) return null;
  let t = lineWithoutControls(stripInvisible(s)).replace(/\s+/g, " ").trim();
  if (lead) t = t.replace(lead, "");
  // A summary that is only long enough to hold anything is already past a label's budget:
  // cap it before redaction so a pathological argument costs little.
  if (t.length > 2000) t = t.slice(0, 2000);
  t = redactSecrets(t);
  return t === "" ? null : t;
}

/** A label from a `tool` event's arguments, reading only a few known fields. */
export function detailFromArgs(tool: string, args: unknown): string | null {
  if (!isObj(args)) return null;
  const pick = (...names: string[]) => {
    for (const n of names) {
      const v = str(args[n]);
      if (v !== null) return v;
    }
    return null;
  };
  const kind = kindOf(tool);
  if (kind.noDetail) return null;
  if (kind.command) return cleanDetail(pick("command", "cmd"));
  if (kind.glyph === "search") {
    const q = pick("query", "q");
    return q === null ? null : cleanDetail(`"${q}"`);
  }
  if (kind.glyph === "web") return cleanDetail(pick("url", "path"));
  return cleanDetail(pick("path", "file_path", "filePath", "file", "dir", "directory"));
}
