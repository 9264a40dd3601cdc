// Packaging: electron-builder.yml is valid for the installed electron-builder (its own JSON
// schema) and says what a menu-bar app needs; scripts/dist.ts signs ad hoc only when no
// identity is configured, records how it signed, passes the update feed on, and electron-builder
// reads its overrides the way we mean them. Nothing here builds.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv } from "ajv";
import {
  AD_HOC,
  NOTARIZE,
  SIGNED_RECORD,
  UNSIGNED_RECORD,
  UPDATE_URL_ENV,
  builderArgs,
  builderEnv,
  downloadFailureHint,
} from "../../scripts/dist.ts";

const root = join(import.meta.dirname, "..", "..");
// js-yaml and plist ship without types; they come with electron-builder, like ajv.
const require = createRequire(import.meta.url);
const yaml = require("js-yaml") as { load(text: string): unknown };
const plist = require("plist") as { parse(xml: string): unknown };

type Target = string | { target: string; arch?: string[] };
type BuilderConfig = {
  appId: string;
  productName: string;
  directories: { output: string; buildResources: string };
  files: string[];
  asar: boolean;
  publish: { provider: string; url: string };
  electronFuses: Record<string, boolean>;
  mac: {
    target: Target[];
    category: string;
    icon: string;
    hardenedRuntime: boolean;
    gatekeeperAssess: boolean;
    entitlements: string;
    entitlementsInherit: string;
    notarize: boolean;
    extendInfo: Record<string, unknown>;
  };
  linux: { target: Target[]; category: string; icon: string; maintainer: string; synopsis: string };
};

const configText = readFileSync(join(root, "electron-builder.yml"), "utf8");
const config = yaml.load(configText) as BuilderConfig;

/** target name → sorted archs ("default" where none are given). */
function targets(list: Target[]): Record<string, string[]> {
  return Object.fromEntries(list.map((t) => (typeof t === "string" ? [t, ["default"]] : [t.target, [...(t.arch ?? ["default"])].sort()])));
}

