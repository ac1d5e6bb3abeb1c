/**
 * Hostile input: the shared corpus test/cases/hostile.json (also run by the command line
 * tests), every public entry point against values no JSON parser makes (throwing getters, Proxies
 * whose traps throw, revoked Proxies, frozen and null-prototype objects, symbol keys, array holes),
 * and fast-check properties with fast-check's dangerous strings as keys in args and results: only
 * RefErrors are thrown, no global prototype changes (@fast-check/poisoning), inputs stay as they
 * were, and every resolved value is what an own-property oracle finds. Also the parser's hardening:
 * long `??` chains, maxRefLength only for strings that could be placeholders, frozen cached ASTs.
 */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RefAst } from "../../src/grammar/ast.js";
import { formatRef } from "../../src/grammar/format.js";
import { isPlaceholder, parseRef, parseTemplate, tryParseRef } from "../../src/grammar/parse.js";
import * as rootApi from "../../src/index.js";
import * as planApi from "../../src/plan/index.js";
import * as lintApi from "../../src/lint/index.js";
import * as editorApi from "../../src/editor/index.js";
import * as grammarApi from "../../src/grammar/index.js";
import * as resolveApi from "../../src/resolve/index.js";
import type { Results } from "../../src/resolve/access.js";
import { compileArgs } from "../../src/resolve/compile-args.js";
import { evaluate } from "../../src/resolve/evaluate.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { KeyError, RefError, RefSyntaxError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import type { RunOptions } from "../../src/run/run-plan.js";
import { argsOf, resultsOf, runResolveCase, thrownBy } from "../helpers/cases.js";
import { Boom, fingerprint, getterObject, hostileCases, ownObject, revokedProxy, throwingProxy } from "../helpers/hostile.js";

/** Every public entry point: the root and the subpaths whose functions take text or plans. */
const library = { ...grammarApi, ...resolveApi, ...planApi, ...lintApi, ...editorApi, ...rootApi };
// ---------------------------------------------------------------------------------------------
// No global may change. @fast-check/poisoning records the globals when it is first imported: it is
// imported once lazy globals (AbortController…) are materialized, and vitest's and Stryker's own
// globals and the console (which a failing assertion writes to) are not tracked.

let poisoning: typeof import("@fast-check/poisoning");
const ignoredRootRegex = /^(__vitest|__stryker|console$)/;

beforeAll(async () => {
  for (const key of Reflect.ownKeys(globalThis)) {
    try {
      void (globalThis as Record<PropertyKey, unknown>)[key];
    } catch {
      // A global that cannot be read is simply not materialized.
    }
  }
  poisoning = await import("@fast-check/poisoning");
});

/** The full scan of every global (some 20 ms): at the end of each property and of the file. */
function expectNoPoisoning(): void {
  try {
    poisoning.assertNoPoisoning({ ignoredRootRegex });
  } finally {
    poisoning.restoreGlobals({ ignoredRootRegex });
  }
}

afterAll(expectNoPoisoning);

/** Cheap checks after every call and generated run (the full scan runs after each property and at the end). */
function expectNoPrototypeChange(): void {
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(Object.getPrototypeOf([])).toBe(Array.prototype);
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(OBJECT_PROTOTYPE_KEYS);
}
const OBJECT_PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

// ---------------------------------------------------------------------------------------------
// `npm test` runs the in-process files a second time as the `no-proto` project, under `node --disable-proto=throw` (npm run test:no-proto)

test("the flag --disable-proto=throw is in force exactly when the suite runs as test:no-proto", () => {
  const read = (): unknown => (({}) as { __proto__?: unknown }).__proto__;
  if (process.env["PLAN_REFS_NO_PROTO"] === "1") expect(read).toThrow(/disable-proto/);
  else expect(read()).toBe(Object.prototype);
});

// ---------------------------------------------------------------------------------------------
// The shared corpus

const rows = hostileCases();

/** Characters of text plus values in an input, counted without recursion: over SLOW_INPUT, a row's tests are tagged `slow`. */
function weight(value: unknown): number {
  let total = 0;
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    total += typeof item === "string" ? item.length + 1 : 1;
    if (typeof item === "object" && item !== null) pending.push(...Object.values(item));
  }
  return total;
}
const SLOW_INPUT = 100_000;
const isSlowRow = (row: (typeof rows)[number]): boolean => weight([argsOf(row), resultsOf(row)]) > SLOW_INPUT;
/** `[name, row]` tuples of the rows that `keep` keeps, split into the quick ones and the slow ones. */
function byWeight(keep: (row: (typeof rows)[number]) => boolean) {
  const kept = rows.filter(keep).map((row) => [row.name, row] as const);
  return { quick: kept.filter(([, row]) => !isSlowRow(row)), slow: kept.filter(([, row]) => isSlowRow(row)) };
}

describe("hostile.json through the library", () => {
  // Names as tuples: "$name" would be cut at 40 characters, and rows would share names.
  const all = byWeight(() => true);
  const checkRow = (_name: string, row: (typeof rows)[number]): void => {
    const args = argsOf(row);
    const results = resultsOf(row);
    const before = [fingerprint(args), fingerprint(results)];
    runResolveCase(row);
    expect([fingerprint(args), fingerprint(results)]).toEqual(before);
    expectNoPrototypeChange();
  };
  test.each(all.quick)("%s", checkRow);
  test.each(all.slow)("%s", { tags: ["slow"] }, checkRow);

  const compilable = byWeight((row) => row.error?.code !== "invalid-args");
  const checkCompiled = (_name: string, row: (typeof rows)[number]): void => {
    const args = argsOf(row) as Record<string, unknown>;
    const results = resultsOf(row) as Results;
    const outcome = (run: () => unknown): unknown => {
      try {
        return { ok: run() };
      } catch (error) {
        expect(error).toBeInstanceOf(RefError);
        return { code: (error as RefError).code, message: (error as RefError).message };
      }
    };
    expect(outcome(() => compileArgs(args, row.options)(results))).toEqual(outcome(() => resolveRefs(args, results, row.options)));
  };
  test.each(compilable.quick)("compileArgs agrees: %s", checkCompiled);
  test.each(compilable.slow)("compileArgs agrees: %s", { tags: ["slow"] }, checkCompiled);
});

