/**
 * The parse cache is bounded: by default and by `setParseCacheSize`, it never holds more entries than
 * its bound, however many distinct strings go through the parser; and a cached answer is always the
 * answer a cold parse gives, for every option set.
 */
import fc from "fast-check";
import { afterEach, describe, expect, test } from "vitest";
import { BoundedCache } from "../src/grammar/cache.js";
import { clearParseCache, DEFAULT_PARSE_CACHE_SIZE, isPlaceholder, parseCacheStats, parseRef, setParseCacheSize, tryParseRef } from "../src/grammar/parse.js";
import { resolveRefs } from "../src/resolve/resolve-refs.js";
import { RefError } from "../src/shared/errors.js";

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

describe("the parse cache", () => {
  afterEach(() => {
    setParseCacheSize(DEFAULT_PARSE_CACHE_SIZE);
    clearParseCache();
  });

  test("is bounded by default", () => {
    expect(parseCacheStats().maxEntries).toBe(DEFAULT_PARSE_CACHE_SIZE);
    for (let i = 0; i < DEFAULT_PARSE_CACHE_SIZE * 2 + 500; i++) {
      // Each string twice (a scanned placeholder is cached on its second sighting), and a near-miss.
      const args = { a: `$${i}`, b: `$1.key${i}`, c: `$${i} off`, d: `$${i}`, e: `$1.key${i}` };
      resolveRefs(args, new Map<number, unknown>([[i, i], [1, { [`key${i}`]: i }]]));
      if (i % 1000 === 0) expect(parseCacheStats().size).toBeLessThanOrEqual(DEFAULT_PARSE_CACHE_SIZE);
    }
    const { size, maxEntries } = parseCacheStats();
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(maxEntries);
  });

  test.each([0, 1, 2, 7, 100])("is bounded by setParseCacheSize(%i), for every option set", (bound) => {
    setParseCacheSize(bound);
    const options = [undefined, { syntax: "path" as const }, { templates: true }, { syntax: "path" as const, templates: true, strict: true }];
    for (let i = 0; i < 500; i++) {
      for (const option of options) {
        isPlaceholder(`$${i}.a.b`, option);
        tryParseRef(`$${i}.[${i}`, option);
        tryParseRef(`x \${${i}.a} y`, option);
      }
      expect(parseCacheStats().size).toBeLessThanOrEqual(bound);
    }
    expect(parseCacheStats()).toEqual({ size: expect.any(Number) as number, maxEntries: bound });
  });

  test("a placeholder the scanner parses is cached when seen a second time; what needs the grammar at once", () => {
    const ast = parseRef("$1.city");
    expect(parseCacheStats().size).toBe(0);
    expect(parseRef("$1.city")).toStrictEqual(ast);
    expect(parseCacheStats().size).toBe(1);
    // A hit gives the very AST that was cached.
    expect(parseRef("$1.city")).toBe(parseRef("$1.city"));
    parseRef("a ${1.city}", { templates: true });
    expect(parseCacheStats().size).toBe(2);
    tryParseRef("$1.");
    expect(parseCacheStats().size).toBe(3);
  });

  test("setParseCacheSize returns the previous bound and shrinks the cache at once", () => {
    for (let i = 0; i < 50; i++) {
      parseRef(`$${i}`);
      parseRef(`$${i}`);
    }
    expect(parseCacheStats().size).toBe(50);
    expect(setParseCacheSize(10)).toBe(DEFAULT_PARSE_CACHE_SIZE);
    expect(parseCacheStats().size).toBeLessThanOrEqual(10);
    expect(setParseCacheSize(DEFAULT_PARSE_CACHE_SIZE)).toBe(10);
  });

  test.each([-1, 1.5, Number.NaN, Infinity])("rejects the size %s", (size) => {
    expect(() => setParseCacheSize(size)).toThrow(RefError);
    expect(parseCacheStats().maxEntries).toBe(DEFAULT_PARSE_CACHE_SIZE);
  });

  test("does not keep strings longer than 512 characters", () => {
    const long = `$1.${"k".repeat(600)}`;
    parseRef(long);
    parseRef(long);
    expect(parseCacheStats().size).toBe(0);
    parseRef("$1.short");
    parseRef("$1.short");
    expect(parseCacheStats().size).toBe(1);
  });

  test("an options object changed between calls is read afresh", () => {
    const options: { syntax?: "seed" | "path"; maxSegments?: number; maxDepth?: number } = { syntax: "seed" };
    for (let round = 0; round < 2; round++) {
      options.syntax = "seed";
      delete options.maxSegments;
      delete options.maxDepth;
      expect(parseRef("$1.a.b", options)).toMatchObject({ path: [{ name: "a.b" }] });
      options.syntax = "path";
      expect(parseRef("$1.a.b", options)).toMatchObject({ path: [{ name: "a" }, { name: "b" }] });
      options.maxSegments = 1;
      expect(tryParseRef("$1.a.b", options)).toMatchObject({ ok: false, error: { code: "limit" } });
      options.maxDepth = -1;
      expect(tryParseRef("$1.a.b", options)).toMatchObject({ ok: false, error: { code: "invalid-options" } });
      expect(() => isPlaceholder("$1", options)).toThrow(RefError);
    }
  });

  test("one cached string answers each option set as a cold parse would", () => {
    const texts = ["$1.a.b", "$1.a[0]", "$1 ?? 2", "$1.", "$5 off", "$$1", "a ${1.b} c", "${1.a", "$1.a.b.c.d"];
    const optionSets = [
      {},
      { strict: true },
      { syntax: "path" as const },
      { syntax: "path" as const, strict: true },
      { templates: true },
      { syntax: "path" as const, templates: true },
      { syntax: "path" as const, maxSegments: 2 },
      { syntax: "path" as const, maxSegments: 4 },
    ];
    const cold = (text: string, options: object) => {
      clearParseCache();
      return { result: tryParseRef(text, options), placeholder: isPlaceholder(text, options) };
    };
    const expected = texts.map((text) => optionSets.map((options) => cold(text, options)));
    clearParseCache();
    // Warm: every option set in turn on the same cache entries, twice, in a different order.
    for (const round of [0, 1]) {
      const order = round === 0 ? optionSets.map((_, i) => i) : optionSets.map((_, i) => optionSets.length - 1 - i);
      texts.forEach((text, t) => {
        for (const o of order) {
          const options = optionSets[o]!;
          expect({ result: tryParseRef(text, options), placeholder: isPlaceholder(text, options) }).toStrictEqual(expected[t]![o]);
        }
      });
    }
  });
});
