// Lint rules for the whole tree: typescript-eslint's strict set, Svelte's recommended set, no
// import circles, the layers (LAYER_ZONES). Formatting is Prettier's (eslint-config-prettier
// turns off the rules it owns).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import importX from "eslint-plugin-import-x";
import svelte from "eslint-plugin-svelte";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * Who may not import whom: `common/` stands on nothing of ours; the core knows no shell; each
 * shell (Electron, the browser host, the command line) stands on the core and `common/` only,
 * but the command line may start the browser host; pages and the preload reach the app through
 * `common/` alone. Product code never imports tests, benchmarks or scripts.
 * scripts/lint-layers.ts proves each zone fires.
 */
const TOOLING = ["./test", "./bench", "./scripts"];
export const LAYER_ZONES = [
  { target: "./common", from: ["./main", "./renderer", "./preload", ...TOOLING], message: "common/ imports nothing of the app." },
  {
    target: "./main/core",
    from: ["./main/electron", "./main/host", "./main/cli", "./renderer", "./preload", ...TOOLING],
    message: "the core knows no shell and no page.",
  },
  {
    target: "./main/host",
    from: ["./main/electron", "./main/cli", "./renderer", "./preload", ...TOOLING],
    message: "the host stands on the core only.",
  },
  {
    target: "./main/electron",
    from: ["./main/cli", "./renderer", "./preload", ...TOOLING],
    message: "the Electron shell stands on the core only.",
  },
  {
    target: "./main/cli",
    from: ["./main/electron", "./renderer", "./preload", ...TOOLING],
    message: "the command line stands on the core only.",
  },
  { target: "./renderer", from: ["./main", "./preload", ...TOOLING], message: "pages reach the app through common/ only." },
  { target: "./preload", from: ["./main", "./renderer", ...TOOLING], message: "the preload reaches the app through common/ only." },
];

/**
 * Only the Electron shell runs in Electron: nothing else loads `electron` or the packages that
 * need it at load (electron-updater, electron-store, electron-log's Electron entry); the preload
 * may use `electron` itself. scripts/lint-layers.ts proves this fires too.
 */
const ELECTRON_ONLY = ["electron-updater", "electron-updater/*", "electron-store", "electron-log", "electron-log/*"];
export const ELECTRON_ZONES = [
  {
    files: ["common/**", "main/core/**", "main/host/**", "main/cli/**", "renderer/**"],
    forbidden: ["electron", "electron/*", ...ELECTRON_ONLY],
  },
  { files: ["preload/**"], forbidden: ELECTRON_ONLY },
];

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "release/**",
      "test-results/**",
      "scratch/**",
      "reports/**",
      ".cache/**",
      ".stryker-tmp/**",
      "node_modules/**",
      "test/fixtures/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...svelte.configs.recommended,
  prettier,
  ...svelte.configs.prettier,
  {
    // import-x/no-cycle parses imported .svelte files with the importing file's options: give it the TS script parser.
    languageOptions: { globals: { ...globals.node, ...globals.browser }, parserOptions: { parser: tseslint.parser } },
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [importX.createNodeResolver({ extensions: [".ts", ".js", ".svelte"] })],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"], "svelte-eslint-parser": [".svelte"] },
    },
    rules: {
      // Shared code lives in common/ and the layers import downward only: a circle is a bug.
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      // The layers (docs/architecture.md): each folder imports only the ones below it.
      "import-x/no-restricted-paths": ["error", { zones: LAYER_ZONES }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  ...ELECTRON_ZONES.map(({ files, forbidden }) => ({
    files,
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: forbidden, message: "only main/electron runs in Electron and may load this." }] },
      ],
    },
  })),
  {
    // Tests and benchmarks index fixtures they just built (`rows[0]!`) and type fakes loosely:
    // an assertion that fails there fails the test, which is the point of it.
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-non-null-assertion": "off", "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: [".svelte"] } },
  },
);