// ---------------------------------------------------------------------------------------------
// Values JSON cannot express, at every public entry point

/** A Map whose own methods throw: plan-refs reads Maps through Map.prototype, never through them. */
class ThrowingMap extends Map<unknown, unknown> {
  override get(): never {
    throw new Boom("get");
  }
  override has(): never {
    throw new Boom("has");
  }
}

/** The two deepest hostile values; an entry point's tests with them are tagged `slow`. */
const NESTED = "20,000 nested";

/** The hostile values, made fresh for each use (a revoked Proxy cannot be un-revoked). */
const hostileValues: [string, (calls: { count: number }) => unknown][] = [
  ["a Proxy whose traps throw", () => throwingProxy()],
  ["an array Proxy whose traps throw", () => throwingProxy([])],
  ["a function Proxy whose traps throw", () => throwingProxy(() => undefined)],
  ["a revoked Proxy", () => revokedProxy()],
  ["a revoked array Proxy", () => revokedProxy([])],
  [
    "an object of throwing getters",
    (calls) =>
      getterObject(
        ["q", "1", "0", "a", "steps", "id", "tool", "args", "syntax", "templates", "deep", "strict", "maxDepth", "type", "path", "span"],
        calls,
      ),
  ],
  [
    "an array with a throwing getter and holes",
    (calls) => Object.defineProperty(new Array(4), "1", { get: () => (calls.count++, "$1"), enumerable: true }),
  ],
  ["a frozen object", () => Object.freeze({ q: "$1", 1: Object.freeze({ a: 1 }) })],
  [
    "a null-prototype object with a __proto__ key",
    () => Object.assign(Object.create(null) as object, { q: "$1.a" }, ownObject([["__proto__", "$1"]])),
  ],
  ["symbol keys", () => ({ [Symbol("q")]: "$1", q: "$1", [Symbol.toPrimitive]: () => "$1" })],
  ["a sparse array", () => [, , "$1", ,]],
  ["a Map subclass with throwing methods", () => new ThrowingMap([[1, { a: 1 }]])],
  [
    "a Map whose size throws",
    () =>
      Object.defineProperty(new Map([[1, "x"]]), "size", {
        get: () => {
          throw new Boom("size");
        },
      }),
  ],
  [
    "an object with a throwing toString",
    () => ({
      toString: () => {
        throw new Boom("toString");
      },
      valueOf: () => {
        throw new Boom("valueOf");
      },
    }),
  ],
  ["a BigInt", () => 10n],
  ["a Symbol", () => Symbol("s")],
  ["a function", () => () => "$1"],
  [
    `${NESTED} objects`,
    () => {
      let value: unknown = "$1";
      for (let i = 0; i < 20_000; i++) value = { q: value };
      return value;
    },
  ],
  [
    `${NESTED} arrays`,
    () => {
      let value: unknown = "$1";
      for (let i = 0; i < 20_000; i++) value = [value];
      return value;
    },
  ],
  [
    "a cycle",
    () => {
      const value: Record<string, unknown> = { q: "$1" };
      value["self"] = value;
      return value;
    },
  ],
  ["undefined", () => undefined],
  ["null", () => null],
];

const ast = (): RefAst => parseRef("$1.a");
const plan = {
  steps: [
    { id: 1, tool: "t", args: { q: "x" } },
    { id: 2, tool: "t", args: { q: "$1" } },
  ],
};
const planText = JSON.stringify(plan);

/**
 * Each entry point with one argument replaced by the hostile value. `neverThrows`: documented never
 * to throw at all (results as data); the others may throw, but only RefErrors. `readsLikeJs`: takes a
 * value a program builds (an AST, an iterable of names, edits) and reads it as JavaScript does (a getter
 * in it runs; what it throws still comes out as a RefError).
 */
