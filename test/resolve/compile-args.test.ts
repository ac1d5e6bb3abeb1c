/**
 * `compileArgs(args, options)(results)` (src/resolve/compile-args.ts) behaves exactly like
 * `resolveRefs(args, results, options)`: the same output (prototypes and structural sharing included) or
 * the same error (class, code, argument pointer, message), on every row of the shared case files and on
 * generated args, results and options; and a compiled function can be called again and again.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import * as rootPackage from "../../src/index.js";
import type { Results } from "../../src/resolve/access.js";
import { compileArgs } from "../../src/resolve/compile-args.js";
import * as resolvePackage from "../../src/resolve/index.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { argsOf, loadCases, resultsOf, thrownBy } from "../helpers/cases.js";

type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

function outcome(run: () => Record<string, unknown>): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The containers of an output in walk order, each as the index of its first appearance (aliasing) and
 * whether it is the very object found at the same place in `args` (structural sharing).
 */
function sharing(output: unknown, args: unknown): string[] {
  const seen = new Map<object, number>();
  const profile: string[] = [];
  const walk = (value: unknown, original: unknown, pointer: string, depth: number): void => {
    if (typeof value !== "object" || value === null || depth > 12) return;
    const first = seen.get(value);
    const proto: unknown = Object.getPrototypeOf(value);
    const kind = proto === null ? "null-prototype" : proto === Object.prototype ? "object" : Array.isArray(value) ? "array" : "other";
    profile.push(`${pointer}:${first ?? seen.size}:${value === original ? "same" : "new"}:${kind}`);
    if (first !== undefined) return;
    seen.set(value, seen.size);
    if (!Array.isArray(value) && !(Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) return;
    for (const key of Object.keys(value)) {
      const inner = typeof original === "object" && original !== null && Object.hasOwn(original, key) ? (original as Record<string, unknown>)[key] : undefined;
      walk((value as Record<string, unknown>)[key], inner, `${pointer}/${key}`, depth + 1);
    }
  };
  walk(output, args, "", 0);
  return profile;
}

function expectSameOutcome(actual: Outcome, expected: Outcome, args: unknown): void {
  if (expected.ok) {
    if (!actual.ok) throw actual.error;
    expect(actual.value).toStrictEqual(expected.value);
    expect(Object.getPrototypeOf(actual.value)).toBe(Object.prototype);
    expect(Object.keys(actual.value)).toEqual(Object.keys(expected.value));
    for (const key of Object.keys(expected.value)) expect(Object.is(actual.value[key], expected.value[key]) || typeof expected.value[key] === "object", key).toBe(true);
    expect(sharing(actual.value, args)).toEqual(sharing(expected.value, args));
    return;
  }
  expect(actual.ok, "compileArgs succeeded where resolveRefs threw").toBe(false);
  if (actual.ok) return;
  const want = expected.error as RefError;
  const got = actual.error as RefError;
  expect(got).toBeInstanceOf(RefError);
  expect({ name: got.name, code: got.code, arg: got.arg, message: got.message }).toEqual({ name: want.name, code: want.code, arg: want.arg, message: want.message });
}

function compare(args: unknown, results: unknown, options: ResolveOptions | undefined): void {
  const expected = outcome(() => resolveRefs(args as Record<string, unknown>, results as Results, options));
  const actual = outcome(() => compileArgs(args as Record<string, unknown>, options)(results as Results));
  expectSameOutcome(actual, expected, args);
}

describe("compileArgs agrees with resolveRefs on every shared case", () => {
  const rows = ["seed.json", "path.json", "templates.json", "deep.json"].flatMap((file) => loadCases(file).map((row) => ({ ...row, name: `${file}: ${row.name}` })));
  test.each(rows)("$name", (row) => compare(argsOf(row), resultsOf(row), row.options));
});

// Generated inputs: placeholders of every kind (valid, near-misses, templates, escapes, defaults),
// results whose values look like placeholders, shared sub-objects, cycles and `__proto__` keys.
const placeholderText = fc.constantFrom(
  "$1", "$2", "$0", "$01", "$3", "$9", "$1.a", "$1.b", "$2.a", "$1.a.b", "$1.items", "$1.items[0]", "$1.items[5]", "$1[\"a\"]", "$1.a ?? \"d\"", "$9 ?? $1.a",
  "$9.x ?? 4", "$1.", "$5 off", "$", "$x", "$$1", "${1.a}", "x ${2} y", "${1", "a ${9} b", "$${1}", "${1.items}", "plain", "", "$1.a[0]", "$2.$1", "$1 ",
  "$99999999999999999999",
);
const scalar = fc.oneof(placeholderText, fc.integer(), fc.constant(null), fc.boolean(), fc.constant(Number.NaN), fc.string({ maxLength: 4 }));
const tree = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom("a", "b", "q", "items", "__proto__", "x/y", "t~1", "0", "7"), tie("value"), { maxKeys: 4 }),
}));

