// `npm run mutation [module …]`: mutation testing of the pure core with StrykerJS (issue 9).
// One Stryker run per module, each with only the unit test files (test/unit/<name>.test.ts) that exercise it (a whole-suite
// run per mutant would take hours on this machine). Shared settings: stryker.config.json.
// Writes reports/mutation/<module>.json and rewrites the score table in docs/quality.md
// (rows of modules not run this time are kept). Not part of `npm test`.
// `npm run mutation -- --report-only [module …]` rebuilds table and survivor lists from the last reports.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Module = { name: string; mutate: string[]; tests: string[] };

// A `file#scope` entry mutates only the lines between `// mutation-scope:start` and `// mutation-scope:end`
// in that file (found at run time, so edits above them do not shift the range): settings' normalisation
// (not its store and file backend) and the contract's caller and argument checks (not its types and channel names).
export const MODULES: Module[] = [
  { name: "card", mutate: ["common/card.ts"], tests: ["card", "card-rules"] },
  {
    name: "card-store",
    mutate: ["main/core/cards/card-store.ts", "main/core/cards/card-slots.ts"],
    tests: ["card-store", "actions", "card-store-events", "roster-sync", "read-scheduler"],
  },
  {
    name: "read-scheduler",
    mutate: ["main/core/cards/read-scheduler.ts"],
    tests: ["read-scheduler", "card-store", "card-store-events", "roster-sync"],
  },
  {
    name: "roster-sync",
    mutate: ["main/core/cards/roster-sync.ts", "main/core/cards/roster-pages.ts"],
    tests: ["roster-sync", "card-store", "card-store-events"],
  },
  { name: "token-bucket", mutate: ["main/core/cards/token-bucket.ts"], tests: ["token-bucket", "read-scheduler"] },
  { name: "gateway-load", mutate: ["main/core/cards/gateway-load.ts"], tests: ["gateway-load", "read-scheduler"] },
  { name: "tray-model", mutate: ["main/core/tray-model.ts"], tests: ["tray-model", "tray-model-rules"] },
  {
    name: "notification-policy",
    mutate: [
      "main/core/notifications/policy.ts",
      "main/core/notifications/milestones.ts",
      "main/core/notifications/throttle.ts",
      "main/core/notifications/coalesce.ts",
      "main/core/notifications/held-notices.ts",
      "main/core/notifications/quiet-hours.ts",
      "main/core/notifications/away-summary.ts",
      "main/core/notifications/notice-text.ts",
    ],
    tests: ["notification-policy", "notification-policy-rules", "notification-decisions"],
  },
  { name: "stall-detector", mutate: ["main/core/stall-detector.ts"], tests: ["stall-detector", "stall-detector-rules"] },
  {
    name: "visible-cards",
    mutate: ["common/visible-cards.ts"],
    tests: ["visible-cards", "visible-cards-surfaces", "glance-note-line", "tray-model"],
  },
  {
    name: "note-line",
    mutate: ["common/note-line.ts"],
    tests: ["note-line", "glance-note-line", "glance-note-line-near-misses", "notification-policy", "tray-model"],
  },
  { name: "truncate", mutate: ["common/truncate.ts"], tests: ["truncate", "truncate-rules"] },
  { name: "backoff", mutate: ["main/core/backoff.ts"], tests: ["backoff"] },
  { name: "connection-state", mutate: ["main/core/connection-state.ts"], tests: ["connection-state", "connection-state-advice"] },
  { name: "settings (normalisation)", mutate: ["common/settings-schema.ts#scope"], tests: ["settings", "settings-normalisation"] },
  {
    name: "contract (validateArgs)",
    mutate: ["common/contract.ts#scope", "common/verbs.ts#scope"],
    tests: ["settings", "preload-bridge", "contract-validate-args", "contract-settings-only-callers"],
  },
];

const root = join(import.meta.dirname, "..");

const SCOPE_START = "// mutation-scope:start";
const SCOPE_END = "// mutation-scope:end";

