/**
 * The walk of args (src/resolve/walk-args.ts), through both forms that share it, resolveRefs and
 * compileArgs: getters, Proxies, cycles, shared sub-objects, sparse arrays, class instances, `__proto__`
 * keys, and the exact errors.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileArgs } from "../../src/resolve/compile-args.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { thrownBy } from "../helpers/cases.js";
import { countingResults } from "../helpers/counting.js";

type Resolve = (args: Record<string, unknown>, results: Record<string, unknown>, options?: ResolveOptions) => Record<string, unknown>;

const entries: [string, Resolve][] = [
  ["resolveRefs", (args, results, options) => resolveRefs(args, results, options)],
  ["compileArgs", (args, results, options) => compileArgs(args, options)(results)],
];

const results = { 1: { city: "Paris" } };
const deep: ResolveOptions = { deep: true };

function refError(thrown: unknown): RefError {
  expect(thrown).toBeInstanceOf(RefError);
  return thrown as RefError;
}

function withGetter(target: Record<string, unknown>, key: string): Record<string, unknown> {
  Object.defineProperty(target, key, { get: () => "$1.city", enumerable: true, configurable: true });
  return target;
}

function throwingProxy<T extends object>(target: T, trap: "ownKeys" | "getPrototypeOf"): T {
  return new Proxy(target, {
    [trap]() {
      throw new Error("boom");
    },
  });
}

function revoked<T extends object>(target: T): T {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}
// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe.each(entries)("the walk of args, through %s", (_name, resolve) => {
  test("a top-level getter is refused with its pointer in message and arg", () => {
    const error = refError(thrownBy(() => resolve(withGetter({ a: 1 }, "q"), results)));
    expect(error.code).toBe("access");
    expect(error.arg).toBe("/q");
    expect(error.detail).toBe("argument /q is a getter; plan-refs never invokes getters");
    expect(error.message).toBe("argument /q is a getter; plan-refs never invokes getters, in argument /q");
  });

  test("a nested getter (deep) names its escaped JSON Pointer", () => {
    const error = refError(thrownBy(() => resolve({ o: withGetter({}, "a/b~c") }, results, deep)));
    expect(error.code).toBe("access");
    expect(error.arg).toBe("/o/a~1b~0c");
    expect(error.message).toBe("argument /o/a~1b~0c is a getter; plan-refs never invokes getters, in argument /o/a~1b~0c");
  });

  test("args whose keys cannot be listed: access error naming the root", () => {
    const boom = thrownBy(() => resolve(throwingProxy({ q: "$1.city" }, "ownKeys"), results));
    const error = refError(boom);
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read args at (root): boom");
    expect(error.arg).toBeUndefined();
    expect((error.cause as Error).message).toBe("boom");
  });

  test("a nested object whose keys cannot be listed (deep): access error naming its pointer", () => {
    const error = refError(thrownBy(() => resolve({ o: throwingProxy({ q: "$1.city" }, "ownKeys") }, results, deep)));
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read args at /o: boom");
  });

  test.each([
    ["an object", () => throwingProxy({ q: "$1.city" }, "getPrototypeOf")],
    ["an array", () => throwingProxy(["$1.city"], "getPrototypeOf")],
  ])("a nested Proxy of %s whose prototype cannot be read (deep): access error naming its pointer", (_kind, make) => {
    const error = refError(thrownBy(() => resolve({ a: 1, o: make() }, results, deep)));
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read args at /o: boom");
    expect(error.arg).toBeUndefined();
  });

  test("without deep, unreadable Proxies are returned as they are, never inspected", () => {
    const proxy = throwingProxy({ q: "$1.city" }, "getPrototypeOf");
    const gone = revoked({});
    const out = resolve({ p: proxy, r: gone, q: "$1.city" }, results);
    expect(out["p"]).toBe(proxy);
    expect(out["r"]).toBe(gone);
    expect(out["q"]).toBe("Paris");
  });

  test("with deep, a revoked Proxy of a function is a value like any function: returned as it is", () => {
    const gone = revoked(function tool() {});
    const out = resolve({ f: gone, q: "$1.city" }, results, deep);
    expect(out["f"]).toBe(gone);
    expect(out["q"]).toBe("Paris");
  });

  test("with deep, a revoked Proxy of an object cannot be inspected: access error naming its pointer", () => {
    const error = refError(thrownBy(() => resolve({ f: revoked({}) }, results, deep)));
    expect(error.code).toBe("access");
    expect(error.message).toMatch(/^could not read args at \/f: /);
  });

  test("args that are a revoked Proxy: invalid, as an access error about args", () => {
    const error = refError(thrownBy(() => resolve(revoked({}), results)));
    expect(error.code).toBe("access");
    expect(error.message).toMatch(/^could not read args: /);
  });

  test("a key listed but gone when its descriptor is read is skipped", () => {
    let reads = 0;
    const args = new Proxy<Record<string, unknown>>(
      { gone: 1, q: "$1.city" },
      {
        getOwnPropertyDescriptor(target, key) {
          if (key === "gone" && ++reads > 1) return undefined;
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
      },
    );
    const out = resolve(args, results);
    expect(out).toEqual({ q: "Paris" });
    expect(Object.keys(out)).toEqual(["q"]);
  });

  test("args that contain themselves (deep): cycle at the first key that refers back", () => {
    const args: Record<string, unknown> = { q: "$1.city" };
    args["self"] = args;
    const error = refError(thrownBy(() => resolve(args, results, deep)));
    expect(error.code).toBe("cycle");
    expect(error.arg).toBe("/self");
    expect(error.message).toBe("args contain a cycle: /self refers back to one of its parents, in argument /self");
  });

  test("a nested cycle (deep) is a cycle, not a depth limit, with the pointer of the back edge", () => {
    const inner: Record<string, unknown> = { q: "$1.city" };
    inner["back"] = inner;
    const error = refError(thrownBy(() => resolve({ o: inner }, results, deep)));
    expect(error.code).toBe("cycle");
    expect(error.arg).toBe("/o/back");
    expect(error.detail).toBe("args contain a cycle: /o/back refers back to one of its parents");
  });

  test.each([
    ["object", () => ({ c: "$1.city" }), { c: "Paris" }],
    ["array", () => ["$1.city"], ["Paris"]],
  ])("a shared sub-%s with a placeholder resolves once and stays shared (deep)", (_kind, make, expected) => {
    const shared = make();
    const out = resolve({ a: shared, b: shared, c: [shared] }, results, deep);
    expect(out["a"]).toEqual(expected);
    expect(out["a"]).not.toBe(shared);
    expect(out["b"]).toBe(out["a"]);
    expect((out["c"] as unknown[])[0]).toBe(out["a"]);
  });

  test("a resolved sparse array keeps its length and its holes (deep)", () => {
    const list: unknown[] = ["$1.city"];
    list[2] = "x";
    list.length = 5; // a hole in the middle and two at the end
    const out = resolve({ list }, results, deep);
    const resolved = out["list"] as unknown[];
    expect(resolved).not.toBe(list);
    expect(resolved.length).toBe(5);
    expect(Object.keys(resolved)).toEqual(["0", "2"]);
    expect(resolved[0]).toBe("Paris");
    expect(resolved[2]).toBe("x");
  });

  test("class instances are not walked (deep): returned as they are, placeholders inside untouched", () => {
    class Box {
      v = "$1.city";
    }
    const box = new Box();
    const date = new Date(0);
    const out = resolve({ box, date, q: "$1.city" }, results, deep);
    expect(out["box"]).toBe(box);
    expect(box.v).toBe("$1.city");
    expect(out["date"]).toBe(date);
  });

  test.each([
    ["at the top level", {}],
    ["nested (deep)", deep],
  ])("a __proto__ key %s stays an ordinary writable, enumerable, configurable own property", (_where, options) => {
    const inner = JSON.parse('{"__proto__": "$1.city", "k": "v"}') as Record<string, unknown>;
    const args = options === deep ? { o: inner } : inner;
    const out = resolve(args, results, options);
    const target = (options === deep ? out["o"] : out) as Record<string, unknown>;
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")).toEqual({
      value: "Paris",
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(Object.keys(target)).toEqual(["__proto__", "k"]);
  });
});

/**
 * The remembered shape of the top-level arguments (walk-args.ts `TopShape`): from the second call in a
 * row with the same keys, the output is a copy of an object with those keys and each string's
 * classification is remembered per key. A fast path: it must give exactly what the general path gives.
 */
