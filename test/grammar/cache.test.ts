/**
 * BoundedCache (src/grammar/cache.ts): two generations, bounded, resizable.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { BoundedCache } from "../../src/grammar/cache.js";

type Op = { op: "get"; key: number } | { op: "set"; key: number } | { op: "resize"; size: number } | { op: "clear" };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("set" as const), key: fc.nat({ max: 40 }) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("get" as const), key: fc.nat({ max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("resize" as const), size: fc.nat({ max: 12 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
);

describe("BoundedCache", () => {
  test("never holds more entries than its bound, and never returns a value that was not set for that key", () => {
    fc.assert(
      fc.property(fc.nat({ max: 12 }), fc.array(op, { maxLength: 200 }), (bound, ops) => {
        const cache = new BoundedCache<string>(bound);
        const lastSet = new Map<number, string>();
        let version = 0;
        for (const step of ops) {
          switch (step.op) {
            case "set": {
              const value = `v${version++}`;
              cache.set(String(step.key), value);
              lastSet.set(step.key, value);
              // The entry just written is there, unless the cache holds nothing at all.
              expect(cache.get(String(step.key))).toBe(cache.maxEntries === 0 ? undefined : value);
              break;
            }
            case "get": {
              const found = cache.get(String(step.key));
              if (found !== undefined) expect(found).toBe(lastSet.get(step.key));
              break;
            }
            case "resize":
              cache.resize(step.size);
              expect(cache.maxEntries).toBe(step.size);
              break;
            case "clear":
              cache.clear();
              expect(cache.size).toBe(0);
              break;
          }
          expect(cache.size).toBeLessThanOrEqual(cache.maxEntries);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("keeps recently used entries when it evicts", () => {
    const cache = new BoundedCache<number>(4);
    cache.set("hot", 1);
    for (let i = 0; i < 100; i++) {
      expect(cache.get("hot")).toBe(1);
      cache.set(`cold${i}`, i);
    }
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  test("a bound of 0 caches nothing", () => {
    const cache = new BoundedCache<number>(0);
    cache.set("a", 1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test("shrinking drops entries down to the new bound", () => {
    const cache = new BoundedCache<number>(100);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i);
    cache.resize(5);
    expect(cache.size).toBeLessThanOrEqual(5);
    expect(cache.get("k99")).toBe(99);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("cache.ts: BoundedCache", () => {
  test("size counts both generations", () => {
    const cache = new BoundedCache<number>(4); // generations of 2
    cache.set("a", 1);
    cache.set("b", 2); // young is full: a and b become the old generation
    cache.set("c", 3);
    expect(cache.size).toBe(3);
    expect(cache.get("c")).toBe(3); // a young hit: nothing moves
    expect(cache.size).toBe(3);
  });

  test("resize(0) drops every entry and keeps none afterwards", () => {
    const cache = new BoundedCache<number>(4);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    cache.resize(0);
    expect(cache.maxEntries).toBe(0);
    expect(cache.size).toBe(0);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBeUndefined();
    cache.set("d", 4);
    expect(cache.size).toBe(0);
    expect(cache.get("d")).toBeUndefined();
  });

  test("resize to a smaller bound keeps the most recent entries", () => {
    const cache = new BoundedCache<number>(10);
    for (const [i, key] of ["a", "b", "c", "d"].entries()) cache.set(key, i);
    cache.resize(2); // generation 1: only the most recent entry stays
    expect(cache.size).toBe(1);
    expect(cache.get("d")).toBe(3);
    expect(cache.get("a")).toBeUndefined();
  });

  test("setting a key again replaces its value without growing the cache", () => {
    const cache = new BoundedCache<string>(10);
    cache.set("a", "first");
    cache.set("a", "second");
    expect(cache.size).toBe(1);
    expect(cache.get("a")).toBe("second");
  });
});
