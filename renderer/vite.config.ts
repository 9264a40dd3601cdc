// The renderer's three pages, built for a strict CSP (no inline script or style, no eval):
// Svelte's CSS goes to files, every script is an external module.
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "./",
  publicDir: false,
  plugins: [svelte({ compilerOptions: { css: "external" } })],
  build: {
    outDir: "../dist/renderer",
    emptyOutDir: true,
    // Electron's Chromium and, through the browser host, any current browser (Safari included).
    target: "es2022",
    // The polyfill would be code in the page; every runtime here has modulepreload.
    modulePreload: { polyfill: false },
    // Never inline assets as data: URLs into scripts or styles.
    assetsInlineLimit: 0,
    cssCodeSplit: true,
    sourcemap: false,
    rolldownOptions: {
      input: {
        popover: fileURLToPath(new URL("popover.html", import.meta.url)),
        dashboard: fileURLToPath(new URL("dashboard.html", import.meta.url)),
        settings: fileURLToPath(new URL("settings.html", import.meta.url)),
      },
      // Names shortened and white space dropped, but no compress pass: it rewrites the
      // small argument-forwarding helper DOMPurify calls for every DOM access into a
      // spread V8 cannot optimise, which made sanitizing a note about 2.3× slower.
      output: { minify: { compress: false, mangle: true } },
    },
  },
});