const entryPoints: { name: string; neverThrows?: boolean; readsLikeJs?: boolean; call: (hostile: unknown) => unknown }[] = [
  { name: "resolveRefs(args)", call: (h) => resolveRefs(h as Record<string, unknown>, { 1: { a: 1 } }) },
  { name: "resolveRefs(args, deep)", call: (h) => resolveRefs({ q: h }, { 1: { a: 1 } }, { deep: true, templates: true }) },
  { name: "resolveRefs(results)", call: (h) => resolveRefs({ a: "$1.a", b: "$0", c: "$1" }, h as Results, { syntax: "path" }) },
  { name: "resolveRefs(a result)", call: (h) => resolveRefs({ a: "$1.a.b", b: "$1[1]" }, { 1: h }, { syntax: "path" }) },
  { name: "resolveRefs(a result) in a template", call: (h) => resolveRefs({ a: "<${1}>" }, { 1: h }, { templates: true }) },
  { name: "resolveRefs(options)", call: (h) => resolveRefs({ q: "$1" }, { 1: 1 }, h as ResolveOptions) },
  { name: "compileArgs(args)", call: (h) => compileArgs(h as Record<string, unknown>, { deep: true })({ 1: 1 }) },
  { name: "compileArgs(results)", call: (h) => compileArgs({ q: "$1.a" })(h as Results) },
  { name: "compileArgs(options)", call: (h) => compileArgs({ q: "$1" }, h as ResolveOptions)({ 1: 1 }) },
  { name: "evaluate(ast)", readsLikeJs: true, call: (h) => evaluate(h as RefAst, { 1: 1 }) },
  { name: "evaluate(results)", call: (h) => evaluate(ast(), h as Results) },
  { name: "evaluate(options)", call: (h) => evaluate(ast(), { 1: { a: 1 } }, h as { maxDepth: number }) },
  { name: "parseRef(text)", call: (h) => parseRef(h as string) },
  { name: "parseRef(options)", call: (h) => parseRef("$1", h as ResolveOptions) },
  { name: "tryParseRef(options)", neverThrows: true, call: (h) => tryParseRef("$1", h as ResolveOptions) },
  { name: "tryParseRef(text)", neverThrows: true, call: (h) => tryParseRef(h as string) },
  { name: "parseTemplate(text)", call: (h) => parseTemplate(h as string) },
  { name: "parseTemplate(options)", call: (h) => parseTemplate("a ${1}", h as ResolveOptions) },
  { name: "isPlaceholder(value)", neverThrows: true, call: (h) => isPlaceholder(h) },
  { name: "isPlaceholder(options)", call: (h) => isPlaceholder("$1", h as ResolveOptions) },
  { name: "formatRef(ast)", readsLikeJs: true, call: (h) => formatRef(h as RefAst) },
  { name: "walkAst(ast)", readsLikeJs: true, call: (h) => library.walkAst(h as RefAst, () => undefined) },
  { name: "referencesIn(ast)", readsLikeJs: true, call: (h) => library.referencesIn(h as RefAst) },
  { name: "setParseCacheSize(size)", call: (h) => library.setParseCacheSize(h as number) },
  { name: "readPlan(plan)", neverThrows: true, call: (h) => library.readPlan(h) },
  { name: "readPlan(steps)", neverThrows: true, call: (h) => library.readPlan({ steps: h }) },
  { name: "readPlan(a step)", neverThrows: true, call: (h) => library.readPlan({ steps: [h] }) },
  { name: "readTools(catalog)", neverThrows: true, call: (h) => library.readTools(h, () => undefined) },
  { name: "planGraph(plan)", call: (h) => library.planGraph(h) },
  { name: "planGraph(args)", call: (h) => library.planGraph({ steps: [{ id: 1, tool: "t", args: h }] }) },
  { name: "planGraph(options)", call: (h) => library.planGraph(plan, h as ResolveOptions) },
  { name: "scanArgs(args)", neverThrows: true, call: (h) => library.scanArgs(h) },
  { name: "scanArgs(options)", call: (h) => library.scanArgs({ q: "$1" }, h as ResolveOptions) },
  { name: "parseJsonText(text)", neverThrows: true, call: (h) => library.parseJsonText(h as string) },
  { name: "lintPlan(plan)", neverThrows: true, call: (h) => library.lintPlan(h) },
  { name: "lintPlan(args)", neverThrows: true, call: (h) => library.lintPlan({ steps: [{ id: 1, tool: "t", args: h }] }) },
  { name: "lintPlan(options)", neverThrows: true, call: (h) => library.lintPlan(plan, h as ResolveOptions) },
  { name: "lintPlan(tools)", neverThrows: true, call: (h) => library.lintPlan(plan, { tools: h as ToolCatalog }) },
  { name: "lintPlanText(text)", neverThrows: true, call: (h) => library.lintPlanText(h as string) },
  { name: "lintPlanText(options)", neverThrows: true, call: (h) => library.lintPlanText(planText, h as ResolveOptions) },
  { name: "didYouMean(name)", call: (h) => library.didYouMean(h as string, ["city"]) },
  { name: "didYouMean(candidates)", readsLikeJs: true, call: (h) => library.didYouMean("ctiy", h as string[]) },
  { name: "walkSchema(schema)", call: (h) => library.walkSchema(h, [{ kind: "key", name: "a" }]) },
  { name: "walkSchema(path)", call: (h) => library.walkSchema({ type: "object" }, h as []) },
  { name: "tokenize(text)", neverThrows: true, call: (h) => library.tokenize(h as string) },
  { name: "tokenize(options)", neverThrows: true, call: (h) => library.tokenize("$1.a", h as ResolveOptions) },
  { name: "documentTokens(text)", neverThrows: true, call: (h) => library.documentTokens(h as string) },
  { name: "completionsAt(offset)", neverThrows: true, call: (h) => library.completionsAt(planText, h as number) },
  { name: "hoverAt(options)", neverThrows: true, call: (h) => library.hoverAt(planText, 60, h as ResolveOptions) },
  { name: "renameStep(ids)", neverThrows: true, call: (h) => library.renameStep(planText, h as number, 3) },
  { name: "applyTextEdits(edits)", neverThrows: true, readsLikeJs: true, call: (h) => library.applyTextEdits("$1.a", h as []) },
];

