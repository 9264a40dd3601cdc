// Lint rules for the whole tree: typescript-eslint's strict set, Svelte's recommended set, no
// import circles. Formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import importX from "eslint-plugin-import-x";
import svelte from "eslint-plugin-svelte";
import globals from "globals";
import tseslint from "typescript-eslint";

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
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
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
