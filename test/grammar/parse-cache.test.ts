/**
 * The parse cache and its admission (src/grammar/parse-cache.ts): bounded by default and by
 * `setParseCacheSize`, whatever goes through the parser; which strings get in and when; and a cached
 * answer is always the answer a cold parse gives, for every option set.
 */
import { afterEach, describe, expect, test } from "vitest";
import {
  clearParseCache,
  DEFAULT_PARSE_CACHE_SIZE,
  isPlaceholder,
  parseCacheStats,
  parseRef,
  setParseCacheSize,
  tryParseRef,
} from "../../src/grammar/parse.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError, RefSyntaxError } from "../../src/shared/errors.js";
import { thrownBy } from "../helpers/cases.js";

describe("the parse cache", () => {
  afterEach(() => {
    setParseCacheSize(DEFAULT_PARSE_CACHE_SIZE);
    clearParseCache();
  });

  // Tagged slow (vitest.config.ts): tens of thousands of parses; left out of mutation runs.
  test("is bounded by default", { tags: ["slow"] }, () => {
    expect(parseCacheStats().maxEntries).toBe(DEFAULT_PARSE_CACHE_SIZE);
    for (let i = 0; i < DEFAULT_PARSE_CACHE_SIZE * 2 + 500; i++) {
      // Each string twice (a scanned placeholder is cached on its second sighting), and a near-miss.
      const args = { a: `$${i}`, b: `$1.key${i}`, c: `$${i} off`, d: `$${i}`, e: `$1.key${i}` };
      resolveRefs(
        args,
        new Map<number, unknown>([
          [i, i],
          [1, { [`key${i}`]: i }],
        ]),
      );
      if (i % 1000 === 0) expect(parseCacheStats().size).toBeLessThanOrEqual(DEFAULT_PARSE_CACHE_SIZE);
    }
    const { size, maxEntries } = parseCacheStats();
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(maxEntries);
  });

  test.each([0, 1, 2, 7, 100])("is bounded by setParseCacheSize(%i), for every option set", { tags: ["slow"] }, (bound) => {
    setParseCacheSize(bound);
    const options = [
      undefined,
      { syntax: "path" as const },
      { templates: true },
      { syntax: "path" as const, templates: true, strict: true },
    ];
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

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("parse-cache.ts: the parse cache's size", () => {
  afterEach(() => {
    setParseCacheSize(DEFAULT_PARSE_CACHE_SIZE);
    clearParseCache();
  });

  test("a size of 0 is accepted (it turns caching off) and returns the previous bound", () => {
    expect(setParseCacheSize(0)).toBe(DEFAULT_PARSE_CACHE_SIZE);
    expect(parseCacheStats()).toEqual({ size: 0, maxEntries: 0 });
    clearParseCache();
    for (let i = 0; i < 3; i++) expect(tryParseRef("$1.zero").ok).toBe(true);
    expect(parseCacheStats().size).toBe(0);
    expect(setParseCacheSize(DEFAULT_PARSE_CACHE_SIZE)).toBe(0);
  });

  test.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("a size of %s is refused with code invalid-options and why", (size) => {
    const error = thrownBy(() => setParseCacheSize(size)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("invalid-options");
    expect(error.message).toBe("the parse cache size must be a non-negative integer");
    expect(parseCacheStats().maxEntries).toBe(DEFAULT_PARSE_CACHE_SIZE);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("parse-cache.ts: which strings reach the parse cache", () => {
  test.each([
    ["text without $ (seed)", "plain text", {}],
    ["text with a digit second but no $", "a1bc", {}],
    ["text without $ or ${ (templates)", "plain text", { templates: true }],
    ["text with ${ when templates are off", "a ${1} b", {}],
    ["$ and no digit (seed)", "$abc", {}],
  ] as const)("%s is recognized as literal without parsing, so it is never cached", (_name, text, options) => {
    clearParseCache();
    for (let i = 0; i < 3; i++) expect(isPlaceholder(text, options)).toBe(false);
    expect(parseCacheStats().size).toBe(0);
  });

  test("a string of exactly 512 characters is cached; one of 513 is parsed every time", () => {
    clearParseCache();
    const at512 = `$1.${"k".repeat(509)}`;
    expect(at512).toHaveLength(512);
    for (let i = 0; i < 3; i++) expect(isPlaceholder(at512)).toBe(true);
    expect(parseCacheStats().size).toBe(1);
    clearParseCache();
    const at513 = `${at512}k`;
    for (let i = 0; i < 3; i++) expect(isPlaceholder(at513)).toBe(true);
    expect(parseCacheStats().size).toBe(0);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("parse-cache.ts: the parse cache's admission, seen through parseCacheStats", () => {
  test("a string that needs no parse is not cached; one the scanner parses is cached on its second sighting", () => {
    clearParseCache();
    expect(isPlaceholder("$abc", { templates: true })).toBe(false);
    expect(parseCacheStats().size).toBe(0);
    expect(isPlaceholder("$abc", { templates: true })).toBe(false);
    expect(parseCacheStats().size).toBe(1);
    clearParseCache();
    isPlaceholder("$1.abc");
    expect(parseCacheStats().size).toBe(0);
    isPlaceholder("$1.abc");
    expect(parseCacheStats().size).toBe(1);
  });

  test("a string that needs the grammar is cached at once, and a cheap outcome joins its entry at once", () => {
    clearParseCache();
    expect(tryParseRef("$1.a b", { syntax: "path" }).ok).toBe(false);
    expect(parseCacheStats().size).toBe(1);
    // Seed syntax reads the same text as one key: scanned (cheap), but its entry exists, so it is cached (and frozen) now.
    const seed = tryParseRef("$1.a b");
    expect(seed.ok && Object.isFrozen(seed.value)).toBe(true);
    expect(parseCacheStats().size).toBe(1);
  });

  test("a strict near-miss is a RefSyntaxError where the grammar stops, from a cold and a warm cache", () => {
    clearParseCache();
    for (let i = 0; i < 3; i++) {
      const result = tryParseRef("$1.a b", { syntax: "path" });
      expect(result.ok ? undefined : result.error).toBeInstanceOf(RefSyntaxError);
      expect(result.ok ? -1 : (result.error as RefSyntaxError).offset).toBe(4);
    }
    expect(() => resolveRefs({ q: "$1.a b" }, { 1: { a: 1 } }, { syntax: "path", strict: true })).toThrow(RefSyntaxError);
    expect(resolveRefs({ q: "$1.a b" }, { 1: { a: 1 } }, { syntax: "path" })).toEqual({ q: "$1.a b" });
  });
});
