// axe-core in a real page, for the accessibility suite. The engine's source is evaluated through
// the DevTools protocol (page.evaluate of a string), which the pages' strict CSP does not govern:
// the product's policy is left exactly as shipped.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/** WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] as const;

export type AxeNode = { target: unknown[]; html: string; failureSummary?: string };
export type AxeViolation = { id: string; impact: string | null; help: string; helpUrl: string; nodes: AxeNode[] };

let source: string | null = null;
function axeSource(): string {
  source ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  return source;
}

/** Runs the WCAG 2.1 A/AA rules on the whole document and returns the violations. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate("typeof window.axe === 'object'");
  if (!loaded) await page.evaluate(axeSource());
  const tags = [...WCAG_TAGS];
  return page.evaluate(async (values) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: "tag", values },
      resultTypes: ["violations"],
    });
    // Only plain data crosses back to Node.
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    }));
  }, tags);
}

/** One block per violation: where it was found, the rule, each element and axe's summary of what fails. */
export function formatViolations(where: string, violations: AxeViolation[]): string {
  const out: string[] = [];
  for (const v of violations) {
    out.push(`${where}: ${v.id} (${v.impact ?? "no impact"}) — ${v.help}`);
    for (const n of v.nodes) {
      out.push(`    target: ${n.target.map(String).join(" ")}`);
      out.push(`    html:   ${n.html.length > 160 ? `${n.html.slice(0, 160)}…` : n.html}`);
      for (const line of (n.failureSummary ?? "").split("\n")) if (line.trim()) out.push(`      ${line.trim()}`);
    }
  }
  return out.join("\n");
}
