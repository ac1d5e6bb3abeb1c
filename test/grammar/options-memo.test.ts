/**
 * How the parser reads its options and remembers the last ones (src/grammar/options-memo.ts).
 */
import { describe, expect, test } from "vitest";
import { isPlaceholder, parseRef, parseTemplate, tryParseRef } from "../../src/grammar/parse.js";
import { RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { thrownBy } from "../helpers/cases.js";

/** Options as a caller may hold them: a plain object whose fields it changes between calls. */
type MutableOptions = { -readonly [K in keyof ResolveOptions]: unknown };

function errorOf(result: ReturnType<typeof tryParseRef>): RefError {
  if (result.ok) throw new Error("expected the parse to fail");
  return result.error;
}

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("options-memo.ts: options that are not an object", () => {
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

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("options-memo.ts: an options object is read in full before it is checked", () => {
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

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("options-memo.ts: an options object changed between calls is read afresh", () => {
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
