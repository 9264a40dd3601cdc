// Bundle a browser module with Vite's build() API into a temporary directory, so browser
// suites load the real production bundle (minified, dependencies inlined) in the page.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "vite";

export type Bundle = {
  /** The directory holding the output. */
  dir: string;
  /** The output file name, relative to dir. */
  file: string;
  code: string;
  dispose(): Promise<void>;
};

/** Build `entry` (an ES module) as one self-contained ES module named `file`. */
export async function bundleModule(entry: string, file: string, root: string): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), "progress-desk-bundle-"));
  try {
    await build({
      configFile: false,
      root,
      logLevel: "warn",
      mode: "production",
      publicDir: false,
      build: {
        outDir: dir,
        emptyOutDir: false,
        write: true,
        minify: true,
        sourcemap: false,
        target: "es2022",
        reportCompressedSize: false,
        copyPublicDir: false,
        lib: { entry, formats: ["es"], fileName: () => file },
        // As renderer/vite.config.ts: the pages ship without the compress pass.
        rolldownOptions: { output: { minify: { compress: false, mangle: true } } },
      },
    });
    const code = await readFile(join(dir, file), "utf8");
    return { dir, file, code, dispose: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
