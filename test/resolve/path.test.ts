/**
 * Path syntax: the shared rows in test/cases/path.json, then what JSON cannot express
 * (Maps and class instances inside a path, getters, holes) as TypeScript tables.
 */
import { describe, expect, test } from "vitest";
import type { ReferenceNode } from "../../src/grammar/ast.js";
import { parseRef } from "../../src/grammar/parse.js";
import type { Results } from "../../src/resolve/access.js";
import { evaluate } from "../../src/resolve/evaluate.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import type { KeyError } from "../../src/shared/errors.js";
import { expectError, loadCases, runResolveCase, thrownBy, type ErrorSpec } from "../helpers/cases.js";

const PATH = { syntax: "path" } as const;

describe("path.json", () => {
  test.each(loadCases("path.json"))("$name", (row) => runResolveCase(row));
});

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe("values JSON cannot express, inside a path", () => {
  const inner = { deep: "value" };
  const rows: { name: string; input: string; results: Results; expected: unknown }[] = [
    { name: "a Map in the middle of a path", input: "$1.m.k.deep", results: { 1: { m: new Map([["k", inner]]) } }, expected: "value" },
    { name: "a quoted key on a Map", input: '$1.m["a.b"]', results: { 1: { m: new Map([["a.b", 1]]) } }, expected: 1 },
    {
      name: "a null-prototype object in a path",
      input: "$1.n.k",
      results: { 1: { n: Object.assign(Object.create(null) as object, { k: 2 }) } },
      expected: 2,
    },
    { name: "a Map of results keyed by number", input: "$7.a[0]", results: new Map([[7, { a: ["x"] }]]), expected: "x" },
    { name: "an undefined element is a present element", input: "$1[0]", results: { 1: [undefined] }, expected: undefined },
    {
      name: "a class instance as the value is returned itself",
      input: "$1.p",
      results: { 1: { p: new Point(1, 2) } },
      expected: undefined,
    },
  ];
  test.each(rows)("$name", ({ name, input, results, expected }) => {
    const out = resolveRefs({ q: input }, results, PATH);
    if (name.includes("class instance")) expect(out["q"]).toBeInstanceOf(Point);
    else expect(out["q"]).toBe(expected);
  });

  const errors: { name: string; input: string; results: Results; error: ErrorSpec }[] = [
    {
      name: "a class instance has no keys, even own ones",
      input: "$1.p.x",
      results: { 1: { p: new Point(1, 2) } },
      error: { code: "not-indexable", key: "x", segment: 1, messageIncludes: "a class instance at .p" },
    },
    { name: "an array hole is a missing index", input: "$1[1]", results: { 1: [0, , 2] }, error: { code: "missing-key", key: 1 } },
    {
      name: "an array subclass takes no index",
      input: "$1[0]",
      results: { 1: new (class Arr extends Array<number> {})() },
      error: { code: "not-indexable" },
    },
    { name: "a typed array takes no index", input: "$1[0]", results: { 1: new Uint8Array([1]) }, error: { code: "not-indexable" } },
    { name: "a Map takes no index", input: "$1[0]", results: { 1: new Map([[0, "zero"]]) }, error: { code: "not-indexable" } },
    {
      name: "a Map's number key is not a string key",
      input: "$1.m.0",
      results: { 1: { m: new Map([[0, "zero"]]) } },
      error: { code: "missing-key", key: "0" },
    },
    { name: "a Date takes no key", input: "$1.d.getTime", results: { 1: { d: new Date(0) } }, error: { code: "not-indexable" } },
    {
      name: "an inherited key on a plain object",
      input: "$1.o.k",
      results: { 1: { o: Object.create({ k: 1 }) as object } },
      error: { code: "not-indexable" },
    },
  ];
  test.each(errors)("$name", ({ input, results, error }) => {
    expectError(
      thrownBy(() => resolveRefs({ q: input }, results, PATH)),
      { name: "KeyError", arg: "/q", ...error },
    );
  });
});

describe("getters are never invoked in a path", () => {
  test.each([
    // A getter is not data: the key reads as missing (a KeyError naming it), and a default takes over.
    ["a key", "$1.a.b", (g: PropertyDescriptor) => ({ 1: { a: Object.defineProperty({}, "b", g) } }), { missingKey: "b" }],
    ["an index", "$1.a[0]", (g: PropertyDescriptor) => ({ 1: { a: Object.defineProperty([], "0", g) } }), { missingKey: 0 }],
    ["a quoted key", '$1["x y"]', (g: PropertyDescriptor) => ({ 1: Object.defineProperty({}, "x y", g) }), { missingKey: "x y" }],
    [
      "a default's first reference",
      '$1.a ?? "fallback"',
      (g: PropertyDescriptor) => ({ 1: Object.defineProperty({}, "a", g) }),
      { value: "fallback" },
    ],
  ] as const)("a getter for %s", (_name, input, build, outcome) => {
    let calls = 0;
    const getter: PropertyDescriptor = {
      get() {
        calls++;
        return "from getter";
      },
      enumerable: true,
    };
    const results = build(getter) as Results;
    if ("value" in outcome) expect(resolveRefs({ q: input }, results, PATH)["q"]).toBe(outcome.value);
    else
      expectError(
        thrownBy(() => resolveRefs({ q: input }, results, PATH)),
        { name: "KeyError", code: "missing-key", key: outcome.missingKey },
      );
    expect(calls).toBe(0);
  });
});

describe("defaults fall back on KeyError only", () => {
  test("an access error from a hostile Proxy is not hidden by a default", () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error("trap");
        },
      },
    );
    expectError(
      thrownBy(() => resolveRefs({ q: '$1.a ?? "x"' }, { 1: hostile }, PATH)),
      { code: "access" },
    );
  });

  test("a limit error is not hidden by a default", () => {
    expectError(
      thrownBy(() => resolveRefs({ q: '$1.a.b.c ?? "x"' }, {}, { ...PATH, maxSegments: 2 })),
      { code: "limit" },
    );
  });
});

describe("errors point at the segment that failed", () => {
  test.each([
    ["$1.address.zip", { 1: { address: {} } }, 1, ".zip"],
    ["$1.items[9]", { 1: { items: [] } }, 1, "[9]"],
    ['$1["a b"].c', { 1: { "a b": {} } }, 1, ".c"],
    ['$1["a b"]', { 1: {} }, 0, '["a b"]'],
    ["$1.x.y.z", { 1: { x: { y: 5 } } }, 2, ".z"],
  ] as const)("%s fails at segment %#", (input, results, segment, text) => {
    const error = thrownBy(() => resolveRefs({ q: input }, results, PATH)) as KeyError;
    expect(error.segment).toBe(segment);
    expect(input.slice(error.span!.start, error.span!.end)).toBe(text);
    const ast = parseRef(input, PATH) as ReferenceNode;
    expect(ast.path[segment]!.span).toEqual(error.span);
  });

  test("evaluate names the reference even without its source text", () => {
    const error = thrownBy(() => evaluate(parseRef("$01.a[0]", PATH), { 1: { a: [] } })) as KeyError;
    expect(error.message).toContain("$1.a[0]");
    expect(error.segment).toBe(1);
  });
});