/** Rebuild a generated value with JSON.parse semantics for `__proto__` (an own key), plus odd containers. */
function materialize(value: unknown, odd: number): unknown {
  if (Array.isArray(value)) {
    const array = value.map((item) => materialize(item, odd));
    if (odd % 7 === 3 && array.length > 1) delete array[0]; // a hole
    return array;
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = odd % 5 === 4 ? (Object.create(null) as Record<string, unknown>) : {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: materialize((value as Record<string, unknown>)[key], odd + key.length), writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** All plain containers of a tree, in walk order. */
function containers(root: unknown): object[] {
  const found: object[] = [];
  const walk = (value: unknown): void => {
    if (typeof value !== "object" || value === null || found.includes(value)) return;
    found.push(value);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(root);
  return found;
}

const argsArbitrary = fc
  .tuple(fc.dictionary(fc.constantFrom("q", "a", "b", "__proto__", "n", "list", "x/y"), tree.value, { maxKeys: 5 }), fc.nat(), fc.constantFrom("none", "none", "shared", "cycle", "instance"), fc.nat(), fc.nat())
  .map(([raw, odd, twist, from, to]) => {
    const args = materialize(raw, odd) as Record<string, unknown>;
    const all = containers(args);
    const source = all[from % all.length]!;
    const target = all[to % all.length]!;
    if (twist === "shared" && source !== args) Object.defineProperty(args, "shared", { value: source, enumerable: true, writable: true, configurable: true });
    if (twist === "cycle" && target !== args) (target as Record<string, unknown>)["loop"] = args;
    if (twist === "instance") args["when"] = new Date(0);
    return args;
  });

const resultValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, placeholderText, fc.integer(), fc.constant(null), fc.string({ maxLength: 3 }), tie("object"), tie("array")),
  object: fc.dictionary(fc.constantFrom("a", "b", "items", "x"), tie("value"), { maxKeys: 3 }),
  array: fc.array(tie("value"), { maxLength: 3 }),
}));
const resultsArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom("0", "1", "2", "3"), resultValue.value, { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.constantFrom("0", "1", "2", "3"), resultValue.value, { maxKeys: 4 }).map((r) => new Map(Object.entries(r).map(([k, v]) => [Number(k), v]))) },
  { weight: 1, arbitrary: fc.array(resultValue.value, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "results", 3) },
);

const optionsArbitrary: fc.Arbitrary<ResolveOptions | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      syntax: fc.constantFrom("seed" as const, "path" as const),
      templates: fc.boolean(),
      deep: fc.boolean(),
      strict: fc.boolean(),
      maxDepth: fc.nat({ max: 4 }),
      maxPlaceholders: fc.nat({ max: 5 }),
      maxSegments: fc.nat({ max: 3 }),
      maxOutputLength: fc.nat({ max: 40 }),
    },
    { requiredKeys: ["syntax", "deep"] },
  ),
);