describe("every entry point, every hostile value: a value or a RefError, never a raw error", () => {
  // Entry points outside src/grammar and src/resolve (plan, lint, editor) are tagged `other-layers`.
  const core = new Set([...Object.keys(grammarApi), ...Object.keys(resolveApi)]);
  const table = entryPoints.flatMap((entry) =>
    hostileValues.map(([label, make]) => {
      const tags = [...(label.startsWith(NESTED) ? ["slow"] : []), ...(core.has(entry.name.split("(")[0]!) ? [] : ["other-layers"])];
      return { name: `${entry.name} with ${label}`, entry, make, tags: tags.join(" ") };
    }),
  );
  type Row = (typeof table)[number];
  const check = (_name: string, { entry, make }: Row): void => {
    const calls = { count: 0 };
    let thrown: unknown;
    try {
      entry.call(make(calls));
    } catch (error) {
      thrown = error;
    }
    if (entry.neverThrows) expect(thrown).toBeUndefined();
    if (thrown !== undefined) {
      expect(thrown).toBeInstanceOf(RefError);
      const error = thrown as RefError;
      expect(error.code).toMatch(/^[a-z]+(-[a-z]+)*$/);
      // A getter or trap that threw is the cause of an `access` error; so is a revoked Proxy's TypeError.
      if (error.cause instanceof Boom || error.cause instanceof TypeError) expect(error.code).toBe("access");
    }
    // Getters in args, results, plans and catalogs are never invoked (an options object is read like options).
    if (!entry.name.includes("options") && entry.readsLikeJs !== true) expect(calls.count).toBe(0);
    expectNoPrototypeChange();
  };
  for (const tags of new Set(table.map((item) => item.tags))) {
    const rowsTagged = table.filter((item) => item.tags === tags).map((item) => [item.name, item] as const);
    test.each(rowsTagged)("%s", { tags: tags === "" ? [] : tags.split(" ") }, check);
  }

  test("a throwing getter in results becomes code access with the original error as cause", () => {
    const boom = new Boom("mine");
    const result = Object.defineProperty({}, "a", { get: () => ({}) });
    const proxy = new Proxy(
      { a: 1 },
      {
        getOwnPropertyDescriptor: () => {
          throw boom;
        },
      },
    );
    expect(() => resolveRefs({ q: "$1.a" }, { 1: result })).toThrow(KeyError); // a getter is missing, never called
    const error = thrownBy(() => resolveRefs({ q: "$1.a" }, { 1: proxy })) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.cause).toBe(boom);
    expect(error.arg).toBe("/q");
  });

  test("options whose getter throws are code access with the original error as cause", () => {
    const boom = new Boom("option");
    const options = Object.defineProperty({}, "syntax", {
      get: () => {
        throw boom;
      },
      enumerable: true,
    });
    for (const call of [
      () => resolveRefs({}, {}, options),
      () => parseRef("$1", options),
      () => isPlaceholder("$1", options),
      () => parseTemplate("x", options),
      () => compileArgs({}, options),
      () => library.planGraph(plan, options),
    ]) {
      const error = thrownBy(call) as RefError;
      expect(error.code).toBe("access");
      expect(error.cause).toBe(boom);
    }
    const result = tryParseRef("$1", options);
    expect(result.ok === false && result.error.code === "access" && result.error.cause === boom).toBe(true);
  });

  test("something thrown that cannot even be described (a Proxy thrown by a trap) is still a RefError", () => {
    const thrownProxy = throwingProxy();
    const results = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw thrownProxy;
        },
      },
    );
    const error = thrownBy(() => resolveRefs({ q: "$1" }, results)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.cause).toBe(thrownProxy);
  });

  test(
    "runPlan: hostile tools, results and options end as StepErrors or a RefError rejection, never a crash",
    { tags: ["other-layers"] },
    async () => {
      const outputs: [string, () => unknown][] = [
        [
          "throws a Proxy",
          () => {
            throw throwingProxy();
          },
        ],
        ["returns a Proxy", () => throwingProxy()],
        ["returns a revoked Proxy", () => revokedProxy()],
        ["rejects with a Proxy", () => Promise.reject(throwingProxy())],
        [
          "throws a Symbol",
          () => {
            throw Symbol("s");
          },
        ],
        [
          "returns a thenable whose then getter throws",
          () => ({
            get then() {
              throw new Boom("then");
            },
          }),
        ],
        [
          "returns an object whose getter throws",
          () => ({
            get a() {
              throw new Boom("a");
            },
          }),
        ],
      ];
      const catalog = { t: { output: { type: "object", properties: { a: { type: "number" } }, required: ["a"] } }, u: {} };
      for (const [name, tool] of outputs) {
        for (const options of [{}, { validateOutputs: true, catalog }]) {
          const report = await library.runPlan(
            {
              steps: [
                { id: 1, tool: "t", args: {} },
                { id: 2, tool: "u", args: { q: "$1.a" } },
              ],
            },
            { t: tool, u: (args: Record<string, unknown>) => args["q"] },
            options,
          );
          expect(report.status, name).toBe("failed");
          for (const error of report.errors.values()) expect(error, name).toBeInstanceOf(library.StepError);
        }
      }
      for (const hostile of [
        throwingProxy(),
        revokedProxy(),
        getterObject(["concurrency", "timeoutMs", "signal", "onEvent", "catalog", "syntax"], { count: 0 }),
        null,
      ]) {
        await expect(library.runPlan(plan, { t: () => 1 }, hostile as RunOptions)).rejects.toBeInstanceOf(RefError);
        // A plan that cannot be read: an invalid report, or a RefError when not even its kind can be told.
        const outcome = await library.runPlan(hostile, { t: () => 1 }).then(
          (report) => report.status,
          (error: unknown) => (error instanceof RefError ? "RefError" : error),
        );
        expect(["invalid", "RefError"]).toContain(outcome);
      }
      expectNoPrototypeChange();
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Properties with fast-check's dangerous strings

/** fast-check's own list of dangerous property names, and a few more that JavaScript treats specially. */
const dangerousKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "then",
  "toJSON",
  "length",
  "name",
  "apply",
  "call",
  "bind",
  "size",
  "get",
  "has",
  "0",
  "1",
  "-0",
  "01",
  "1e3",
  "NaN",
  "",
);
/** Keys of every kind, dangerous ones often (fast-check's strings also inject them on their own). */
const keyArb = fc.oneof(
  { weight: 4, arbitrary: dangerousKey },
  { weight: 2, arbitrary: fc.string({ maxLength: 5 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 3 }) },
);

/** Values of every kind: null-prototype objects, Maps, sparse arrays, boxed values, dates, BigInts, "[object Object]" strings. */
const valueArb = fc.anything({
  key: keyArb,
  maxDepth: 3,
  maxKeys: 5,
  withObjectString: true,
  withNullPrototype: true,
  withMap: true,
  withSet: true,
  withSparseArray: true,
  withBoxedValues: true,
  withDate: true,
  withBigInt: true,
  withTypedArray: true,
});

/** Containers more often than not, so that paths have something to walk into. */
const containerArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.object({
      key: keyArb,
      maxDepth: 3,
      maxKeys: 5,
      withNullPrototype: true,
      withMap: true,
      withSparseArray: true,
      withObjectString: true,
      withBoxedValues: true,
    }),
  },
  { weight: 1, arbitrary: fc.array(valueArb, { maxLength: 4 }) },
  { weight: 1, arbitrary: valueArb },
);

/** Step results: a plain or null-prototype object, a Map or an array, with dangerous keys beside the steps. */
const resultsArb: fc.Arbitrary<Results> = fc.oneof(
  fc.dictionary(fc.oneof({ weight: 3, arbitrary: fc.constantFrom("0", "1", "2", "01") }, { weight: 1, arbitrary: keyArb }), containerArb, {
    minKeys: 1,
    maxKeys: 4,
  }),
  fc.dictionary(fc.oneof({ weight: 3, arbitrary: fc.constantFrom("0", "1", "2") }, { weight: 1, arbitrary: keyArb }), containerArb, {
    minKeys: 1,
    maxKeys: 4,
    noNullPrototype: false,
  }),
  fc.array(fc.tuple(fc.nat({ max: 3 }), containerArb), { minLength: 1, maxLength: 4 }).map((entries) => new Map<number, unknown>(entries)),
  fc.array(containerArb, { minLength: 1, maxLength: 4 }),
);

