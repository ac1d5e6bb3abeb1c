/**
 * Interpolating values into template text (src/resolve/stringify.ts): scalars, compact JSON of own data, length and depth limits.
 */
import { describe, expect, test } from "vitest";
import { evaluate, parseRef, RefError } from "../../src/index.js";
import type { Results } from "../../src/resolve/access.js";
import { interpolationText } from "../../src/resolve/stringify.js";
import { thrownBy } from "../helpers/cases.js";

/** Evaluate a path-syntax template. */
function template(text: string, results: unknown, options: { maxOutputLength?: number; maxDepth?: number } = {}): unknown {
  return evaluate(parseRef(text, { syntax: "path", templates: true }), results as Results, { source: text, ...options });
}

/** The error `run` throws (fails the test when it throws nothing). */
const thrown = (run: () => unknown): RefError => thrownBy(run) as RefError;

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("src/resolve/stringify.ts", () => {
  describe("scalars are interpolated as text", () => {
    test.each([
      ["a string as it is", "str", "v=str"],
      ["a described symbol", Symbol("tag"), "v=Symbol(tag)"],
      ["a symbol without description", Symbol(), "v=Symbol()"],
      ["a symbol with an empty description", Symbol(""), "v=Symbol()"],
      ["a function", function named() {}, "v=[function]"],
      ["an arrow function", () => 1, "v=[function]"],
      ["null", null, "v=null"],
      ["undefined", undefined, "v=undefined"],
      ["a bigint", 12n, "v=12"],
      ["a boolean", false, "v=false"],
      ["a number", 1.5, "v=1.5"],
    ])("%s", (_, value, text) => {
      expect(template("v=${1}", { 1: value })).toBe(text);
    });

    test("interpolationText of scalars", () => {
      expect(interpolationText(Symbol("x"), 100, 10)).toBe("Symbol(x)");
      expect(interpolationText(Symbol(), 100, 10)).toBe("Symbol()");
      expect(interpolationText(() => 1, 100, 10)).toBe("[function]");
      expect(interpolationText(null, 100, 10)).toBe("null");
    });

    test("null over the output limit is the template's limit error, not an interpolated value's", () => {
      const error = thrown(() => template("ab${1}", { 1: null }, { maxOutputLength: 5 }));
      expect(error.code).toBe("limit");
      expect(error.message).toBe("template output is longer than maxOutputLength (5)");
    });
  });

  describe("objects and arrays are interpolated as compact JSON of own data", () => {
    test("JSON of own data: holes, functions, symbols and undefined become null in arrays and are left out of objects", () => {
      const value = {
        a: 1,
        s: "x",
        f() {},
        sym: Symbol("s"),
        u: undefined,
        n: null,
        arr: [1, , 3, () => 1, Symbol("t"), undefined, Number.NaN, Infinity],
        big: 2n,
        b: true,
        d: new Date(0),
        bad: new Date(Number.NaN),
        m: new Map<unknown, unknown>([
          [1, "one"],
          ["k", [true]],
        ]),
      };
      expect(template("v=${1}", { 1: value })).toBe(
        'v={"a":1,"s":"x","n":null,"arr":[1,null,3,null,null,null,null,null],"big":2,"b":true,"d":"1970-01-01T00:00:00.000Z","bad":null,"m":{"1":"one","k":[true]}}',
      );
    });

    test.each([
      ["a function in an array", [() => 1], "[null]"],
      ["a symbol in an array", [Symbol("s")], "[null]"],
      ["a hole in an array", [, 1], "[null,1]"],
      ["a symbol in an object", { a: Symbol("s"), b: 1 }, '{"b":1}'],
      ["a function in an object", { a: () => 1, b: 1 }, '{"b":1}'],
      ["a getter in an object", Object.defineProperty({ b: 1 }, "g", { get: () => 2, enumerable: true }), '{"b":1}'],
    ])("%s", (_, value, json) => {
      expect(template("v=${1}", { 1: value })).toBe(`v=${json}`);
    });

    test("a key that disappears between listing and reading is left out", () => {
      let calls = 0;
      const flaky = new Proxy(
        {},
        {
          ownKeys: () => ["x"],
          getOwnPropertyDescriptor: () => (++calls === 1 ? { value: 1, writable: true, enumerable: true, configurable: true } : undefined),
        },
      );
      expect(template("v=${1}", { 1: flaky })).toBe("v={}");
    });
  });

  describe("length limit", () => {
    test("JSON that exactly fills the output budget is accepted", () => {
      expect(template("=${1}", { 1: { a: 1 } }, { maxOutputLength: 8 })).toBe('={"a":1}');
      expect(interpolationText({ a: 1 }, 7, 10)).toBe('{"a":1}');
    });

    test("JSON longer than the budget is a limit error (the template's own, in resolveRefs)", () => {
      const error = thrown(() => template("${1}!", { 1: { a: 1 } }, { maxOutputLength: 6 }));
      expect(error.code).toBe("limit");
      expect(error.message).toBe("template output is longer than maxOutputLength (6)");
      expect(() => interpolationText({ a: 1 }, 6, 10)).toThrow("interpolated value is longer than maxOutputLength (6)");
    });
  });

  describe("depth limit", () => {
    test.each([
      ["an object in an object", { a: {} }, '{"a":{}}'],
      ["an array in an array", [[]], "[[]]"],
    ])("%s is within maxDepth 1", (_, value, json) => {
      expect(template("v=${1}", { 1: value }, { maxDepth: 1 })).toBe(`v=${json}`);
    });

    test.each([
      ["objects", { a: { b: {} } }],
      ["arrays", [[[]]]],
      ["an array in an object", { a: [[1]] }],
    ])("%s nested deeper than maxDepth are a limit error", (_, value) => {
      const error = thrown(() => template("v=${1}", { 1: value }, { maxDepth: 1 }));
      expect(error.code).toBe("limit");
      expect(error.message).toBe("interpolated value is nested deeper than maxDepth (1)");
    });
  });

  test("a cycle is a cycle error; a shared value is not", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const error = thrown(() => template("v=${1}", { 1: cyclic }));
    expect(error.code).toBe("cycle");
    expect(error.message).toBe("interpolated value contains a cycle");
    const shared = { s: 1 };
    expect(template("v=${1}", { 1: { x: shared, y: [shared] } })).toBe('v={"x":{"s":1},"y":[{"s":1}]}');
  });

  test("a value that cannot be read is an access error about the interpolated value", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("boom");
        },
      },
    );
    const error = thrown(() => template("v=${1}", { 1: hostile }));
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read an interpolated value: boom");
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("src/resolve/stringify.ts: maxDepth counts every level", () => {
  test.each([
    ["an object in an object in an object", { a: { b: {} } }],
    ["an array in an object in an object", { a: { b: [] } }],
    ["an object in an array in an object", { a: [{}] }],
  ])("maxDepth counts every level of objects too: %s is over maxDepth 1", (_name, value) => {
    const error = thrown(() => template("x${1}", { 1: value }, { maxDepth: 1 }));
    expect(error.code).toBe("limit");
    expect(error.message).toBe("interpolated value is nested deeper than maxDepth (1)");
    expect(template("x${1}", { 1: value }, { maxDepth: 2 })).toBe(`x${JSON.stringify(value)}`);
  });
});
