/**
 * Assertions written for mutants that survived `npm run mutation` (Stryker over src/grammar and
 * src/resolve): each test pins a behaviour that no other test pinned exactly, so that changing the
 * code there now fails a test. Grouped by source file.
 */
import { describe, expect, test } from "vitest";
import type { RefAst, TemplateNode } from "../src/grammar/ast.js";
import { formatRef } from "../src/grammar/format.js";
import { clearParseCache, isPlaceholder, parseCacheStats, parseRef, parseTemplate, tryParseRef } from "../src/grammar/parse.js";
import { resolveRefs } from "../src/resolve/resolve-refs.js";
import { RefError, RefSyntaxError } from "../src/shared/errors.js";
import type { ResolveOptions } from "../src/shared/options.js";
import { thrownBy } from "./helpers/cases.js";

describe("format.ts", () => {
  test.each([
    ["a bare seed placeholder prints without braces", "$1.city", {}],
    ["a bare path expression with defaults prints without braces", '$1.a[0] ?? $2 ?? "x"', { syntax: "path" as const }],
    ["one braced interpolation keeps its braces", "${1.city}", {}],
    ["one text part prints as itself", "just text", {}],
    ["an empty template prints as nothing", "", {}],
    ["a path key containing } inside braces is a quoted key and prints", 'x ${1["}"]} y', { syntax: "path" as const }],
    ["a default inside braces prints", "${1.a ?? $2.b}", { syntax: "path" as const }],
  ])("%s", (_name, text, options) => {
    expect(formatRef(parseTemplate(text, options))).toBe(text);
  });

  test("a text part ending in $ before an interpolation cannot be printed: code syntax, and why", () => {
    const template: TemplateNode = {
      type: "template",
      span: { start: 0, end: 0 },
      parts: [
        { type: "text", span: { start: 0, end: 0 }, value: "a$" },
        { type: "interpolation", span: { start: 0, end: 0 }, form: "braced", expression: parseRef("$1") as never },
      ],
    };
    const error = thrownBy(() => formatRef(template)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toContain('ends with "$"');
  });

  test("a seed key with } inside braces cannot be printed: code syntax, and why", () => {
    const error = thrownBy(() => formatRef({ type: "template", span: { start: 0, end: 0 }, parts: [{ type: "interpolation", span: { start: 0, end: 0 }, form: "braced", expression: parseRef("$1.a}b") as never }] })) as RefError;
    expect(error.code).toBe("syntax");
    expect(error.message).toContain('cannot contain "}"');
  });

  test("a node that cannot be read is a RefError that says it was the AST", () => {
    const error = thrownBy(() => formatRef({ type: "reference" } as unknown as RefAst)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.message).toContain("could not read the AST");
  });
});

describe("parse.ts: which over-long strings are refused (maxRefLength 3)", () => {
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

describe("parse.ts: maxSegments", () => {
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
    expect((thrownBy(() => parseTemplate("${1.a} ${2.b.c}", { syntax: "path", maxSegments: 1 })) as RefError).message).toContain("has 2 path segments");
    expect(parseTemplate("${1.a} ${2.b}", { syntax: "path", maxInterpolations: 2 }).parts).toHaveLength(3);
    expect((thrownBy(() => parseTemplate("${1.a} ${2.b} ${3}", { syntax: "path", maxInterpolations: 2 })) as RefError).message).toBe("template has 3 interpolations, over maxInterpolations (2)");
  });
});

describe("parse.ts: the parse cache's admission, seen through parseCacheStats", () => {
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