/**
 * Stryker `mutate` entries for one MODULES entry: `file#scope` becomes `file:a-b` for each
 * start/end marker pair in the file (the lines strictly between them); other entries pass unchanged.
 * Throws when the markers are missing or unpaired, so a lost marker cannot silently widen or empty the run.
 */
export function mutateRanges(entry: string, source = (f: string) => readFileSync(join(root, f), "utf8")): string[] {
  if (!entry.endsWith("#scope")) return [entry];
  const file = entry.slice(0, -"#scope".length);
  const lines = source(file).split("\n");
  const ranges: string[] = [];
  let start: number | null = null;
  lines.forEach((line, i) => {
    const t = line.trim();
    if (t.startsWith(SCOPE_START)) {
      if (start !== null) throw new Error(`${file}:${i + 1}: ${SCOPE_START} inside an open scope`);
      start = i + 1; // 1-based line of the marker
    } else if (t.startsWith(SCOPE_END)) {
      if (start === null) throw new Error(`${file}:${i + 1}: ${SCOPE_END} without ${SCOPE_START}`);
      if (i + 1 - start < 2) throw new Error(`${file}:${i + 1}: empty mutation scope`);
      ranges.push(`${file}:${start + 1}-${i}`);
      start = null;
    }
  });
  if (start !== null) throw new Error(`${file}:${start}: ${SCOPE_START} without ${SCOPE_END}`);
  if (ranges.length === 0) throw new Error(`${file}: no ${SCOPE_START} / ${SCOPE_END} markers`);
  return ranges;
}
const slug = (m: Module): string => m.name.split(" ")[0] ?? m.name;
const reportFile = (m: Module): string => `reports/mutation/${slug(m)}.json`;

/** The command Stryker runs for every mutant: in-process node:test, quiet output, non-zero exit on a failing test. */
export function testCommand(m: Module): string {
  return `node --test --test-isolation=none --test-reporter=dot ${m.tests.map((t) => `test/unit/${t}.test.ts`).join(" ")}`;
}

type Counts = { mutants: number; killed: number; timeout: number; survived: number; noCoverage: number; errors: number };

function countsOf(report: { files: Record<string, { mutants: { status: string }[] }> }): Counts {
  const c: Counts = { mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0 };
  for (const f of Object.values(report.files)) {
    for (const mu of f.mutants) {
      if (mu.status === "Ignored") continue;
      c.mutants++;
      if (mu.status === "Killed") c.killed++;
      else if (mu.status === "Timeout") c.timeout++;
      else if (mu.status === "Survived") c.survived++;
      else if (mu.status === "NoCoverage") c.noCoverage++;
      else c.errors++; // CompileError / RuntimeError: not valid mutants, left out of the score
    }
  }
  return c;
}

/** Stryker's score: detected (killed + timeout) over valid mutants (errors excluded). */
const score = (c: Counts): number => (100 * (c.killed + c.timeout)) / Math.max(1, c.mutants - c.errors);

/** The parts of a Stryker mutant this script reads. */
type StrykerMutant = {
  status: string;
  location: { start: { line: number; column: number } };
  mutatorName: string;
  replacement?: string;
};

function survivors(report: { files: Record<string, { source: string; mutants: StrykerMutant[] }> }): string[] {
  const out: string[] = [];
  for (const [file, f] of Object.entries(report.files)) {
    const lines = f.source.split("\n");
    for (const mu of f.mutants) {
      if (mu.status !== "Survived" && mu.status !== "NoCoverage") continue;
      const { start } = mu.location;
      const orig = (lines[start.line - 1] ?? "").trim().slice(0, 110);
      out.push(
        `${file}:${start.line}:${start.column} [${mu.status}] ${mu.mutatorName} → ${JSON.stringify(mu.replacement ?? "")}\n    ${orig}`,
      );
    }
  }
  return out;
}

