/**
 * Assertions written for mutants of src/grammar/parse.ts that survived `npm run mutation`: each test
 * pins a behaviour of the parser's public functions (options handling, the parse cache and its
 * admission, limits, freezing of cached ASTs) that no other test pinned exactly. See also
 * test/mutation-kills.test.ts (maxRefLength, maxSegments, cache admission), which this file does not repeat.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { InterpolationPart, ReferenceNode, TemplateNode } from "../src/grammar/ast.js";
import {
  clearParseCache,
  DEFAULT_PARSE_CACHE_SIZE,
  isPlaceholder,
  parseCacheStats,
  parseRef,
  parseTemplate,
  setParseCacheSize,
  tryParseRef,
} from "../src/grammar/parse.js";
import { RefError } from "../src/shared/errors.js";
import type { ResolveOptions } from "../src/shared/options.js";
import { thrownBy } from "./helpers/cases.js";

/** Options as a caller may hold them: a plain object whose fields it changes between calls. */
type MutableOptions = { -readonly [K in keyof ResolveOptions]: unknown };

function errorOf(result: ReturnType<typeof tryParseRef>): RefError {
  if (result.ok) throw new Error("expected the parse to fail");
  return result.error;
}

describe("parse.ts: the parse cache's size", () => {
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

describe("parse.ts: which strings reach the parse cache", () => {
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

describe("parse.ts: cached ASTs are frozen all the way down", () => {
  test("a template's parts, its interpolations' expressions and their paths are frozen", () => {
    clearParseCache();
    const result = tryParseRef('a ${1.b[0]} c ${2["d"] ?? 3}', { syntax: "path", templates: true });
    expect(result.ok).toBe(true);
    const ast = (result as { value: TemplateNode }).value;
    expect(ast.type).toBe("template");
    expect(Object.isFrozen(ast)).toBe(true);
    expect(Object.isFrozen(ast.parts)).toBe(true);
    expect(ast.parts).toHaveLength(4);
    for (const part of ast.parts) {
      expect(Object.isFrozen(part)).toBe(true);
      expect(Object.isFrozen(part.span)).toBe(true);
    }
    const first = (ast.parts[1] as InterpolationPart).expression as ReferenceNode;
    expect(first.type).toBe("reference");
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.path)).toBe(true);
    expect(Object.isFrozen(first.step)).toBe(true);
    for (const segment of first.path) expect(Object.isFrozen(segment)).toBe(true);
    const second = (ast.parts[3] as InterpolationPart).expression;
    expect(second.type).toBe("default");
    expect(Object.isFrozen(second)).toBe(true);
    if (second.type === "default") {
      expect(Object.isFrozen(second.reference)).toBe(true);
      expect(Object.isFrozen(second.reference.path[0])).toBe(true);
      expect(Object.isFrozen(second.fallback)).toBe(true);
    }
    // Frozen, so a caller cannot change what the next caller gets from the cache.
    expect(() => {
      (ast.parts as unknown[]).push("x");
    }).toThrow(TypeError);
    const again = tryParseRef('a ${1.b[0]} c ${2["d"] ?? 3}', { syntax: "path", templates: true });
    expect(again.ok && again.value).toBe(ast);
  });
});

describe("parse.ts: the segment limit's error", () => {
  test("its ref is the first 40 characters of a long reference", () => {
    const text = `$1.${Array.from({ length: 30 }, (_, i) => `k${i}`).join(".")}`;
    expect(text.length).toBeGreaterThan(40);
    const error = errorOf(tryParseRef(text, { syntax: "path", maxSegments: 2 }));
    expect(error.code).toBe("limit");
    expect(error.ref).toBe(text.slice(0, 40));
    expect(error.message).toContain("reference has 30 path segments and defaults, over maxSegments (2)");
  });
});

describe("parse.ts: parseTemplate", () => {
  test("a value that is not a string is a syntax RefError that names its type", () => {
    const error = thrownBy(() => parseTemplate(5 as unknown as string)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("a template must be a string, not number");
  });

  test("a whole-string placeholder over maxSegments is refused; within it, it is one bare part", () => {
    const error = thrownBy(() => parseTemplate("$1.a.b", { syntax: "path", maxSegments: 1 })) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("limit");
    expect(error.message).toContain("reference has 2 path segments and defaults, over maxSegments (1)");
    const template = parseTemplate("$1.a", { syntax: "path", maxSegments: 1 });
    expect(template.parts).toHaveLength(1);
    expect(template.parts[0]).toMatchObject({ type: "interpolation", form: "bare" });
  });

  test.each([
    ["$.abc", {}, false],
    ["$$abc", {}, true],
    ["$12.x", {}, true],
    ["$12 x", { syntax: "path" as const }, false],
    ["$12 ?? x", { syntax: "path" as const }, true],
  ])("over maxRefLength, %s with %o is refused: %s (else it is one text part)", (text, options, refused) => {
    const parse = () => parseTemplate(text, { ...options, maxRefLength: 2 });
    if (refused) {
      const error = thrownBy(parse) as RefError;
      expect(error.code).toBe("limit");
      expect(error.message).toContain(`template of ${text.length} characters exceeds maxRefLength (2)`);
    } else {
      expect(parse()).toEqual({ type: "template", span: { start: 0, end: text.length }, parts: [{ type: "text", span: { start: 0, end: text.length }, value: text }] });
    }
  });
});

describe("parse.ts: options that are not an object", () => {
  test("no options means the defaults", () => {
    expect(tryParseRef("$1.a b").ok).toBe(true);
    expect(isPlaceholder("$1.a b", undefined)).toBe(true);
  });

  test.each([
    ["null", null],
    ["a number", 5],
    ["a string", "path"],
    ["a boolean", true],
    ["a function", () => ({})],
  ])("%s is refused with code invalid-options", (_name, options) => {
    const error = errorOf(tryParseRef("$1", options as unknown as ResolveOptions));
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("invalid-options");
    expect(error.message).toBe("options must be an object");
    expect(() => isPlaceholder("$1", options as unknown as ResolveOptions)).toThrow("options must be an object");
    expect(() => parseTemplate("$1", options as unknown as ResolveOptions)).toThrow("options must be an object");
  });
});

describe("parse.ts: an options object is read in full before it is checked", () => {
  test("a throwing getter is an access error that says it was the options, even beside an invalid syntax", () => {
    const boom = new Error("boom");
    const options = {
      syntax: "xml",
      get templates(): boolean {
        throw boom;
      },
    } as unknown as ResolveOptions;
    const error = errorOf(tryParseRef("$1", options));
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read the options: boom");
    expect(error.cause).toBe(boom);
    expect((thrownBy(() => parseRef("$1", options)) as RefError).code).toBe("access");
  });
});

describe("parse.ts: an options object changed between calls is read afresh", () => {
  test.each([
    ["syntax", "path", "xml"],
    ["templates", true, "yes"],
    ["strict", true, "yes"],
    ["maxRefLength", 100, -1],
    ["maxSegments", 100, 1.5],
    ["deep", true, "yes"],
    ["maxDepth", 100, -1],
    ["maxPlaceholders", 100, -1],
    ["maxOutputLength", 100, -1],
  ] as const)("%s changed to an invalid value on the same object is refused", (field, valid, invalid) => {
    const options: MutableOptions = { [field]: valid };
    expect(tryParseRef("$1.a", options as ResolveOptions).ok).toBe(true);
    expect(tryParseRef("$1.a", options as ResolveOptions).ok).toBe(true);
    options[field] = invalid;
    const error = errorOf(tryParseRef("$1.a", options as ResolveOptions));
    expect(error.code).toBe("invalid-options");
    expect(error.message).toContain(`option ${field} must be`);
    options[field] = valid;
    expect(tryParseRef("$1.a", options as ResolveOptions).ok).toBe(true);
  });

  test("templates switched on and off on the same object", () => {
    const options: MutableOptions = { templates: false };
    expect(isPlaceholder("a ${1} b", options as ResolveOptions)).toBe(false);
    options.templates = true;
    expect(isPlaceholder("a ${1} b", options as ResolveOptions)).toBe(true);
    options.templates = false;
    expect(isPlaceholder("a ${1} b", options as ResolveOptions)).toBe(false);
  });

  test("syntax switched on the same object", () => {
    const options: MutableOptions = { syntax: "seed" };
    expect(tryParseRef("$1.a b", options as ResolveOptions).ok).toBe(true);
    options.syntax = "path";
    expect(errorOf(tryParseRef("$1.a b", options as ResolveOptions)).code).toBe("syntax");
  });

  test("maxRefLength lowered on the same object, and on another object that differs only there", () => {
    const options: MutableOptions = { maxRefLength: 100 };
    expect(tryParseRef("$1.abcdef", options as ResolveOptions).ok).toBe(true);
    options.maxRefLength = 3;
    expect(errorOf(tryParseRef("$1.abcdef", options as ResolveOptions)).code).toBe("limit");
    expect(tryParseRef("$1.abcdef", { maxRefLength: 100 }).ok).toBe(true);
    expect(errorOf(tryParseRef("$1.abcdef", { maxRefLength: 3 })).code).toBe("limit");
  });

  test("maxSegments lowered on the same object", () => {
    const options: MutableOptions = { syntax: "path", maxSegments: 2 };
    expect(tryParseRef("$1.a.b", options as ResolveOptions).ok).toBe(true);
    options.maxSegments = 1;
    expect(errorOf(tryParseRef("$1.a.b", options as ResolveOptions)).code).toBe("limit");
  });
});

describe("parse.ts: survivors of the second mutation run", () => {
  test("tryParseRef on a value that is not a string says what it got", () => {
    for (const [value, type] of [[42, "number"], [null, "object"], [undefined, "undefined"]] as const) {
      const result = tryParseRef(value as unknown as string);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toBe(`a reference must be a string, not ${type}`);
    }
  });

  test("parseTemplate: a template of exactly maxRefLength characters is parsed, one more is a limit error", () => {
    const text = "a${1.b}"; // 7 characters
    expect(parseTemplate(text, { syntax: "path", maxRefLength: 7 }).parts.map((part) => part.type)).toEqual(["text", "interpolation"]);
    expect((thrownBy(() => parseTemplate(`${text}c`, { syntax: "path", maxRefLength: 7 })) as RefError).code).toBe("limit");
  });
});