type Step = { readonly kind: "key"; readonly name: string } | { readonly kind: "index"; readonly index: number };
type Found =
  | { readonly found: true; readonly value: unknown }
  | { readonly found: false; readonly code: "missing-step" | "missing-key" | "not-indexable" };

/** A path that follows the value where it can (so that lookups succeed often), with dangerous detours. */
function pathInto(value: unknown, choices: readonly number[], detours: readonly (string | null)[]): Step[] {
  const path: Step[] = [];
  let at = value;
  choices.forEach((choice, i) => {
    const detour = detours[i] ?? null;
    if (Array.isArray(at) && detour === null) {
      path.push({ kind: "index", index: at.length === 0 ? choice % 3 : choice % (at.length + 1) });
      at = at[path[path.length - 1]!.kind === "index" ? (path[path.length - 1] as { index: number }).index : 0];
      return;
    }
    let keys: string[];
    try {
      keys =
        at instanceof Map
          ? [...at.keys()].filter((key): key is string => typeof key === "string")
          : typeof at === "object" && at !== null
            ? Object.keys(at)
            : [];
    } catch {
      keys = [];
    }
    const name = detour ?? keys[choice % Math.max(keys.length, 1)] ?? "constructor";
    path.push({ kind: "key", name });
    at =
      at instanceof Map
        ? at.get(name)
        : typeof at === "object" && at !== null && Object.hasOwn(at, name)
          ? (at as Record<string, unknown>)[name]
          : undefined;
  });
  return path;
}

/** The oracle: own data properties of plain objects, Map entries, elements of plain arrays; nothing else. */
function oracle(results: Results, step: string, path: readonly Step[]): Found {
  const own = (container: object, key: string): Found => {
    const descriptor = Object.getOwnPropertyDescriptor(container, key);
    return descriptor !== undefined && "value" in descriptor
      ? { found: true, value: descriptor.value }
      : { found: false, code: "missing-key" };
  };
  let current: Found;
  // Steps are matched by their canonical digits: "01" is step 1.
  step = step.replace(/^0+(?=[0-9])/, "");
  if (results instanceof Map) {
    current = results.has(Number(step))
      ? { found: true, value: results.get(Number(step)) }
      : results.has(step)
        ? { found: true, value: results.get(step) }
        : { found: false, code: "missing-step" };
  } else {
    current = own(results, step);
    if (!current.found) current = { found: false, code: "missing-step" };
  }
  for (const segment of path) {
    if (!current.found) return current;
    const value = current.value;
    if (segment.kind === "index") {
      current =
        Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype
          ? own(value, String(segment.index))
          : { found: false, code: "not-indexable" };
    } else if (value instanceof Map) {
      current = value.has(segment.name) ? { found: true, value: value.get(segment.name) } : { found: false, code: "missing-key" };
    } else if (
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)
    ) {
      current = own(value, segment.name);
    } else {
      current = { found: false, code: "not-indexable" };
    }
  }
  return current;
}

/** The placeholder text of a step and path: seed for a single key, path syntax otherwise, sometimes as a template. */
function placeholderText(
  step: string,
  path: readonly Step[],
  form: "seed" | "path" | "template",
): { text: string; options: ResolveOptions } {
  if (form === "seed") return { text: path.length === 0 ? `$${step}` : `$${step}.${(path[0] as { name: string }).name}`, options: {} };
  const segments = path.map((segment) => (segment.kind === "index" ? `[${segment.index}]` : `[${JSON.stringify(segment.name)}]`)).join("");
  return form === "path"
    ? { text: `$${step}${segments}`, options: { syntax: "path" } }
    : { text: `\${${step}${segments}}`, options: { syntax: "path", templates: true } };
}

/** The step ids that have a result (digits only), or "1" when none has. */
function stepsOf(results: Results): string[] {
  const keys = results instanceof Map ? [...results.keys()].map(String) : Object.keys(results);
  const steps = keys.filter((key) => /^(?:0|[1-9][0-9]*)$/.test(key));
  return steps.length === 0 ? ["1"] : steps;
}

const lookupArb = resultsArb.chain((results) =>
  fc.record({
    results: fc.constant(results),
    // Mostly a step that has a result (sometimes written with a leading zero), sometimes any.
    step: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...stepsOf(results)).chain((id) => fc.constantFrom(id, `0${id}`)) },
      { weight: 1, arbitrary: fc.constantFrom("0", "1", "2", "01", "3") },
    ),
    choices: fc.array(fc.nat(), { maxLength: 3 }),
    detours: fc.array(fc.option(keyArb, { freq: 3 }), { maxLength: 3 }),
    form: fc.constantFrom("seed" as const, "path" as const, "template" as const),
    argName: keyArb,
  }),
);

