// The `progress-desk` command as one ES module. Loaded as tsc leaves it, Node resolved and
// compiled some 800 modules before the first line ran (typebox alone is 661 of them): 0.23 s
// of start-up for `--version`, against 0.10 s bundled. `watch` and `host` connect that much
// sooner. `ws` stays a package of its own: its optional native helpers are found by require.
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../dist/cli", import.meta.url)),
    emptyOutDir: true,
    target: "node24",
    minify: false,
    sourcemap: false,
    ssr: fileURLToPath(new URL("../main/cli/progress-desk.ts", import.meta.url)),
    rolldownOptions: {
      external: [...builtinModules, /^node:/, "ws", "electron"],
      output: { format: "esm", entryFileNames: "progress-desk.js" },
    },
  },
  ssr: { noExternal: true, external: ["ws"] },
});