describe("electron-builder.yml", () => {
  test("validates against app-builder-lib's scheme.json, without type coercion", () => {
    const schema = JSON.parse(readFileSync(join(root, "node_modules", "app-builder-lib", "scheme.json"), "utf8")) as object;
    // app-builder-lib validates with { allErrors, coerceTypes, strict: false }; strict: false
    // lets its union types and custom keywords ("typeof") compile. No coercion here, so a
    // "true" string where a boolean belongs fails instead of passing.
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.ok(validate(config), new Ajv().errorsText(validate.errors, { separator: "\n" }));
    // The schema is closed: a misspelt option does not slip through.
    assert.equal(validate({ ...config, mac: { ...config.mac, hardendRuntime: true } }), false);
  });

  test("names the app and puts only the build, the assets and package.json in an asar", () => {
    assert.equal(config.appId, "org.progressdesk.app");
    assert.equal(config.productName, "Progress Desk");
    assert.deepEqual(config.directories, { output: "release", buildResources: "build" });
    assert.deepEqual(config.files, ["dist/**", "!dist/**/*.map", "assets/**", "package.json"]);
    assert.equal(config.asar, true);
  });

  test("macOS: dmg and zip for arm64 and x64, a menu-bar app under the hardened runtime", () => {
    const mac = config.mac;
    assert.deepEqual(targets(mac.target), { dmg: ["arm64", "x64"], zip: ["arm64", "x64"] });
    assert.equal(mac.extendInfo.LSUIElement, true);
    assert.equal(mac.hardenedRuntime, true);
    assert.equal(mac.gatekeeperAssess, false);
    assert.equal(mac.notarize, false);
    assert.equal(mac.category, "public.app-category.developer-tools");
    assert.equal(mac.icon, "assets/icon.png");
    assert.ok(existsSync(join(root, mac.icon)), mac.icon);
  });

  test("the entitlements allow JIT and nothing else", () => {
    assert.equal(config.mac.entitlements, "build/entitlements.mac.plist");
    assert.equal(config.mac.entitlementsInherit, config.mac.entitlements);
    const entitlements = plist.parse(readFileSync(join(root, config.mac.entitlements), "utf8"));
    assert.deepEqual(entitlements, { "com.apple.security.cs.allow-jit": true });
  });

  test("every fuse is set, to the secure value", () => {
    assert.deepEqual(config.electronFuses, {
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  test("Linux: AppImage and deb with a category, maintainer, synopsis and icon", () => {
    const linux = config.linux;
    assert.deepEqual(targets(linux.target), { AppImage: ["default"], deb: ["default"] });
    assert.equal(linux.category, "Development");
    assert.match(linux.maintainer, /^.+ <[^@\s]+@[^@\s]+>$/);
    assert.ok(linux.synopsis.length > 0 && linux.synopsis.length <= 80);
    assert.ok(existsSync(join(root, linux.icon)), linux.icon);
  });

  test("publishes to a generic feed whose URL is PROGRESS_DESK_UPDATE_URL, expanded by electron-builder at build time", () => {
    assert.deepEqual(config.publish, { provider: "generic", url: "${env.PROGRESS_DESK_UPDATE_URL}" });
    assert.equal(UPDATE_URL_ENV, "PROGRESS_DESK_UPDATE_URL");
    // electron-builder's own macro expansion (internal module; an upgrade that moves it says so).
    const { expandMacro } = require("app-builder-lib/out/util/macroExpander.js") as {
      expandMacro(pattern: string, arch: string | null, appInfo: object): string;
    };
    const saved = process.env[UPDATE_URL_ENV];
    try {
      process.env[UPDATE_URL_ENV] = "https://updates.example.com/desk/";
      assert.equal(expandMacro(config.publish.url, null, {}), "https://updates.example.com/desk/");
      process.env[UPDATE_URL_ENV] = "";
      assert.equal(expandMacro(config.publish.url, null, {}), "", "empty: a build without a feed (scripts/dist.ts)");
      delete process.env.PROGRESS_DESK_UPDATE_URL;
      assert.throws(() => expandMacro(config.publish.url, null, {}), /env PROGRESS_DESK_UPDATE_URL is not defined/);
    } finally {
      if (saved === undefined) delete process.env.PROGRESS_DESK_UPDATE_URL;
      else process.env.PROGRESS_DESK_UPDATE_URL = saved;
    }
  });

  test("the update feed files are written: a zip for macOS (electron-updater's download there) and an AppImage for Linux", () => {
    // electron-builder writes latest-mac.yml from the zip target and latest-linux.yml from the
    // AppImage, whenever a publish configuration exists (as above), whether or not it uploads.
    assert.ok(targets(config.mac.target).zip, "mac: zip");
    assert.ok(targets(config.linux.target).AppImage, "linux: AppImage");
  });

  test("electron-updater is a production dependency, packaged from node_modules (the main process is never bundled)", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      allowScripts: Record<string, unknown>;
    };
    assert.match(pkg.dependencies["electron-updater"] ?? "", /^6\.8\.\d+$/, "an exact 6.8.x version");
    assert.equal(pkg.devDependencies["electron-updater"], undefined, "devDependencies are not packaged");
    assert.ok(!config.files.some((pattern) => pattern.includes("node_modules")), "nothing in files keeps node_modules out");
    assert.ok(!Object.keys(pkg.allowScripts).some((name) => name.includes("electron-updater")), "it needs no install script");
    // The main process is compiled by tsc (the build script's first step); vite bundles only the pages and the preload.
    const build = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
    assert.match(build, /^tsc -p tsconfig\.build\.json && /);
    assert.doesNotMatch(build, /vite build --config main/);
  });

  test("electron-builder's own dependency collector packages electron-updater and every package it requires", async () => {
    // The collector `npm run dist` uses (internal module: an upgrade that moves it says so); it reads `npm ls`.
    const { getCollectorByPackageManager } = require("app-builder-lib/out/node-module-collector/index.js") as {
      getCollectorByPackageManager(
        pm: string,
        dir: string,
        tmp: unknown,
      ): { getNodeModules(o: { packageName: string }): Promise<{ nodeModules: Array<{ name: string; dependencies?: unknown[] }> }> };
    };
    const { TmpDir } = require("builder-util") as { TmpDir: new (name: string) => { cleanup(): Promise<void> } };
    const tmp = new TmpDir("packaging-test");
    try {
      const { nodeModules } = await getCollectorByPackageManager("npm", root, tmp).getNodeModules({ packageName: "progress-desk" });
      const names = new Set<string>();
      const walk = (list: unknown[] | undefined): void => {
        for (const m of (list ?? []) as Array<{ name: string; dependencies?: unknown[] }>) {
          names.add(m.name);
          walk(m.dependencies);
        }
      };
      walk(nodeModules);
      const updater = JSON.parse(readFileSync(join(root, "node_modules", "electron-updater", "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      for (const name of ["electron-updater", ...Object.keys(updater.dependencies)]) assert.ok(names.has(name), `${name} is packaged`);
      assert.ok(!names.has("electron"), "Electron itself is not a packaged module");
      assert.ok(!names.has("electron-builder"), "build tools are not packaged");
    } finally {
      await tmp.cleanup();
    }
  });
});

describe("scripts/dist.ts", () => {
  const user = ["--dir", "--arm64"];

  test("Linux builds --linux with the given arguments", () => {
    assert.deepEqual(builderArgs("linux", {}, user), ["--linux", "--dir", "--arm64"]);
    assert.deepEqual(builderArgs("linux", { CSC_LINK: "cert.p12" }, []), ["--linux"]);
  });

  test("macOS without an identity signs ad hoc, without the hardened runtime", () => {
    assert.deepEqual(builderArgs("darwin", {}, user), ["--mac", "--dir", "--arm64", ...AD_HOC]);
    assert.deepEqual(builderArgs("darwin", { CSC_LINK: "" }, []), ["--mac", ...AD_HOC], "an empty variable is no identity");
  });

  test("macOS with CSC_LINK, CSC_NAME or an explicit identity leaves signing to electron-builder, and records it", () => {
    assert.deepEqual(builderArgs("darwin", { CSC_LINK: "cert.p12" }, user), ["--mac", ...user, SIGNED_RECORD]);
    assert.deepEqual(builderArgs("darwin", { CSC_NAME: "Developer ID Application: Example" }, []), ["--mac", SIGNED_RECORD]);
    assert.deepEqual(builderArgs("darwin", {}, ["--config.mac.identity", "X"]), ["--mac", "--config.mac.identity", "X", SIGNED_RECORD]);
    assert.deepEqual(builderArgs("darwin", {}, ["-c.mac.identity=Developer ID Application: A=B"]), [
      "--mac",
      "-c.mac.identity=Developer ID Application: A=B",
      SIGNED_RECORD,
    ]);
    // identity null: electron-builder does not sign at all.
    assert.deepEqual(builderArgs("darwin", {}, ["-c.mac.identity=null"]), ["--mac", "-c.mac.identity=null", UNSIGNED_RECORD]);
    assert.deepEqual(builderArgs("darwin", {}, ["--config.mac.identity", "null"]), [
      "--mac",
      "--config.mac.identity",
      "null",
      UNSIGNED_RECORD,
    ]);
  });

  test("notarizes only with an identity and a complete set of Apple credentials", () => {
    const id = { CSC_NAME: "Developer ID Application: Example" };
    for (const creds of [
      { APPLE_API_KEY: "k.p8", APPLE_API_KEY_ID: "id", APPLE_API_ISSUER: "iss" },
      { APPLE_ID: "a@example.com", APPLE_APP_SPECIFIC_PASSWORD: "pw", APPLE_TEAM_ID: "T" },
      { APPLE_KEYCHAIN: "kc", APPLE_KEYCHAIN_PROFILE: "p" },
    ]) {
      assert.deepEqual(builderArgs("darwin", { ...id, ...creds }, []), ["--mac", SIGNED_RECORD, ...NOTARIZE]);
      assert.deepEqual(builderArgs("darwin", creds, []), ["--mac", ...AD_HOC], "ad hoc is never notarized");
    }
    assert.deepEqual(builderArgs("darwin", { ...id, APPLE_ID: "a@example.com", APPLE_TEAM_ID: "T" }, []), ["--mac", SIGNED_RECORD]);
  });

  test("the update feed: PROGRESS_DESK_UPDATE_URL passed on when it is an http(s) URL, set empty (no feed) when absent", () => {
    assert.deepEqual(builderEnv({ PATH: "/bin", PROGRESS_DESK_UPDATE_URL: " https://updates.example.com/desk/ " }), {
      env: { PATH: "/bin", PROGRESS_DESK_UPDATE_URL: "https://updates.example.com/desk/" },
      feed: "https://updates.example.com/desk/",
    });
    assert.deepEqual(builderEnv({ PATH: "/bin" }), { env: { PATH: "/bin", PROGRESS_DESK_UPDATE_URL: "" }, feed: null });
    assert.deepEqual(builderEnv({ PROGRESS_DESK_UPDATE_URL: "  " }), { env: { PROGRESS_DESK_UPDATE_URL: "" }, feed: null });
    assert.throws(() => builderEnv({ PROGRESS_DESK_UPDATE_URL: "updates.example.com/desk" }), /must be an http\(s\) URL/);
    assert.throws(() => builderEnv({ PROGRESS_DESK_UPDATE_URL: "file:///srv/feed/" }), /must be an http\(s\) URL/);
  });

  test("refuses other platforms", () => {
    assert.throws(() => builderArgs("win32", {}, []), /macOS or Linux/);
  });

  test('electron-builder reads the ad-hoc overrides as identity "-" and hardened runtime off', async () => {
    // electron-builder's own CLI parser and config loader (internal modules; if an upgrade moves
    // them, this test says so). yargs leaves "false" a string; the schema check coerces it.
    const cli = require("electron-builder/out/builder.js") as {
      createYargs(): unknown;
      configureBuildCommand(y: unknown): { parse(args: string[]): Record<string, unknown> };
      normalizeOptions(args: Record<string, unknown>): { config: Record<string, unknown> };
    };
    const loader = require("app-builder-lib/out/util/config/config.js") as {
      getConfig(projectDir: string, configPath: string | null, overrides: unknown): Promise<BuilderConfig & { mac: { identity?: string } }>;
      validateConfiguration(config: unknown, debug: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    // Keep its "loaded configuration" line out of the test output.
    const { log } = require("builder-util/out/log.js") as { log: { stream: { write(text: string): boolean } } };
    const stream = log.stream;
    log.stream = { write: () => true };
    try {
      const args = builderArgs("darwin", {}, ["--dir"]);
      const { config: overrides } = cli.normalizeOptions(cli.configureBuildCommand(cli.createYargs()).parse(args));
      const merged = await loader.getConfig(root, null, overrides);
      await loader.validateConfiguration(merged, { isEnabled: false, add() {} });
      assert.equal(merged.mac.identity, "-");
      assert.equal(merged.mac.hardenedRuntime, false);
      assert.equal(merged.mac.notarize, false);
      assert.equal(merged.mac.extendInfo.LSUIElement, true, "the YAML still applies");
      assert.deepEqual(
        (merged as { extraMetadata?: unknown }).extraMetadata,
        { progressDeskBuild: { signing: "ad-hoc" } },
        "the signing record",
      );
    } finally {
      log.stream = stream;
    }
  });

  test("electron-builder reads a signed, notarized build's record as the package.json fields the app checks", async () => {
    const cli = require("electron-builder/out/builder.js") as {
      createYargs(): unknown;
      configureBuildCommand(y: unknown): { parse(args: string[]): Record<string, unknown> };
      normalizeOptions(args: Record<string, unknown>): { config: Record<string, unknown> };
    };
    const args = builderArgs(
      "darwin",
      { CSC_NAME: "Developer ID Application: Example", APPLE_KEYCHAIN: "kc", APPLE_KEYCHAIN_PROFILE: "p" },
      [],
    );
    const { config: overrides } = cli.normalizeOptions(cli.configureBuildCommand(cli.createYargs()).parse(args));
    assert.deepEqual(
      overrides.extraMetadata,
      { progressDeskBuild: { signing: "identity", notarized: true } },
      "notarized is a boolean, as the app reads it",
    );
    assert.deepEqual(overrides.mac, { notarize: "true" }, "the schema check coerces this one");
  });

  test("explains a failed download, and tells it from other failures", () => {
    const offline = [
      "  • electron-builder  version=26.17.0",
      "  • packaging       platform=linux arch=x64 electron=45.5.0 appOutDir=release/linux-unpacked",
      "  ⨯ getaddrinfo ENOTFOUND github.com  failedTask=build stackTrace=RequestError: getaddrinfo ENOTFOUND github.com",
    ].join("\n");
    assert.match(downloadFailureHint(offline) ?? "", /could not download Electron/);
    assert.match(downloadFailureHint("\x1b[31m  ⨯ connect ETIMEDOUT 140.82.112.3:443\x1b[0m") ?? "", /could not download Electron/);
    assert.equal(downloadFailureHint('  • packaging\n  ⨯ Application entry file "dist/main/electron/app.js" does not exist'), null);
  });
});
