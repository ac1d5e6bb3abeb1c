/**
 * The seed language: the shared rows in test/cases/seed.json, then what JSON cannot express
 * (Maps, getters, class instances, frozen and hostile inputs) as TypeScript tables.
 */
import { describe, expect, test } from "vitest";
import { parseRef } from "../../src/grammar/parse.js";
import type { Results } from "../../src/resolve/access.js";
import { evaluate } from "../../src/resolve/evaluate.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { KeyError, RefError, RefSyntaxError } from "../../src/shared/errors.js";
import { expectError, loadCases, runResolveCase, thrownBy, type ErrorSpec } from "../helpers/cases.js";

describe("seed.json", () => {
  test.each(loadCases("seed.json"))("$name", (row) => runResolveCase(row));
});

/** Deep-freeze a value (objects, arrays, Maps' entries are left as they are). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

class Box {
  constructor(readonly x: number) {}
}

describe("results shapes JSON cannot express", () => {
  const city = { city: "Paris" };
  const rows: { name: string; input: string; results: unknown; expected: unknown }[] = [
    { name: "Map keyed by number: whole result", input: "$1", results: new Map([[1, city]]), expected: city },
    { name: "Map keyed by number: key of a plain object", input: "$1.city", results: new Map([[1, city]]), expected: "Paris" },
    { name: "Map keyed by number: $01 is step 1", input: "$01", results: new Map([[1, "one"]]), expected: "one" },
    { name: "Map keyed by number: $0", input: "$0", results: new Map([[0, "zero"]]), expected: "zero" },
    { name: "Map keyed by string digits is accepted too", input: "$2", results: new Map([["2", "two"]]), expected: "two" },
    { name: "a key of a Map result", input: "$1.city", results: { 1: new Map([["city", "Lyon"]]) }, expected: "Lyon" },
    { name: "a key of a Map result that holds a nested object", input: "$1.a", results: { 1: new Map([["a", city]]) }, expected: city },
    {
      name: "a key of a null-prototype result",
      input: "$1.city",
      results: { 1: Object.assign(Object.create(null) as object, { city: "Nice" }) },
      expected: "Nice",
    },
    {
      name: "null-prototype results object",
      input: "$1",
      results: Object.assign(Object.create(null) as object, { 1: "one" }),
      expected: "one",
    },
    { name: "a class instance as a whole result is the same instance", input: "$1", results: { 1: new Box(1) }, expected: undefined },
    { name: "an undefined result is a result", input: "$1", results: new Map([[1, undefined]]), expected: undefined },
  ];
  test.each(rows)("$name", ({ input, results, expected, name }) => {
    const out = resolveRefs({ q: input }, results as Results);
    if (name.includes("class instance")) expect(out["q"]).toBe((results as Record<number, unknown>)[1]);
    else expect(out["q"]).toBe(expected);
    expect(Object.hasOwn(out, "q")).toBe(true);
  });

  const errors: { name: string; input: string; results: unknown; error: ErrorSpec }[] = [
    {
      name: "Map: a missing step lists the steps",
      input: "$3",
      results: new Map([
        [1, "a"],
        [2, "b"],
      ]),
      error: { code: "missing-step", step: 3, messageIncludes: "steps with results: 1, 2" },
    },
    {
      name: "Map: a missing key of a Map result lists its keys",
      input: "$1.zip",
      results: {
        1: new Map([
          ["city", 1],
          ["street", 2],
        ]),
      },
      error: { code: "missing-key", key: "zip", messageIncludes: "keys: city, street" },
    },
    {
      name: "Map: a huge step is never rounded to a number key",
      input: "$9007199254740993",
      results: new Map([[9007199254740992, "rounded"]]),
      error: { code: "missing-step", step: null },
    },
    {
      name: "Map: a huge step never matches a string key",
      input: "$9007199254740993",
      results: new Map([["9007199254740993", "text"]]),
      error: { code: "missing-step", step: null },
    },
    {
      name: "a class instance has no keys, even own ones",
      input: "$1.x",
      results: { 1: new Box(3) },
      error: { code: "not-indexable", key: "x", messageIncludes: "class instance" },
    },
    { name: "a Date has no keys", input: "$1.getTime", results: { 1: new Date(0) }, error: { code: "not-indexable" } },
    { name: "a Set has no keys", input: "$1.size", results: { 1: new Set([1]) }, error: { code: "not-indexable" } },
    {
      name: "a Map's size is not a key",
      input: "$1.size",
      results: { 1: new Map([["a", 1]]) },
      error: { code: "missing-key", key: "size" },
    },
    { name: "a Map's get is not a key", input: "$1.get", results: { 1: new Map() }, error: { code: "missing-key", key: "get" } },
    { name: "a function has no keys", input: "$1.name", results: { 1: function named() {} }, error: { code: "not-indexable" } },
    {
      name: "null-prototype result: toString is missing",
      input: "$1.toString",
      results: { 1: Object.create(null) },
      error: { code: "missing-key" },
    },
    { name: "an array hole is a missing step", input: "$1", results: [0, , 2], error: { code: "missing-step", step: 1 } },
    {
      name: "a key inherited from a custom prototype is missing",
      input: "$1.a",
      results: { 1: Object.create(Object.assign(Object.create(null) as object, { a: 1 })) as object },
      error: { code: "not-indexable" },
    },
  ];
  test.each(errors)("$name", ({ input, results, error }) => {
    expectError(
      thrownBy(() => resolveRefs({ q: input }, results as Results)),
      { name: "KeyError", arg: "/q", ...error },
    );
  });
});

describe("getters are never invoked", () => {
  const make = () => {
    const calls: string[] = [];
    const getter = (label: string) => ({
      get() {
        calls.push(label);
        return "from getter";
      },
      enumerable: true,
    });
    return { calls, getter };
  };
  const rows: { name: string; input: string; build: (getter: (l: string) => PropertyDescriptor) => unknown; code: string }[] = [
    {
      name: "a getter for a key",
      input: "$1.city",
      build: (g) => ({ 1: Object.defineProperty({}, "city", g("city")) }),
      code: "missing-key",
    },
    {
      name: "a getter for a step in a plain object",
      input: "$1",
      build: (g) => Object.defineProperty({}, "1", g("step")),
      code: "missing-step",
    },
    { name: "a getter for a step in an array", input: "$0", build: (g) => Object.defineProperty([], "0", g("step")), code: "missing-step" },
    {
      name: "a getter for a key of a null-prototype result",
      input: "$1.k",
      build: (g) => ({ 1: Object.defineProperty(Object.create(null), "k", g("k")) }),
      code: "missing-key",
    },
    {
      name: "an inherited getter",
      input: "$1.k",
      build: (g) => ({ 1: Object.create(Object.defineProperty({}, "k", g("k"))) }),
      code: "not-indexable",
    },
  ];
  test.each(rows)("$name", ({ input, build, code }) => {
    const { calls, getter } = make();
    const results = build(getter) as Results;
    expectError(
      thrownBy(() => resolveRefs({ q: input }, results)),
      { code, name: "KeyError" },
    );
    expect(calls).toEqual([]);
  });

  test("a getter in args is refused, not invoked", () => {
    const { calls, getter } = make();
    const args = Object.defineProperty({ a: 1 }, "q", getter("arg"));
    expectError(
      thrownBy(() => resolveRefs(args, {})),
      { code: "access" },
    );
    expect(calls).toEqual([]);
  });

  test("a Map subclass's own get is not invoked", () => {
    const calls: string[] = [];
    class Sneaky extends Map<unknown, unknown> {
      override get(key: unknown): unknown {
        calls.push(String(key));
        return "sneaky";
      }
    }
    expect(resolveRefs({ q: "$1" }, new Sneaky([[1, "real"]]) as Results)["q"]).toBe("real");
    expect(resolveRefs({ q: "$1.a" }, { 1: new Sneaky([["a", "real"]]) })["q"]).toBe("real");
    expect(calls).toEqual([]);
  });
});

describe("invalid args and results are RefErrors, never TypeErrors", () => {
  const badResults: [string, unknown][] = [
    ["undefined", undefined],
    ["a class instance", new Box(1)],
    ["a Set", new Set([1])],
    ["a Date", new Date(0)],
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["a bigint", 1n],
    ["an object with a custom prototype", Object.create({ 1: "x" })],
  ];
  test.each(badResults)("results as %s", (_name, results) => {
    expectError(
      thrownBy(() => resolveRefs({ q: "$1" }, results as Results)),
      { code: "invalid-results", name: "RefError" },
    );
  });

  const badArgs: [string, unknown][] = [
    ["undefined", undefined],
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["a boolean", true],
    ["an array", ["$1"]],
  ];
  test.each(badArgs)("args as %s", (_name, args) => {
    expectError(
      thrownBy(() => resolveRefs(args as Record<string, unknown>, {})),
      { code: "invalid-args", name: "RefError" },
    );
  });

  test("a Proxy whose traps throw becomes RefError code access", () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new TypeError("boom");
        },
      },
    );
    expectError(
      thrownBy(() => resolveRefs({ q: "$1.a" }, { 1: hostile })),
      { code: "access" },
    );
    expectError(
      thrownBy(() => resolveRefs({ q: "$1" }, hostile)),
      { code: "access" },
    );
  });

  test("a revoked Proxy as results becomes a RefError", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(thrownBy(() => resolveRefs({ q: "$1" }, proxy as Results))).toBeInstanceOf(RefError);
  });

  test.each([
    ["not an object", 3],
    ["a string", "strict"],
    ["templates not boolean", { templates: 1 }],
    ["deep not boolean", { deep: "true" }],
    ["maxPlaceholders NaN", { maxPlaceholders: Number.NaN }],
    ["maxOutputLength infinite", { maxOutputLength: Number.POSITIVE_INFINITY }],
  ])("options %s are invalid-options", (_name, options) => {
    expectError(
      thrownBy(() => resolveRefs({ q: "$1" }, { 1: 1 }, options as never)),
      { code: "invalid-options" },
    );
  });
});

describe("inputs are never mutated and frozen inputs work", () => {
  test("deep-frozen args and results", () => {
    const args = deepFreeze({ a: "$1.city", b: "$2", c: { d: "$1" }, __x: [1, 2] });
    const results = deepFreeze({ 1: { city: "Paris" }, 2: [1, { x: 2 }] });
    const before = structuredClone({ args, results });
    const out = resolveRefs(args, results);
    expect(out).toEqual({ a: "Paris", b: results[2], c: args.c, __x: args.__x });
    expect(out["b"]).toBe(results[2]);
    expect({ args, results }).toEqual(before);
    expect(Object.isFrozen(out)).toBe(false);
  });

  test("a frozen Map of results", () => {
    const results = Object.freeze(new Map([[1, deepFreeze({ city: "Paris" })]]));
    expect(resolveRefs(Object.freeze({ q: "$1.city" }), results)).toEqual({ q: "Paris" });
    expect(results.size).toBe(1);
  });

  test("failed calls mutate nothing either", () => {
    const args = { a: "$1.city", b: "$9" };
    const results = { 1: { city: "Paris" } };
    const before = structuredClone({ args, results });
    expect(thrownBy(() => resolveRefs(args, results))).toBeInstanceOf(KeyError);
    expect({ args, results }).toEqual(before);
  });
});

describe("an argument named __proto__", () => {
  test.each([
    ["a placeholder", '{"__proto__": "$1.city", "x": 1}', "Paris"],
    ["an object", '{"__proto__": {"polluted": true}}', { polluted: true }],
    ["a whole result that is an object", '{"__proto__": "$2"}', { polluted: true }],
  ])("holding %s stays an own key and never changes a prototype", (_name, json, value) => {
    const args = JSON.parse(json) as Record<string, unknown>;
    const out = resolveRefs(args, { 1: { city: "Paris" }, 2: { polluted: true } });
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual(value);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(Object.keys(args));
  });
});

describe("errors", () => {
  test("KeyError is a RefError is an Error, with name KeyError", () => {
    const error = thrownBy(() => resolveRefs({ q: "$1" }, {}));
    expect(error).toBeInstanceOf(KeyError);
    expect(error).toBeInstanceOf(RefError);
    expect(error).toBeInstanceOf(Error);
    expect((error as KeyError).name).toBe("KeyError");
    expect(String(error)).toMatch(/^KeyError: \$1: /);
  });

  test("RefSyntaxError is a RefError with offset and expected", () => {
    const error = thrownBy(() => resolveRefs({ q: "$1e3" }, {}, { strict: true }));
    expect(error).toBeInstanceOf(RefSyntaxError);
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefSyntaxError).name).toBe("RefSyntaxError");
    expect((error as RefSyntaxError).expected.length).toBeGreaterThan(0);
  });

  test.each([
    ["a hostile key", "$1.\u001b[31mred\u001b[0m\r\nforged line"],
    ["a hostile argument name", "$2"],
  ])("messages never carry raw control characters (%s)", (_name, input) => {
    const error = thrownBy(() => resolveRefs({ ["arg\u0000\r\nx"]: input }, { 1: { k: 1 } })) as KeyError;
    expect(error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(error.arg).toBe("/arg\u0000\r\nx");
  });

  test("a message lists a few keys, not all of a huge result", () => {
    const huge = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i]));
    const error = thrownBy(() => resolveRefs({ q: "$1.missing" }, { 1: huge })) as KeyError;
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain("key0");
  });

  test("the steps listed for a missing step are a few at most", () => {
    const results = Array.from({ length: 1000 }, (_, i) => i);
    const error = thrownBy(() => resolveRefs({ q: "$5000" }, results)) as KeyError;
    expect(error.message.length).toBeLessThan(300);
  });
});

describe("evaluate", () => {
  test("$n returns the result itself, no copy", () => {
    const result = { city: "Paris" };
    expect(evaluate(parseRef("$1"), { 1: result })).toBe(result);
    expect(evaluate(parseRef("$1.city"), new Map([[1, result]]))).toBe("Paris");
  });

  test("a KeyError from evaluate has no arg", () => {
    expectError(
      thrownBy(() => evaluate(parseRef("$1.zip"), { 1: { city: "x" } })),
      { code: "missing-key", name: "KeyError", arg: null, step: 1, key: "zip", ref: "$1.zip" },
    );
  });

  test("invalid results are refused by evaluate too", () => {
    expectError(
      thrownBy(() => evaluate(parseRef("$1"), null as unknown as Results)),
      { code: "invalid-results" },
    );
  });
});