function runOne(m: Module): void {
  const cmd = testCommand(m);
  const mutate = m.mutate.flatMap((e) => mutateRanges(e));
  console.log(`\n== ${m.name}: mutate ${mutate.join(", ")}\n   ${cmd}`);
  // MUTATION_CONCURRENCY overrides stryker.config.json's test processes (e.g. 1 on a shared machine).
  const concurrency = process.env.MUTATION_CONCURRENCY ? { concurrency: Number(process.env.MUTATION_CONCURRENCY) } : {};
  const options = { mutate, ...concurrency, commandRunner: { command: cmd }, jsonReporter: { fileName: reportFile(m) } };
  // A child per module: Stryker keeps process-wide state, and a stuck run stays bounded.
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { Stryker } from "@stryker-mutator/core"; await new Stryker(${JSON.stringify(options)}).runMutationTest();`,
    ],
    { cwd: root, stdio: "inherit", timeout: Number(process.env.MUTATION_MODULE_TIMEOUT_MS ?? 30 * 60_000) },
  );
  if (child.status !== 0) console.error(`Stryker run for ${m.name} ended with ${child.status ?? child.signal}`);
}

const TABLE_START = "<!-- mutation-table:start -->";
const TABLE_END = "<!-- mutation-table:end -->";

function writeTable(ran: Module[]): void {
  const doc = join(root, "docs/quality.md");
  const text = readFileSync(doc, "utf8");
  const [before, rest] = text.split(TABLE_START) as [string, string];
  const [oldTable, after] = rest.split(TABLE_END) as [string, string];
  const oldRows = new Map(
    oldTable
      .split("\n")
      .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith("| module"))
      .map((l) => [(l.split("|")[1] ?? "").trim(), l]),
  );
  const rows = MODULES.map((m) => {
    const file = join(root, reportFile(m));
    if (!ran.includes(m) || !existsSync(file)) return oldRows.get(m.name) ?? `| ${m.name} | – | – | – | – | – | – | not run |`;
    const c = countsOf(JSON.parse(readFileSync(file, "utf8")));
    const date = statSync(file).mtime.toISOString().slice(0, 16).replace("T", " ");
    return `| ${m.name} | ${c.mutants - c.errors} | ${c.killed} | ${c.timeout} | ${c.survived} | ${c.noCoverage} | ${score(c).toFixed(1)} % | ${date} |`;
  });
  const table = [
    "",
    "| module | mutants | killed | timeout | survived | no coverage | score | measured (UTC) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(doc, `${before}${TABLE_START}${table}${TABLE_END}${after}`);
}

function main(): void {
  // --report-only: rebuild the table and survivor lists from the last reports, run nothing.
  const reportOnly = process.argv.includes("--report-only");
  const wanted = process.argv.slice(2).filter((a) => a !== "--report-only");
  const unknown = wanted.filter((w) => !MODULES.some((m) => slug(m) === w));
  if (unknown.length > 0) {
    console.error(`unknown module(s): ${unknown.join(", ")}; known: ${MODULES.map(slug).join(", ")}`);
    process.exit(2);
  }
  const ran = wanted.length > 0 ? wanted.flatMap((w) => MODULES.filter((m) => slug(m) === w).slice(0, 1)) : MODULES;
  for (const m of ran) {
    if (!reportOnly) {
      rmSync(join(root, reportFile(m)), { force: true });
      runOne(m);
    }
    const file = join(root, reportFile(m));
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, "utf8"));
    const c = countsOf(report);
    console.log(
      `-- ${m.name}: ${c.mutants - c.errors} mutants, ${c.killed} killed, ${c.timeout} timeout, ${c.survived} survived, ` +
        `${c.noCoverage} no coverage → ${score(c).toFixed(1)} %`,
    );
    const left = survivors(report);
    for (const s of left) console.log(`   ${s}`);
    writeFileSync(file.replace(/\.json$/, "-survivors.txt"), left.join("\n") + "\n");
  }
  writeTable(ran);
}

if (import.meta.main) main();
