// Loaded into every test process by scripts/test.ts (with --expose-internals). node:test drops
// a suite skipped as a whole without reporting the tests inside it, so the closing count would
// lose them. Here such a suite is built instead of dropped: its body runs only to declare its
// tests, each test is reported skipped with the suite's reason, and its hooks do nothing (a
// skipped browser suite must not launch a browser). Tests run exactly as before; only what
// node:test would have hidden becomes visible.
//
// This patches node:test's internal Test class. Should Node change it, this module throws on
// load, so every file fails loudly; test/unit/test-runner.test.ts checks the count end to end.
import { createRequire } from "node:module";

type Options = Record<string, unknown> & { skip?: unknown };
type Fn = (...args: unknown[]) => unknown;
type Factory = { prototype: object };
type TestNode = {
  createSubtest(factory: Factory, name: unknown, options: unknown, fn: unknown, overrides: unknown): TestNode;
  createHook(name: string, fn: Fn, options: unknown): unknown;
};

const internals = createRequire(import.meta.url)("internal/test_runner/test") as {
  Test?: { prototype: TestNode };
  Suite?: Factory;
};
const { Test, Suite } = internals;
if (typeof Test?.prototype.createSubtest !== "function" || typeof Test.prototype.createHook !== "function" || typeof Suite !== "function") {
  throw new Error(
    `scripts/test-skipped-suites.ts: node:test internals differ in Node ${process.version}; skipped suites cannot be counted`,
  );
}

const SKIPPED_WITH_SUITE = "skipped with its suite";
/** Suites in skip mode, with the reason their tests are reported with. */
const reasons = new WeakMap<object, string>();
/** Reasons of the skip-mode suite bodies now being run (a body declares its tests synchronously). */
const building: string[] = [];

const reasonFor = (node: object): string | undefined => building.at(-1) ?? reasons.get(node);
const isSuite = (factory: Factory): boolean => factory === Suite || factory.prototype instanceof (Suite as unknown as Fn);

const createSubtest = Test.prototype.createSubtest;
Test.prototype.createSubtest = function (this: TestNode, factory, name, options, fn, overrides) {
  // The argument shapes node:test accepts: (fn), (options, fn), (name, fn), (name, options, fn).
  if (typeof name === "function") [fn, options, name] = [name, undefined, undefined];
  else if (name !== null && typeof name === "object") [fn, options, name] = [options, name, undefined];
  else if (typeof options === "function") [fn, options] = [options, undefined];
  const opts: Options = options !== null && typeof options === "object" ? (options as Options) : {};

  // `describe.skip` and `it.skip` say so in the overrides, the options form in the options.
  const extra: Options = overrides !== null && typeof overrides === "object" ? (overrides as Options) : {};

  const inherited = reasonFor(this);
  if (!isSuite(factory)) {
    if (inherited === undefined) return createSubtest.call(this, factory, name, options, fn, overrides);
    return createSubtest.call(this, factory, name, { ...opts, skip: inherited }, fn, { ...extra, skip: inherited });
  }
  const skip = extra.skip || opts.skip;
  const own = skip ? (typeof skip === "string" ? skip : SKIPPED_WITH_SUITE) : undefined;
  const reason = inherited ?? own;
  if (reason === undefined) return createSubtest.call(this, factory, name, options, fn, overrides);
  const body = typeof fn === "function" ? (fn as Fn) : () => undefined;
  const declare = function (this: unknown, ...args: unknown[]): unknown {
    building.push(reason);
    try {
      return body.apply(this, args);
    } finally {
      building.pop();
    }
  };
  const suite = createSubtest.call(this, factory, name, { ...opts, skip: false }, declare, { ...extra, skip: false });
  reasons.set(suite, reason); // for tests a body declares after an await
  return suite;
};

const createHook = Test.prototype.createHook;
Test.prototype.createHook = function (this: TestNode, name, fn, options) {
  return createHook.call(this, name, reasonFor(this) === undefined ? fn : () => undefined, options);
};
