// The preload runs in a sandboxed renderer, which cannot load ES modules or other files:
// it is bundled into one CommonJS file, with only `electron` left to the sandbox's require.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../dist/preload", import.meta.url)),
    // The shared contract is bundled in; nothing else of tsc's output lives here, but keep the folder as tsc left it.
    emptyOutDir: false,
    target: "es2022",
    minify: false,
    sourcemap: false,
    lib: {
      entry: fileURLToPath(new URL("preload.ts", import.meta.url)),
      formats: ["cjs"],
      fileName: () => "preload.cjs",
    },
    rolldownOptions: { external: ["electron"] },
  },
});