describe("the remembered shape of top-level arguments", () => {
  type Outcome =
    | { ok: true; value: Record<string, unknown>; keys: string[]; proto: unknown }
    | { ok: false; name: string; code: string; arg: string | undefined; message: string };
  function outcome(run: () => Record<string, unknown>): Outcome {
    try {
      const value = run();
      return { ok: true, value, keys: Object.keys(value), proto: Object.getPrototypeOf(value) };
    } catch (error) {
      const e = refError(error);
      return { ok: false, name: e.name, code: e.code, arg: e.arg, message: e.message };
    }
  }
  let fresh = 0;
  /** The general path: the same arguments plus one key never seen before, so no shape can apply (the extra key is taken out again). */
  function generalPath(args: Record<string, unknown>, results: Record<string, unknown>, options: ResolveOptions | undefined): Outcome {
    const extra = `fresh ${++fresh}`;
    const result = outcome(() => resolveRefs({ ...args, [extra]: 0 }, results, options));
    if (!result.ok) return result;
    const value = { ...result.value };
    delete value[extra];
    return { ok: true, value, keys: Object.keys(value), proto: Object.getPrototypeOf(result.value) };
  }

  const shapeResults = { 1: { city: "Paris", a: { b: 2 } }, 2: "two" };
  const text = fc.constantFrom("$1.city", "$1", "$2", "$5 off", "$1.missing", "plain", "${1.city}", "$1.a.b", "$$1", "$1.a[0]", "$2 ?? 1");
  const value = fc.oneof(text, text, fc.constantFrom(3, null, true));
  const options = fc.constantFrom<ResolveOptions | undefined>(
    undefined,
    { strict: true },
    { syntax: "path" },
    { templates: true },
    { syntax: "path", templates: true },
    { maxPlaceholders: 1 },
  );
  const keySet = fc.constantFrom(["a", "b", "c"], ["c", "b", "a"], ["a", "__proto__", "0"], ["x"]);

  test("a run of calls, same keys or not, values and options changing: each call gives what the general path gives", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keySet, fc.array(value, { minLength: 4, maxLength: 4 }), options), { minLength: 2, maxLength: 10 }),
        (calls) => {
          for (const [keys, values, opts] of calls) {
            const args: Record<string, unknown> = {};
            keys.forEach((key, i) =>
              Object.defineProperty(args, key, { value: values[i], writable: true, enumerable: true, configurable: true }),
            );
            expect(outcome(() => resolveRefs(args, shapeResults, opts))).toEqual(generalPath(args, shapeResults, opts));
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  test("the same string at a key under other options is classified again (strict turns a near-miss into an error)", () => {
    const args = { q: "$1 x", r: "$1.city" };
    for (let i = 0; i < 3; i++) expect(resolveRefs(args, shapeResults)).toEqual({ q: "$1 x", r: "Paris" });
    expect(refError(thrownBy(() => resolveRefs(args, shapeResults, { strict: true }))).code).toBe("syntax");
    expect(resolveRefs(args, shapeResults)).toEqual({ q: "$1 x", r: "Paris" });
  });

  test("another string at the same key is classified again", () => {
    for (let i = 0; i < 3; i++) expect(resolveRefs({ q: "$1.city" }, shapeResults)).toEqual({ q: "Paris" });
    expect(resolveRefs({ q: "$2" }, shapeResults)).toEqual({ q: "two" });
    expect(resolveRefs({ q: "$2x" }, shapeResults)).toEqual({ q: "$2x" });
  });

  test("alternating key sets, and a key set after a shape was made: the right keys, in order, own data, plain prototype", () => {
    const a = JSON.parse('{"__proto__": "$1.city", "k": "$2", "0": 1}') as Record<string, unknown>;
    const b = { k: "$2", z: 1 };
    for (const args of [a, a, a, b, a, b, b, a]) {
      const out = resolveRefs(args, shapeResults);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      if (args === a) {
        expect(Object.keys(out)).toEqual(["0", "__proto__", "k"]);
        expect(Object.getOwnPropertyDescriptor(out, "__proto__")).toEqual({
          value: "Paris",
          writable: true,
          enumerable: true,
          configurable: true,
        });
        expect(out["k"]).toBe("two");
      } else {
        expect(out).toEqual({ k: "two", z: 1 });
      }
      // Each output is a new object: changing one leaves the next untouched.
      out["k"] = "changed";
    }
  });

  test("arguments with more keys than a shape holds resolve the same, call after call", () => {
    const args: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) args[`k${i}`] = i % 2 === 0 ? "$1.city" : i;
    for (let call = 0; call < 3; call++) {
      const out = resolveRefs(args, shapeResults);
      expect(Object.keys(out)).toEqual(Object.keys(args));
      expect(out["k0"]).toBe("Paris");
      expect(out["k1"]).toBe(1);
    }
  });

  test("strings longer than the parse cache keeps are classified every time, and still resolve", () => {
    const long = `$1.${"x".repeat(600)}`;
    const results = { 1: { [long.slice(3)]: "found" } };
    for (let i = 0; i < 3; i++) expect(resolveRefs({ q: long }, results)).toEqual({ q: "found" });
  });
});