describe("properties with dangerous keys in args and results", () => {
  test("an own-property oracle agrees with every resolved value; only KeyErrors for what it cannot find", () => {
    fc.assert(
      fc.property(lookupArb, ({ results, step, choices, detours, form, argName }) => {
        const stepValue = oracle(results, step, []);
        let path = pathInto(stepValue.found ? stepValue.value : undefined, choices, detours);
        // Seed syntax reads one key, and a key that is not empty.
        if (form === "seed") path = path.slice(0, 1).filter((segment) => segment.kind === "key" && segment.name !== "");
        const { text, options } = placeholderText(step, path, form);
        const args = ownObject([[argName, text]]);
        const before = [fingerprint(args), fingerprint(results)];
        const expected = oracle(results, step, path);
        let output: Record<string, unknown> | undefined;
        let thrown: unknown;
        try {
          output = resolveRefs(args, results, options);
        } catch (error) {
          thrown = error;
        }
        if (expected.found) {
          expect(thrown).toBeUndefined();
          expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
          expect(Object.keys(output!)).toEqual([argName]);
          expect(Object.is(Object.getOwnPropertyDescriptor(output, argName)?.value, expected.value)).toBe(true);
        } else {
          expect(thrown).toBeInstanceOf(KeyError);
          expect((thrown as KeyError).code).toBe(expected.code);
        }
        expect([fingerprint(args), fingerprint(results)]).toEqual(before);
        expectNoPrototypeChange();
      }),
      { numRuns: 300 },
    );
    expectNoPoisoning();
  });

  test("arbitrary values with dangerous keys as args and results: only RefErrors, inputs unchanged, outputs own-keyed", () => {
    const optionsArb = fc.record({
      syntax: fc.constantFrom("seed" as const, "path" as const),
      templates: fc.boolean(),
      deep: fc.boolean(),
      strict: fc.boolean(),
    });
    const placeholderLike = fc.stringMatching(
      /^\$[0-9]{1,2}((\.|\[")(__proto__|constructor|toString|valueOf|prototype|length|[a-z]{1,3})("\])?){0,3}$/,
    );
    const argValue = fc.oneof(
      valueArb,
      placeholderLike,
      placeholderLike.map((text) => `x \${${text.slice(1)}} y`),
    );
    fc.assert(
      fc.property(fc.dictionary(keyArb, argValue, { maxKeys: 4 }), resultsArb, optionsArb, (args, results, options) => {
        const before = [fingerprint(args), fingerprint(results)];
        for (const run of [() => resolveRefs(args, results, options), () => compileArgs(args, options)(results)]) {
          try {
            const output = run();
            expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
            expect(Object.keys(output)).toEqual(Object.keys(args));
            for (const key of Object.keys(args)) expect(Object.getOwnPropertyDescriptor(output, key)).toBeDefined();
          } catch (error) {
            expect(error).toBeInstanceOf(RefError);
          }
        }
        expect([fingerprint(args), fingerprint(results)]).toEqual(before);
        expectNoPrototypeChange();
      }),
      { numRuns: 300 },
    );
    expectNoPoisoning();
  });

  test("hostile objects mixed into generated args and results: only RefErrors, and getters never run", () => {
    const calls = { count: 0 };
    const usable = hostileValues.filter(([label]) => !label.includes("nested"));
    // fast-check inspects generated values (a revoked Proxy would break it): markers are generated and
    // replaced by the hostile values inside the property, at the top, or one container down.
    const marker = fc.record({ hostile: fc.nat({ max: usable.length - 1 }), wrap: fc.constantFrom("none", "object", "array") });
    type Marker = { hostile: number; wrap: string };
    const isMarker = (value: unknown): value is Marker =>
      typeof value === "object" && value !== null && Object.getPrototypeOf(value) === MarkerBox.prototype;
    class MarkerBox {
      constructor(
        readonly hostile: number,
        readonly wrap: string,
      ) {}
    }
    const mixed = fc.oneof(
      valueArb,
      marker.map(({ hostile, wrap }) => new MarkerBox(hostile, wrap)),
    );
    const materialize = (record: Record<string, unknown>): Record<string, unknown> =>
      ownObject(
        Object.keys(record).map((key) => {
          const value = record[key];
          if (!isMarker(value)) return [key, value];
          const made = usable[value.hostile]![1](calls);
          return [key, value.wrap === "object" ? { a: made } : value.wrap === "array" ? [made] : made];
        }),
      );
    fc.assert(
      fc.property(
        fc.dictionary(keyArb, fc.oneof(mixed, fc.constantFrom("$1", "$1.a", "$0", "${1}")), { maxKeys: 4 }),
        fc.dictionary(fc.constantFrom("0", "1"), mixed, { maxKeys: 2 }),
        fc.boolean(),
        (generatedArgs, generatedResults, deep) => {
          const args = materialize(generatedArgs);
          const results = materialize(generatedResults);
          for (const run of [
            () => resolveRefs(args, results, { deep, templates: true }),
            () => compileArgs(args, { deep, syntax: "path" })(results),
          ]) {
            try {
              run();
            } catch (error) {
              expect(error).toBeInstanceOf(RefError);
            }
          }
          expect(calls.count).toBe(0);
          expectNoPrototypeChange();
        },
      ),
      { numRuns: 200 },
    );
    expectNoPoisoning();
  });
});

// ---------------------------------------------------------------------------------------------
// Parser hardening: long chains, maxRefLength, frozen ASTs

describe("parsing the names of built-in members changes no global", () => {
  // Parsimmon's parse() kept line and column in a plain {} keyed by the input text: a failed parse of
  // "__proto__" wrote Object.prototype[0], of "constructor" Object[0].
  const names = [
    ...new Set([
      ...Object.getOwnPropertyNames(Object.prototype),
      ...Object.getOwnPropertyNames(Object),
      ...Object.getOwnPropertyNames(Function.prototype),
      "__proto__",
      "prototype",
    ]),
  ];
  test.each(names)("%s", (name) => {
    for (const text of [name, `${name}\n$`, `\${${name}`]) {
      for (const syntax of ["seed", "path"] as const) {
        for (const templates of [false, true]) {
          tryParseRef(text, { syntax, templates });
          isPlaceholder(text, { syntax, templates, strict: true });
          library.tokenize(text, { syntax, templates });
        }
        try {
          parseTemplate(text, { syntax });
        } catch (error) {
          expect(error).toBeInstanceOf(RefError);
        }
      }
      for (const language of [library.seedLanguage, library.pathLanguage]) {
        expect(language.placeholder.parse(text).status).toBe(false);
        language.template.parse(text);
        language.reference.parse(text);
      }
    }
    library.lintPlanText(JSON.stringify({ steps: [{ id: 1, tool: name, args: { [name]: name, q: `$1.${name}` } }] }));
    expect(({} as Record<number, unknown>)[0]).toBeUndefined();
    expect((Object as unknown as Record<number, unknown>)[0]).toBeUndefined();
    expect((Function.prototype as unknown as Record<number, unknown>)[0]).toBeUndefined();
    expectNoPrototypeChange();
  });

  test(
    "in a plain Node process too, where Parsimmon shares the realm with the caller (the built library)",
    { tags: ["other-layers"] },
    () => {
      // Under vitest, node_modules may run in a realm of their own: this checks the realm a user has.
      const script = `
      const lib = await import(${JSON.stringify(new URL("../../dist/grammar/index.js", import.meta.url).href)});
      const names = [...Object.getOwnPropertyNames(Object.prototype), ...Object.getOwnPropertyNames(Object), "__proto__"];
      for (const name of names) for (const syntax of ["seed", "path"]) for (const templates of [false, true]) {
        lib.tryParseRef(name, { syntax, templates });
        lib.tryParseRef("\${" + name, { syntax, templates });
        lib.seedLanguage.placeholder.parse(name);
        lib.pathLanguage.template.parse("\${" + name);
      }
      const numeric = (o) => Object.getOwnPropertyNames(o).filter((k) => /^[0-9]/.test(k));
      console.log(JSON.stringify([numeric(Object.prototype), numeric(Object), numeric(Function.prototype)]));`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toEqual([[], [], []]);
    },
  );

  test("the exported Parsimmon rules' parse() reports lines and columns as Parsimmon does", () => {
    expect(library.pathLanguage.template.parse("a\nb\r\nc\rd ${1")).toEqual({
      status: false,
      index: { offset: 12, line: 4, column: 6 },
      expected: expect.arrayContaining(["'.'", "'['", "}"]),
    });
    expect(library.seedLanguage.placeholder.parse("$1.a")).toMatchObject({ status: true, value: { type: "reference" } });
    expect(() => library.seedLanguage.placeholder.parse(42 as unknown as string)).toThrow(RefError);
    expectNoPoisoning();
  });
});

