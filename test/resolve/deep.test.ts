/**
 * Deep resolution: the shared rows in test/cases/deep.json, then what JSON cannot express
 * (cycles, shared sub-objects, class instances, Maps, Dates, typed arrays, frozen and sparse inputs).
 */
import { describe, expect, test } from "vitest";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import { expectError, loadCases, runResolveCase, thrownBy } from "../helpers/cases.js";

const DEEP = { deep: true } as const;

describe("deep.json", () => {
  test.each(loadCases("deep.json"))("$name", (row) => runResolveCase(row));
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

/** `{ a: { a: … "leaf" } }` with `levels` nested objects below the top. */
function nested(levels: number, leaf: unknown): Record<string, unknown> {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return { top: value };
}

describe("cycles", () => {
  test.each([
    [
      "an object that contains itself",
      () => {
        const a: Record<string, unknown> = { x: "$1" };
        a["self"] = a;
        return { a };
      },
      "/a/self",
    ],
    [
      "an array that contains itself",
      () => {
        const list: unknown[] = ["$1"];
        list.push(list);
        return { list };
      },
      "/list/1",
    ],
    [
      "two objects that point at each other",
      () => {
        const a: Record<string, unknown> = {};
        const b: Record<string, unknown> = { a };
        a["b"] = b;
        return { a };
      },
      "/a/b/a",
    ],
    [
      "a nested value that points back at args",
      () => {
        const args: Record<string, unknown> = { q: "$1" };
        args["inner"] = { back: args };
        return args;
      },
      "/inner/back",
    ],
  ])("%s is RefError code cycle with the path", (_name, build, pointer) => {
    const error = thrownBy(() => resolveRefs(build(), { 1: 1 }, DEEP));
    expectError(error, { code: "cycle", name: "RefError", arg: pointer, messageIncludes: pointer });
  });

  test("a cycle is not walked without deep", () => {
    const a: Record<string, unknown> = {};
    a["self"] = a;
    expect(resolveRefs({ a }, {})["a"]).toBe(a);
  });

  test("a shared sub-object that is not a cycle resolves normally", () => {
    const shared = { city: "$1.city", n: 1 };
    const out = resolveRefs({ a: shared, b: [shared, { c: shared }] }, { 1: { city: "Paris" } }, DEEP);
    const resolved = { city: "Paris", n: 1 };
    expect(out).toEqual({ a: resolved, b: [resolved, { c: resolved }] });
    expect(shared).toEqual({ city: "$1.city", n: 1 });
  });

  test("a shared sub-object without placeholders stays the same object everywhere", () => {
    const shared = { k: [1, 2] };
    const out = resolveRefs({ a: shared, b: [shared], c: "$1" }, { 1: 1 }, DEEP);
    expect(out["a"]).toBe(shared);
    expect((out["b"] as unknown[])[0]).toBe(shared);
  });

  test("a cyclic value inside results is never walked (single pass)", () => {
    const result: Record<string, unknown> = { x: "$2" };
    result["self"] = result;
    expect(resolveRefs({ a: { b: "$1" } }, { 1: result }, DEEP)).toEqual({ a: { b: result } });
  });
});

describe("maxDepth", () => {
  test("the default is 256: 256 nested levels resolve", () => {
    const out = resolveRefs(nested(255, { leaf: "$1" }), { 1: "ok" }, DEEP);
    let value: unknown = out["top"];
    for (let i = 0; i < 255; i++) value = (value as Record<string, unknown>)["a"];
    expect(value).toEqual({ leaf: "ok" });
  });

  test("the default is 256: 257 nested levels are a limit error", () => {
    expectError(
      thrownBy(() => resolveRefs(nested(256, { leaf: "$1" }), { 1: "ok" }, DEEP)),
      { code: "limit", name: "RefError" },
    );
  });

  test.each([1_000, 100_000])("%i nested levels are a limit error, never a stack overflow", (levels) => {
    expectError(
      thrownBy(() => resolveRefs(nested(levels, "$1"), { 1: 1 }, DEEP)),
      { code: "limit" },
    );
  });

  test("a huge maxDepth still ends in a RefError, never a RangeError", () => {
    expectError(
      thrownBy(() => resolveRefs(nested(200_000, "$1"), { 1: 1 }, { ...DEEP, maxDepth: 1_000_000 })),
      { code: "limit" },
    );
  });

  test("deeply nested arrays", () => {
    let value: unknown = "$1";
    for (let i = 0; i < 300; i++) value = [value];
    expectError(
      thrownBy(() => resolveRefs({ v: value }, { 1: 1 }, DEEP)),
      { code: "limit" },
    );
    expect(resolveRefs({ v: value }, { 1: 1 }, { ...DEEP, maxDepth: 300 })["v"]).toEqual(
      JSON.parse(`${"[".repeat(300)}1${"]".repeat(300)}`),
    );
  });
});

class Holder {
  constructor(readonly q = "$1") {}
}

describe("values that are not plain objects or arrays pass through untouched", () => {
  const rows: [string, () => unknown][] = [
    ["a class instance", () => new Holder()],
    ["a Map", () => new Map([["q", "$1"]])],
    ["a Set", () => new Set(["$1"])],
    ["a Date", () => new Date(0)],
    ["a typed array", () => new Uint8Array([1, 2])],
    ["an ArrayBuffer", () => new ArrayBuffer(4)],
    ["an array subclass", () => new (class List extends Array<string> {})("$1")],
    ["a RegExp", () => /\$1/],
    ["a boxed string", () => Object("$1")],
    ["a function", () => () => "$1"],
    ["an object with a custom prototype", () => Object.create({ inherited: "$1" }) as object],
    ["an Error", () => new Error("$1")],
  ];
  test.each(rows)("%s", (_name, make) => {
    const value = make();
    const args = { top: value, nested: { value, q: "$1" } };
    const out = resolveRefs(args, { 1: "resolved" }, DEEP);
    expect(out["top"]).toBe(value);
    expect((out["nested"] as Record<string, unknown>)["value"]).toBe(value);
    expect((out["nested"] as Record<string, unknown>)["q"]).toBe("resolved");
  });

  test("a Map's placeholder entries stay placeholders", () => {
    const map = new Map([["q", "$1"]]);
    resolveRefs({ m: map }, { 1: 1 }, DEEP);
    expect(map.get("q")).toBe("$1");
  });
});

describe("containers and inputs", () => {
  test("inputs are never mutated and frozen inputs work", () => {
    const args = deepFreeze({ a: { b: ["$1", { c: "$2.x" }], d: { e: 1 } }, f: "$1" });
    const results = deepFreeze({ 1: "one", 2: { x: ["x"] } });
    const before = structuredClone({ args, results });
    const out = resolveRefs(args, results, DEEP);
    expect(out).toEqual({ a: { b: ["one", { c: ["x"] }], d: { e: 1 } }, f: "one" });
    expect({ args, results }).toEqual(before);
    expect(((out["a"] as Record<string, unknown>)["b"] as unknown[])[1]).not.toBe(args.a.b[1]);
    expect((out["a"] as Record<string, unknown>)["d"]).toBe(args.a.d);
  });

  test("a copied null-prototype object keeps its null prototype", () => {
    const inner = Object.assign(Object.create(null) as Record<string, unknown>, { q: "$1" });
    const out = resolveRefs({ inner }, { 1: 1 }, DEEP);
    expect(Object.getPrototypeOf(out["inner"])).toBeNull();
    expect({ ...(out["inner"] as object) }).toEqual({ q: 1 });
  });

  test("a copied array keeps its holes and length", () => {
    const sparse = ["$1", , "x"];
    const out = resolveRefs({ sparse }, { 1: 1 }, DEEP)["sparse"] as unknown[];
    expect(out).toHaveLength(3);
    expect(out[0]).toBe(1);
    expect(Object.hasOwn(out, 1)).toBe(false);
    expect(out[2]).toBe("x");
    expect(Array.isArray(out)).toBe(true);
  });

  test("NaN in an unchanged subtree does not force a copy", () => {
    const keep = { n: Number.NaN, list: [Number.NaN] };
    const out = resolveRefs({ keep, q: "$1" }, { 1: 1 }, DEEP);
    expect(out["keep"]).toBe(keep);
  });

  test("__proto__ keys stay own keys at every level and no prototype changes", () => {
    const args = JSON.parse('{"__proto__": {"__proto__": "$1", "list": [{"__proto__": "$1"}]}}') as Record<string, unknown>;
    const out = resolveRefs(args, { 1: { polluted: true } }, DEEP);
    const level1 = Object.getOwnPropertyDescriptor(out, "__proto__")?.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(level1)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(level1, "__proto__")?.value).toEqual({ polluted: true });
    const item = (level1["list"] as Record<string, unknown>[])[0]!;
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(item, "__proto__")).toBe(true);
    expect((item as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  test("a nested getter is refused, not invoked", () => {
    let calls = 0;
    const inner = Object.defineProperty({}, "q", {
      get() {
        calls++;
        return "$1";
      },
      enumerable: true,
    });
    expectError(
      thrownBy(() => resolveRefs({ inner }, { 1: 1 }, DEEP)),
      { code: "access" },
    );
    expect(calls).toBe(0);
  });

  test("a hostile Proxy in args is a RefError", () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("trap");
        },
      },
    );
    expect(thrownBy(() => resolveRefs({ hostile }, {}, DEEP))).toBeInstanceOf(RefError);
  });
});
