// Part of `npm run lint`: proves the layer rule (eslint.config.js LAYER_ZONES) fires, and the
// Electron rule (ELECTRON_ZONES: electron and the packages needing it in main/electron only). For each
// zone, a probe file placed in the zone's folder imports a module of a folder it may not use, and
// ESLint must reject it with import-x/no-restricted-paths; the same probe importing from
// common/ must pass. Probes are linted as text (nothing is written to the tree).
import { ESLint } from "eslint";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/** A real module in each folder a probe may import from (resolution must succeed for the rule to judge it). */
const MODULE_IN: Record<string, string> = {
  "./main": "main/core/desk.ts",
  "./main/core": "main/core/desk.ts",
  "./main/electron": "main/electron/ipc.ts",
  "./main/host": "main/host/host-server.ts",
  "./main/cli": "main/cli/watch-format.ts",
  "./renderer": "renderer/lib/card-ref.ts",
  "./preload": "preload/bridge.ts",
  "./test": "test/harness/until.ts",
  "./bench": "bench/all.ts",
  "./scripts": "scripts/test-count.ts",
};
const ALLOWED = "common/truncate.ts";

type Zone = { target: string; from: string[] };
type ElectronZone = { files: string[]; forbidden: string[] };
const { LAYER_ZONES, ELECTRON_ZONES } = (await import(join(root, "eslint.config.js"))) as {
  LAYER_ZONES: Zone[];
  ELECTRON_ZONES: ElectronZone[];
};
const eslint = new ESLint({ cwd: root });

/** The import of `module` from a probe at `probe`, as a relative specifier. */
function specifier(probe: string, module: string): string {
  const depth = probe.split("/").length - 1;
  return `${"../".repeat(depth)}${module}`;
}

async function ruleFires(probe: string, module: string): Promise<boolean> {
  const code = `import * as probe from "${specifier(probe, module)}";\nexport const used = probe;\n`;
  const [result] = await eslint.lintText(code, { filePath: join(root, probe) });
  return (result?.messages ?? []).some((m) => m.ruleId === "import-x/no-restricted-paths");
}

const failures: string[] = [];
let checked = 0;
for (const zone of LAYER_ZONES) {
  const probe = `${zone.target.slice(2)}/layer-probe.ts`;
  for (const from of zone.from) {
    const module = MODULE_IN[from];
    if (module === undefined || !existsSync(join(root, module))) {
      failures.push(`no module to probe ${from} with (update MODULE_IN in scripts/lint-layers.ts)`);
      continue;
    }
    checked += 1;
    if (!(await ruleFires(probe, module))) failures.push(`${probe} importing ${module} was not rejected`);
  }
  checked += 1;
  if (await ruleFires(probe, ALLOWED)) failures.push(`${probe} importing ${ALLOWED} was rejected, but common/ is open to every layer`);
}

// Electron and the packages that need it: a probe in each zone importing each forbidden package
// (a bare name, or a subpath for the `/*` patterns) must be rejected with no-restricted-imports.
for (const zone of ELECTRON_ZONES) {
  for (const files of zone.files) {
    const probe = `${files.replace(/\/\*\*$/, "")}/layer-probe.ts`;
    for (const pattern of zone.forbidden) {
      const module = pattern.endsWith("/*") ? `${pattern.slice(0, -2)}/probe` : pattern;
      const code = `import * as probe from "${module}";\nexport const used = probe;\n`;
      const [result] = await eslint.lintText(code, { filePath: join(root, probe) });
      checked += 1;
      if (!(result?.messages ?? []).some((m) => m.ruleId === "no-restricted-imports"))
        failures.push(`${probe} importing ${module} was not rejected`);
    }
  }
}
const electronProbe = "main/electron/layer-probe.ts";
for (const module of ["electron", "electron-updater"]) {
  const [result] = await eslint.lintText(`import * as probe from "${module}";\nexport const used = probe;\n`, {
    filePath: join(root, electronProbe),
  });
  checked += 1;
  if ((result?.messages ?? []).some((m) => m.ruleId === "no-restricted-imports"))
    failures.push(`${electronProbe} importing ${module} was rejected`);
}

if (failures.length > 0) {
  console.error(`lint-layers: the layer rule does not hold:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log(
  `lint-layers: ${checked} probes, each forbidden import rejected, common/ open to all, Electron's packages for main/electron only`,
);