describe("a chain of defaults lists a result's keys at most once (listing a 1,000,000-key result took seconds per link)", () => {
  /** A plain object whose key listings are counted (lookups read descriptors, which are not). */
  function countingResult(): { result: object; listings: { count: number } } {
    const listings = { count: 0 };
    const result = new Proxy(
      { a: 1, b: 2 },
      {
        ownKeys(target) {
          listings.count++;
          return Reflect.ownKeys(target);
        },
      },
    );
    return { result, listings };
  }

  test("links that fall back build no error, so they list no keys", () => {
    const { result, listings } = countingResult();
    const chain = `${Array.from({ length: 100 }, (_, i) => `$1.x${i}`).join(" ?? ")} ?? "fallback"`;
    expect(resolveRefs({ q: chain }, { 1: result }, { syntax: "path" })).toEqual({ q: "fallback" });
    expect(compileArgs({ q: chain }, { syntax: "path" })({ 1: result })).toEqual({ q: "fallback" });
    expect(listings.count).toBe(0);
  });

  test("the last link, when it fails, lists them once for its message", () => {
    const { result, listings } = countingResult();
    const chain = Array.from({ length: 100 }, (_, i) => `$1.x${i}`).join(" ?? ");
    const error = thrownBy(() => resolveRefs({ q: chain }, { 1: result }, { syntax: "path" })) as KeyError;
    expect(error.code).toBe("missing-key");
    expect(error.key).toBe("x99");
    expect(error.message).toContain("keys: a, b");
    expect(listings.count).toBe(1);
  });

  test("an access error in a link is still thrown, never taken for a missing key", () => {
    const boom = new Boom("descriptor");
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw boom;
        },
      },
    );
    const error = thrownBy(() => resolveRefs({ q: '$1.a ?? "fallback"' }, { 1: hostile }, { syntax: "path" })) as RefError;
    expect(error.code).toBe("access");
    expect(error.cause).toBe(boom);
  });
});

describe("a long chain of defaults (one ?? per step of recursion was a stack overflow)", { tags: ["slow"] }, () => {
  const chain = `${"$1??".repeat(16_000)}$1`;
  test("parseRef, tryParseRef, parseTemplate and isPlaceholder give a limit error or false", () => {
    expect((thrownBy(() => parseRef(chain, { syntax: "path" })) as RefError).code).toBe("limit");
    const result = tryParseRef(chain, { syntax: "path" });
    expect(result.ok ? "parsed" : result.error.code).toBe("limit");
    expect((thrownBy(() => parseTemplate(chain, { syntax: "path" })) as RefError).code).toBe("limit");
    expect((thrownBy(() => parseTemplate(`x \${1??${chain}}`, { syntax: "path", maxRefLength: 1_000_000 })) as RefError).code).toBe(
      "limit",
    );
    expect(isPlaceholder(chain, { syntax: "path" })).toBe(false);
  });

  test("with maxSegments raised it parses, counts 16,000 defaults and prints back", () => {
    const ast = parseRef(chain, { syntax: "path", maxSegments: 16_000 });
    expect(ast.type).toBe("default");
    expect(formatRef(ast)).toBe(chain.replaceAll("??", " ?? "));
    expect((thrownBy(() => parseRef(chain, { syntax: "path", maxSegments: 15_999 })) as RefError).message).toContain("16000");
  });
});

describe("maxRefLength refuses only strings that could be placeholders or templates", () => {
  /** The rule of SECURITY.md, as a regular expression per mode. */
  const couldBe = (text: string, options: ResolveOptions): boolean =>
    (options.templates === true && (text.includes("${") || text.startsWith("$$"))) ||
    (options.syntax === "path" ? /^\$[0-9]+(\.|\[[0-9"]| *\?\?|$)/ : /^\$[0-9]+(\.|$)/).test(text);
  const pieces = fc.constantFrom("$", "$$", "${", "1", "0", ".", "[", "]", '"', " ", "??", "?", "a", "}", "x");
  const options = fc.record({ syntax: fc.constantFrom("seed" as const, "path" as const), templates: fc.boolean(), strict: fc.boolean() });

  test("over the limit: a limit error exactly when the text could be one; otherwise the same outcome as without a limit", () => {
    fc.assert(
      fc.property(fc.string({ unit: pieces, minLength: 1, maxLength: 12 }), options, fc.nat({ max: 3 }), (text, base, limit) => {
        fc.pre(text.length > limit);
        const outcome = (opts: ResolveOptions): unknown => {
          try {
            return { value: resolveRefs({ q: text }, { 1: { a: 1 }, 0: [1] }, opts)["q"] };
          } catch (error) {
            expect(error).toBeInstanceOf(RefError);
            return { code: (error as RefError).code, message: (error as RefError).detail };
          }
        };
        const limited = outcome({ ...base, maxRefLength: limit });
        if (couldBe(text, base)) expect(limited).toMatchObject({ code: "limit" });
        else expect(limited).toEqual(outcome(base));
      }),
      { numRuns: 500 },
    );
  });

  test("parseTemplate gives over-long plain text as one text part, as the grammar would", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: pieces, minLength: 1, maxLength: 12 }),
        fc.constantFrom("seed" as const, "path" as const),
        (text, syntax) => {
          fc.pre(!couldBe(text, { syntax, templates: true }));
          expect(parseTemplate(text, { syntax, maxRefLength: 0 })).toEqual(parseTemplate(text, { syntax }));
        },
      ),
    );
  });

  test("tryParseRef: over-long text that cannot be a placeholder is a syntax error where the grammar stops, not a limit error", () => {
    const text = `$5 off ${"x".repeat(70_000)}`;
    const result = tryParseRef(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.error).toBeInstanceOf(RefSyntaxError);
    expect(result.ok ? undefined : (result.error as RefSyntaxError).offset).toBe(2);
    expect(isPlaceholder(text)).toBe(false);
  });
});