describe("the step memo of one call", () => {
  test.each(entries)("through %s: one step named twice in a row is read once per call, and again on the next call", (_name, resolve) => {
    const { results, reads } = countingResults({ 1: { city: "Paris", country: "FR" }, 2: "two" });
    expect(resolve({ a: "$1.city", b: "$1.country", c: "$2", d: "$1.city" }, results)).toEqual({
      a: "Paris",
      b: "FR",
      c: "two",
      d: "Paris",
    });
    expect(reads).toEqual(["1", "2", "1"]);
    reads.length = 0;
    expect(resolve({ a: "$1.city" }, results)).toEqual({ a: "Paris" });
    expect(reads).toEqual(["1"]);
  });

  test("results changed between calls are read afresh (the memo belongs to one call)", () => {
    const results: Record<string, unknown> = { 1: { city: "Paris" } };
    const compiled = compileArgs({ a: "$1.city", b: "$1.city" });
    expect(resolveRefs({ a: "$1.city", b: "$1.city" }, results)).toEqual({ a: "Paris", b: "Paris" });
    expect(compiled(results)).toEqual({ a: "Paris", b: "Paris" });
    results[1] = { city: "Lyon" };
    expect(resolveRefs({ a: "$1.city", b: "$1.city" }, results)).toEqual({ a: "Lyon", b: "Lyon" });
    expect(compiled(results)).toEqual({ a: "Lyon", b: "Lyon" });
    expect(refError(thrownBy(() => compiled({ 2: 1 }))).code).toBe("missing-step");
  });
});