describe("compileArgs agrees with resolveRefs on generated input", () => {
  test("same output or same error", () => {
    fc.assert(fc.property(argsArbitrary, resultsArbitrary, optionsArbitrary, (args, results, options) => compare(args, results, options)), { numRuns: 2000 });
  });

  test("one compiled function, many results", () => {
    fc.assert(
      fc.property(argsArbitrary, fc.array(resultsArbitrary, { minLength: 2, maxLength: 4 }), optionsArbitrary, (args, resultsList, options) => {
        let compiled: ((results: Results) => Record<string, unknown>) | undefined;
        let compileError: unknown;
        try {
          compiled = compileArgs(args, options);
        } catch (error) {
          compileError = error;
        }
        for (const results of resultsList) {
          const expected = outcome(() => resolveRefs(args, results as Results, options));
          const actual: Outcome = compiled === undefined ? { ok: false, error: compileError } : outcome(() => compiled(results as Results));
          expectSameOutcome(actual, expected, args);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("never mutates args or results (deeply frozen inputs work; Map entries stay as they were)", () => {
    fc.assert(
      fc.property(argsArbitrary, resultsArbitrary, optionsArbitrary, (args, results, options) => {
        deepFreeze(args);
        deepFreeze(results);
        const entries = results instanceof Map ? [...results] : [];
        const got = outcome(() => compileArgs(args, options)(results as Results));
        // Writing to a frozen object would throw a TypeError, which is not a RefError.
        if (!got.ok) expect(got.error).toBeInstanceOf(RefError);
        if (results instanceof Map) expect([...results]).toEqual(entries);
      }),
      { numRuns: 300 },
    );
  });
});

function deepFreeze(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== "object" || value === null || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  if (value instanceof Map) for (const item of value.values()) deepFreeze(item, seen);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key], seen);
}

describe("compileArgs in particular", () => {
  test("is exported from plan-refs and plan-refs/resolve", () => {
    expect(rootPackage.compileArgs).toBe(compileArgs);
    expect(resolvePackage.compileArgs).toBe(compileArgs);
  });

  test("args are snapshotted at compile time", () => {
    const nested = { city: "$1.city" };
    const args: Record<string, unknown> = { q: "$1.city", units: "metric", nested };
    const resolve = compileArgs(args, { deep: true });
    args["q"] = "$2";
    args["extra"] = "$1.city";
    nested.city = "changed";
    expect(resolve({ 1: { city: "Paris" } })).toEqual({ q: "Paris", units: "metric", nested: { city: "Paris" } });
  });

  test("frozen args and results work, and values that are not placeholders come back as the same values", () => {
    const list = Object.freeze([1, 2]);
    const args = Object.freeze({ q: "$1.city", list, deep: Object.freeze({ n: 1 }) });
    const results = Object.freeze({ 1: Object.freeze({ city: "Paris" }) });
    const out = compileArgs(args, { deep: true })(results);
    expect(out).toEqual({ q: "Paris", list: [1, 2], deep: { n: 1 } });
    expect(out["list"]).toBe(list);
    expect(out["deep"]).toBe(args.deep);
  });

  test("__proto__ stays an own key and never changes a prototype", () => {
    const args = JSON.parse('{"__proto__": "$1.city", "inner": {"__proto__": "$1"}}') as Record<string, unknown>;
    const resolve = compileArgs(args, { deep: true });
    const out = resolve({ 1: { city: "Paris" } });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe("Paris");
    const inner = out["inner"] as object;
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(inner, "__proto__")?.value).toEqual({ city: "Paris" });
  });

  test("each call returns a new object", () => {
    const resolve = compileArgs({ q: "$1", n: 1 });
    const first = resolve({ 1: "a" });
    const second = resolve({ 1: "b" });
    expect(first).not.toBe(second);
    expect(first).toEqual({ q: "a", n: 1 });
    expect(second).toEqual({ q: "b", n: 1 });
  });

  test("options and the type of args are checked at compile time; errors inside args on each call", () => {
    expect(() => compileArgs({ q: "$1" }, { syntax: "nope" as "seed" })).toThrow(expect.objectContaining({ code: "invalid-options" }) as Error);
    expect(() => compileArgs(null as unknown as Record<string, unknown>)).toThrow(expect.objectContaining({ code: "invalid-args" }) as Error);
    const resolve = compileArgs({ a: "$2", b: "$1." }, { strict: true });
    // The missing step 2 comes first in args, so it is reported first, as resolveRefs does.
    expect(() => resolve({ 1: "x" })).toThrow(expect.objectContaining({ code: "missing-step", arg: "/a" }) as Error);
    expect(() => resolve({ 2: "x" })).toThrow(expect.objectContaining({ code: "syntax", arg: "/b" }) as Error);
    expect(() => resolve(null as unknown as Results)).toThrow(expect.objectContaining({ code: "invalid-results" }) as Error);
  });

  test("a null-prototype container on the way to a placeholder is copied as a null-prototype object", () => {
    const inner = Object.assign(Object.create(null) as Record<string, unknown>, { city: "$1.city", n: 1 });
    const out = compileArgs({ inner }, { deep: true })({ 1: { city: "Paris" } });
    expect(Object.getPrototypeOf(out["inner"])).toBeNull();
    expect({ ...(out["inner"] as object) }).toEqual({ city: "Paris", n: 1 });
  });

  test("a shared sub-object resolves once per call and stays shared", () => {
    const shared = { city: "$1.city" };
    const out = compileArgs({ a: shared, b: [shared] }, { deep: true })({ 1: { city: "Paris" } });
    expect(out["a"]).toEqual({ city: "Paris" });
    expect((out["b"] as unknown[])[0]).toBe(out["a"]);
  });
});

const results = { 1: { city: "Paris" } };
const deep: ResolveOptions = { deep: true };

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("compile-args.ts", () => {
  test("a compiled function replays the same errors and sharing on every call", () => {
    const shared = ["$1.city"];
    const run = compileArgs({ a: shared, b: shared }, deep);
    const first = run(results);
    const second = run({ 1: { city: "Lyon" } });
    expect(first["b"]).toBe(first["a"]);
    expect(second["b"]).toBe(second["a"]);
    expect(second["a"]).toEqual(["Lyon"]);
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const replay = compileArgs(cyclic, deep);
    for (let i = 0; i < 2; i++) {
      const error = thrownBy(() => replay(results)) as RefError;
      expect(error).toBeInstanceOf(RefError);
      expect(error.code).toBe("cycle");
      expect(error.arg).toBe("/self");
    }
  });
});