describe("the four adversarial inputs finish: a result or a limit error by default, parsed with limits raised", { tags: ["slow"] }, () => {
  const raised = { maxRefLength: 4_000_000, maxSegments: 1_000_000, maxInterpolations: 1_000_000 };
  test.each([
    { name: "1 MB without $", text: "x".repeat(1 << 20), options: {}, byDefault: "literal", raisedAs: "literal" },
    { name: "1 MB of digits after $", text: `$${"7".repeat(1 << 20)}`, options: {}, byDefault: "limit", raisedAs: "reference" },
    {
      name: '"$1" + ".a" x 100,000 + "!"',
      text: `$1${".a".repeat(100_000)}!`,
      options: { syntax: "path" as const },
      byDefault: "limit",
      raisedAs: "reference",
    },
    { name: '"${1} " x 200,000', text: "${1} ".repeat(200_000), options: { templates: true }, byDefault: "limit", raisedAs: "template" },
  ])("$name", ({ text, options, byDefault, raisedAs }) => {
    // One parse per option set (a template this long is never cached): the AST, or what kind of error.
    const kind = (result: ReturnType<typeof tryParseRef>): string =>
      result.ok ? result.value.type : result.error.code === "limit" ? "limit" : "literal";
    expect(kind(tryParseRef(text, options))).toBe(byDefault);
    const parsed = tryParseRef(text, { ...options, ...raised });
    expect(kind(parsed)).toBe(raisedAs);
    const ast = parsed.ok ? parsed.value : undefined;
    if (ast?.type === "reference") expect(ast.path.length).toBe(options.syntax === "path" ? 100_000 : 0);
    if (ast?.type === "template") expect(ast.parts).toHaveLength(400_000);
    if (byDefault === "literal") expect(isPlaceholder(text, options)).toBe(false);
  });
});

describe("ASTs handed out cannot change the parser's later answers (the cache shares them)", () => {
  /** Try to change every field of every node (a frozen node refuses: a TypeError in strict code). */
  function vandalize(ast: RefAst): void {
    const nodes: object[] = [];
    library.walkAst(ast, (node) => void nodes.push(node, node.span));
    for (const node of nodes) {
      for (const key of Object.keys(node)) {
        try {
          const value = (node as Record<string, unknown>)[key];
          (node as Record<string, unknown>)[key] = Array.isArray(value) ? [] : typeof value === "number" ? -1 : "evil";
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
        }
      }
    }
  }

  test("mutating parseRef's result cannot change what resolveRefs reads later", () => {
    for (let i = 0; i < 4; i++) {
      const ast = parseRef("$1.city");
      try {
        (ast as unknown as { path: { name: string }[] }).path[0]!.name = "evil";
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError); // frozen: it is the cached one
      }
      expect(resolveRefs({ q: "$1.city" }, { 1: { city: "Paris", evil: "E" } })).toEqual({ q: "Paris" });
    }
  });

  test("whatever a caller does to the ASTs it gets, the same text parses to the same AST again", () => {
    const text = fc.stringMatching(/^\$[0-9]{1,2}((\.[a-z]{1,3})|\[[0-9]\]|\["[a-z]?"\]){0,3}( \?\? ("x"|1|\$2))?$/);
    fc.assert(
      fc.property(text, fc.nat({ max: 3 }), (source, sightings) => {
        for (const options of [{ syntax: "path" as const }, { syntax: "path" as const, templates: true }]) {
          const first = tryParseRef(source, options);
          if (!first.ok) continue;
          const expected = structuredClone(first.value);
          vandalize(first.value);
          for (let i = 0; i <= sightings; i++) {
            const again = tryParseRef(source, options);
            expect(again.ok && again.value).toEqual(expected);
            vandalize(again.ok ? again.value : first.value);
          }
        }
        const template = parseTemplate(`a \${${source.slice(1)}} b`, { syntax: "path" });
        const copy = structuredClone(template);
        vandalize(template);
        expect(parseTemplate(`a \${${source.slice(1)}} b`, { syntax: "path" })).toEqual(copy);
      }),
    );
  });

  test("ASTs in the cache are deeply frozen", () => {
    for (let i = 0; i < 3; i++) resolveRefs({ q: "$1.a[0] ?? $2" }, { 1: { a: [1] } }, { syntax: "path" });
    const cached = parseRef("$1.a[0] ?? $2", { syntax: "path" });
    library.walkAst(cached, (node) => {
      expect(Object.isFrozen(node)).toBe(true);
      expect(Object.isFrozen(node.span)).toBe(true);
    });
  });

  test("an error handed out by tryParseRef is the caller's own copy", () => {
    const first = tryParseRef("$1.", { strict: true });
    expect(first.ok).toBe(false);
    if (!first.ok) (first.error as { message: string }).message = "changed by a caller";
    const second = tryParseRef("$1.", { strict: true });
    expect(second.ok ? "" : second.error.message).toContain("invalid reference");
    expect(second.ok ? undefined : second.error).toBeInstanceOf(RefSyntaxError);
  });
});
