// `npm test` runs this before the suites: a skip must say why (the closing count shows skips,
// the reason says whether they are expected), and no `.only` may be left in (it would quietly
// run one test instead of the file). Reads the syntax tree, so comments and strings never count.
// Usage: node scripts/lint-tests.ts [file …]   (default: every .ts file under test/ but fixtures)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export type Finding = { line: number; column: number; message: string };

const RUNNER = new Set(["describe", "suite", "it", "test"]);

/** `describe`, `it` … or a context's `t.test`: a call that declares a test or suite. */
function declares(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return RUNNER.has(callee.text);
  return ts.isPropertyAccessExpression(callee) && callee.name.text === "test";
}

/** A string that says nothing: "", "  ", ``. */
function isEmptyText(node: ts.Expression): boolean {
  return (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text.trim() === "";
}

export function lintTestSource(fileName: string, text: string): Finding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const report = (node: ts.Node, message: string): void => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ line: line + 1, column: character + 1, message });
  };

  const checkOptions = (call: ts.CallExpression): void => {
    for (const arg of call.arguments) {
      if (!ts.isObjectLiteralExpression(arg)) continue;
      for (const prop of arg.properties) {
        const name = prop.name && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name)) ? prop.name.text : undefined;
        if (name === "only") {
          const value = ts.isPropertyAssignment(prop) ? prop.initializer : undefined;
          if (value?.kind !== ts.SyntaxKind.FalseKeyword) report(prop, "`only` left in: it runs this test alone; remove it");
        } else if (name === "skip" && ts.isPropertyAssignment(prop)) {
          const value = prop.initializer;
          if (value.kind === ts.SyntaxKind.TrueKeyword || isEmptyText(value)) report(prop, 'a skip needs its reason: `{ skip: "why" }`');
        }
      }
    }
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (declares(callee)) checkOptions(node);
      if (ts.isPropertyAccessExpression(callee) && declares(callee.expression)) {
        const modifier = callee.name.text;
        if (modifier === "only") report(callee.name, "`.only` left in: it runs this test alone; remove it");
        if (modifier === "skip") report(callee.name, '`.skip` cannot say why; use `{ skip: "why" }` instead');
        if (modifier === "only" || modifier === "skip" || modifier === "todo") checkOptions(node);
      } else if (ts.isPropertyAccessExpression(callee) && callee.name.text === "skip" && ts.isIdentifier(callee.expression)) {
        // A test context's `t.skip()`.
        const [reason] = node.arguments;
        if (!reason || isEmptyText(reason)) report(callee.name, '`t.skip()` needs its reason: `t.skip("why")`');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !relative(dir, path).startsWith("fixtures"))
    .sort();
}

if (import.meta.main) {
  const root = join(import.meta.dirname, "..");
  const files = process.argv.length > 2 ? process.argv.slice(2) : testSources(join(root, "test"));
  let count = 0;
  for (const file of files) {
    for (const f of lintTestSource(file, readFileSync(file, "utf8"))) {
      console.error(`${relative(root, file)}:${f.line}:${f.column}: ${f.message}`);
      count += 1;
    }
  }
  if (count > 0) {
    console.error(`lint-tests: ${count} problem${count === 1 ? "" : "s"} in test/`);
    process.exit(1);
  }
}
