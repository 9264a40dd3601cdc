// `npm test` runs this before the suites: every reference a comment makes must point inside the
// repository. A requirement id (C1, R6, N2 …, also in ranges like E1–E4) must be defined in
// docs/requirements.md; a `<page>.md §N` reference (a path from the repository's root) must name
// a page that exists and a section it has. Comments only: strings and code never count.
// Usage: node scripts/lint-refs.ts [file …]   (default: every source file of the app, tests, benchmarks, scripts)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");
const SOURCE_DIRS = ["common", "main", "preload", "renderer", "test", "bench", "scripts"];
/** The families docs/requirements.md defines; a capital + digit of another letter is not an id. */
const ID = /\b([ACEGNPRSTU])(\d{1,2})\b(?:\s*[–-]\s*\1?(\d{1,2})\b)?/g;
const DOC_REF = /(?<![\w/.-])((?:[\w-]+\/)*[\w.-]+\.md)\s+§\s?(\d+(?:\.\d+)*)/g;
/** The old form that pointed outside the repository. */
const OUTSIDE_REF = /\bgateway-protocol(?:\.md)?\s+§/g;

export type RefFinding = { file: string; line: number; message: string };

export function definedIds(requirementsMd: string): Set<string> {
  const ids = new Set<string>();
  for (const m of requirementsMd.matchAll(/^- \*\*([A-Z]\d{1,2})\*\*/gm)) if (m[1] !== undefined) ids.add(m[1]);
  return ids;
}

/** Section numbers of a Markdown page: headings that start with `N.` or `N.M`. */
export function sectionsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)) if (m[1] !== undefined) out.add(m[1]);
  return out;
}

/** Comment texts with the line each starts on. */
export function commentsOf(fileName: string, text: string): { line: number; text: string }[] {
  if (fileName.endsWith(".svelte")) {
    // Script blocks hold TS comments; markup holds HTML comments.
    const out: { line: number; text: string }[] = [];
    const lineAt = (i: number): number => text.slice(0, i).split("\n").length;
    for (const m of text.matchAll(/<!--([\s\S]*?)-->/g)) out.push({ line: lineAt(m.index), text: m[1] ?? "" });
    for (const m of text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)) {
      const base = lineAt(m.index) - 1;
      for (const c of commentsOf("x.ts", m[1] ?? "")) out.push({ line: base + c.line, text: c.text });
    }
    return out;
  }
  const out: { line: number; text: string }[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  const lineOf = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? Infinity) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      out.push({ line: lineOf(scanner.getTokenStart()), text: scanner.getTokenText() });
    }
  }
  return out;
}

export function lintRefs(
  fileName: string,
  text: string,
  ids: ReadonlySet<string>,
  docSections: (page: string) => Set<string> | null,
): RefFinding[] {
  const findings: RefFinding[] = [];
  for (const c of commentsOf(fileName, text)) {
    for (const m of c.text.matchAll(ID)) {
      const family = m[1];
      if (family === undefined) continue;
      const from = Number(m[2]);
      const to = m[3] === undefined ? from : Number(m[3]);
      for (let n = from; n <= Math.min(to, from + 20); n++) {
        if (!ids.has(`${family}${n}`))
          findings.push({ file: fileName, line: c.line, message: `${family}${n} is not defined in docs/requirements.md` });
      }
    }
    for (const m of c.text.matchAll(DOC_REF)) {
      const [, page, section] = m;
      if (page === undefined || section === undefined) continue;
      const sections = docSections(page);
      if (sections === null) findings.push({ file: fileName, line: c.line, message: `${page} does not exist` });
      else if (!sections.has(section)) findings.push({ file: fileName, line: c.line, message: `${page} has no section §${section}` });
    }
    if (OUTSIDE_REF.test(c.text))
      findings.push({
        file: fileName,
        line: c.line,
        message: "cites gateway-protocol, which is not in the repository: cite docs/gateway.md §N",
      });
    OUTSIDE_REF.lastIndex = 0;
  }
  return findings;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "fixtures" && entry.name !== "node_modules") out.push(...sourceFiles(p));
    } else if (/\.(ts|svelte)$/.test(entry.name)) out.push(p);
  }
  return out;
}

if (import.meta.main) {
  const files =
    process.argv.length > 2
      ? process.argv.slice(2)
      : SOURCE_DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => sourceFiles(join(ROOT, d)));
  const ids = definedIds(readFileSync(join(ROOT, "docs", "requirements.md"), "utf8"));
  const cache = new Map<string, Set<string> | null>();
  const docSections = (page: string): Set<string> | null => {
    let sections = cache.get(page);
    if (sections === undefined) {
      const p = join(ROOT, page);
      sections = existsSync(p) ? sectionsOf(readFileSync(p, "utf8")) : null;
      cache.set(page, sections);
    }
    return sections;
  };
  const findings = files.flatMap((f) => lintRefs(relative(ROOT, f), readFileSync(f, "utf8"), ids, docSections));
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.message}`);
  if (findings.length > 0) {
    console.error(`lint-refs: ${findings.length} reference(s) point outside the repository`);
    process.exit(1);
  }
}
