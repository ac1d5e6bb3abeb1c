/**
 * The walk of args (src/resolve/walk-args.ts), through both forms that share it, resolveRefs and
 * compileArgs: getters, Proxies, cycles, shared sub-objects, sparse arrays, class instances, `__proto__`
 * keys, and the exact errors.
 */
import { describe, expect, test } from "vitest";
import { compileArgs } from "../../src/resolve/compile-args.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { thrownBy } from "../helpers/cases.js";

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
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")).toEqual({ value: "Paris", writable: true, enumerable: true, configurable: true });
    expect(Object.keys(target)).toEqual(["__proto__", "k"]);
  });
});
