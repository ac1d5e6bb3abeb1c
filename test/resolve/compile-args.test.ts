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
import { argsArbitrary, optionsArbitrary, resultsArbitrary } from "../helpers/arbitraries.js";
import { argsOf, loadCases, resultsOf, thrownBy } from "../helpers/cases.js";
import { expectSameOutcome, outcome, type Outcome } from "../helpers/outcome.js";

function compare(args: unknown, results: unknown, options: ResolveOptions | undefined): void {
  const expected = outcome(() => resolveRefs(args as Record<string, unknown>, results as Results, options));
  const actual = outcome(() => compileArgs(args as Record<string, unknown>, options)(results as Results));
  expectSameOutcome(actual, expected, args);
}

describe("compileArgs agrees with resolveRefs on every shared case", () => {
  const rows = ["seed.json", "path.json", "templates.json", "deep.json"].flatMap((file) =>
    loadCases(file).map((row) => ({ ...row, name: `${file}: ${row.name}` })),
  );
  test.each(rows)("$name", (row) => compare(argsOf(row), resultsOf(row), row.options));
});

describe("compileArgs agrees with resolveRefs on generated input", () => {
  test("same output or same error", () => {
    fc.assert(
      fc.property(argsArbitrary, resultsArbitrary, optionsArbitrary, (args, results, options) => compare(args, results, options)),
      { numRuns: 2000 },
    );
  });

  test("one compiled function, many results", () => {
    fc.assert(
      fc.property(
        argsArbitrary,
        fc.array(resultsArbitrary, { minLength: 2, maxLength: 4 }),
        optionsArbitrary,
        (args, resultsList, options) => {
          let compiled: ((results: Results) => Record<string, unknown>) | undefined;
          let compileError: unknown;
          try {
            compiled = compileArgs(args, options);
          } catch (error) {
            compileError = error;
          }
          for (const results of resultsList) {
            const expected = outcome(() => resolveRefs(args, results as Results, options));
            const actual: Outcome =
              compiled === undefined ? { ok: false, error: compileError } : outcome(() => compiled(results as Results));
            expectSameOutcome(actual, expected, args);
          }
        },
      ),
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
    expect(() => compileArgs({ q: "$1" }, { syntax: "nope" as "seed" })).toThrow(
      expect.objectContaining({ code: "invalid-options" }) as Error,
    );
    expect(() => compileArgs(null as unknown as Record<string, unknown>)).toThrow(
      expect.objectContaining({ code: "invalid-args" }) as Error,
    );
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
