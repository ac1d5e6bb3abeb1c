/**
 * The parser's limits (src/grammar/limits.ts): maxRefLength, maxSegments, maxInterpolations, and their errors.
 */
import { describe, expect, test } from "vitest";
import { parseTemplate, tryParseRef } from "../../src/grammar/parse.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { thrownBy } from "../helpers/cases.js";

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("limits.ts: which over-long strings are refused (maxRefLength 3)", () => {
  const seed: ResolveOptions = {};
  const path: ResolveOptions = { syntax: "path" };
  const templates: ResolveOptions = { templates: true };
  const pathTemplates: ResolveOptions = { syntax: "path", templates: true };
  test.each([
    ["$12.x", seed, true],
    ["$1234", seed, true],
    ["$12 ?? x", seed, false],
    ["$12[0]", seed, false],
    ["$12x", seed, false],
    ["$x1234", seed, false],
    ["a$12.x", seed, false],
    ["$$12.x", seed, false],
    ["ab${1}", seed, false],
    ["$12.x", path, true],
    ["$12[0]", path, true],
    ['$12["a"]', path, true],
    ["$12[a]", path, false],
    ["$12[", path, false],
    ["$12 ?? x", path, true],
    ["$12  ??x", path, true],
    ["$12??x", path, true],
    ["$12 ? x", path, false],
    ["$12 x", path, false],
    ["$12 ?x", path, false],
    ["$12?x", path, false],
    ["$12 ?", path, false],
    ["ab${1}", templates, true],
    ["$$abc", templates, true],
    ["$abc", templates, false],
    ["abcd", templates, false],
    ["$12 ?? x", templates, false],
    ["$12 ?? x", pathTemplates, true],
  ] as const)("%s with %o: refused %s", (text, options, refused) => {
    const limited = { ...options, maxRefLength: 3 };
    let error: unknown;
    try {
      resolveRefs({ q: text }, {}, limited);
    } catch (thrown) {
      error = thrown;
    }
    if (refused) {
      expect(error).toBeInstanceOf(RefError);
      expect((error as RefError).code).toBe("limit");
      expect((error as RefError).ref).toBe(text.slice(0, 40));
      expect((error as RefError).message).toContain(`placeholder of ${text.length} characters exceeds maxRefLength (3)`);
    } else if (error !== undefined) {
      expect((error as RefError).code).not.toBe("limit");
    }
    const parsed = tryParseRef(text, limited);
    expect(parsed.ok ? "parsed" : parsed.error.code === "limit").toBe(refused ? true : parsed.ok ? "parsed" : false);
  });

  test("a string of exactly maxRefLength characters is parsed; the error's ref is the first 40 characters", () => {
    expect(resolveRefs({ q: "$1.x" }, { 1: { x: 7 } }, { maxRefLength: 4 })).toEqual({ q: 7 });
    const long = `$1.${"k".repeat(100)}`;
    const error = thrownBy(() => resolveRefs({ q: long }, {}, { maxRefLength: 50 })) as RefError;
    expect(error.ref).toBe(long.slice(0, 40));
    const template = thrownBy(() => parseTemplate(`\${1} ${"x".repeat(60)}`, { maxRefLength: 50 })) as RefError;
    expect(template.code).toBe("limit");
    expect(template.message).toContain("template of 65 characters exceeds maxRefLength (50)");
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("limits.ts: maxSegments", () => {
  test.each([
    ["$1.a.b", 2, true],
    ["$1.a.b", 1, false],
    ["$1.a ?? $2", 2, true],
    ["$1.a ?? $2", 1, false],
    ['$1 ?? $2[0] ?? "x"', 3, true],
    ['$1 ?? $2[0] ?? "x"', 2, false],
  ] as const)("%s with maxSegments %i: parsed %s", (text, maxSegments, parsed) => {
    const result = tryParseRef(text, { syntax: "path", maxSegments });
    expect(result.ok).toBe(parsed);
    if (!result.ok) {
      expect(result.error.code).toBe("limit");
      expect(result.error.ref).toBe(text.slice(0, 40));
      expect(result.error.message).toContain(`over maxSegments (${maxSegments})`);
    }
    const template = () => parseTemplate(`x \${${text.slice(1)}} y`, { syntax: "path", maxSegments });
    if (parsed) expect(template().parts).toHaveLength(3);
    else expect((thrownBy(template) as RefError).code).toBe("limit");
  });

  test("maxSegments bounds each interpolation of a template on its own; maxInterpolations counts them", () => {
    expect(parseTemplate("${1.a} ${2.b}", { syntax: "path", maxSegments: 1 }).parts).toHaveLength(3);
    expect((thrownBy(() => parseTemplate("${1.a} ${2.b.c}", { syntax: "path", maxSegments: 1 })) as RefError).message).toContain(
      "has 2 path segments",
    );
    expect(parseTemplate("${1.a} ${2.b}", { syntax: "path", maxInterpolations: 2 }).parts).toHaveLength(3);
    expect((thrownBy(() => parseTemplate("${1.a} ${2.b} ${3}", { syntax: "path", maxInterpolations: 2 })) as RefError).message).toBe(
      "template has 3 interpolations, over maxInterpolations (2)",
    );
  });
});

function errorOf(result: ReturnType<typeof tryParseRef>): RefError {
  if (result.ok) throw new Error("expected the parse to fail");
  return result.error;
}

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("limits.ts: the segment limit's error", () => {
  test("its ref is the first 40 characters of a long reference", () => {
    const text = `$1.${Array.from({ length: 30 }, (_, i) => `k${i}`).join(".")}`;
    expect(text.length).toBeGreaterThan(40);
    const error = errorOf(tryParseRef(text, { syntax: "path", maxSegments: 2 }));
    expect(error.code).toBe("limit");
    expect(error.ref).toBe(text.slice(0, 40));
    expect(error.message).toContain("reference has 30 path segments and defaults, over maxSegments (2)");
  });
});
