/**
 * The grammar's rules (src/grammar/language.ts): their safe parse, and what they report read without the parse cache.
 */
import { describe, expect, test } from "vitest";
import { pathLanguage, runRule, seedLanguage } from "../../src/grammar/language.js";
import { RefError } from "../../src/shared/errors.js";
import { thrownBy } from "../helpers/cases.js";

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("language.ts: the rules' safe parse", () => {
  test.each([
    ["seed placeholder", seedLanguage.placeholder],
    ["path placeholder", pathLanguage.placeholder],
    ["seed template", seedLanguage.template],
    ["path step", pathLanguage.step],
  ])("%s: parse of a non-string is a RefError code syntax that says a string is needed", (_name, rule) => {
    const error = thrownBy(() => rule.parse(42 as unknown as string)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("a reference must be a string");
  });

  test("parse of a string still works", () => {
    const result = seedLanguage.placeholder.parse("$1.a");
    expect(result.status).toBe(true);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("language.ts: what the rules report, read without the parse cache", () => {
  test.each([
    ["seed", "$1.", 3, ["a key"]],
    ["path", "$1.", 3, ["a key"]],
    ["seed", "$1\n", 2, ["'.'", "EOF"]],
    ["path", "$1\n", 2, ["'.'", "'['", "??", "EOF"]],
    ["path", "$1.a\n", 4, ["'.'", "'['", "??", "EOF"]],
  ] as const)("%s placeholder %j fails at %d expecting %j (sorted, no repeats)", (syntax, text, offset, expected) => {
    const result = runRule((syntax === "seed" ? seedLanguage : pathLanguage).placeholder, text);
    expect(result).toEqual({ ok: false, offset, expected });
  });

  test("the exported rules' parse() counts lines up to the failure, not past it", () => {
    // The failure is at the newline itself: it is still on line 1.
    expect((seedLanguage.placeholder as unknown as { parse(text: string): unknown }).parse("$1\nx")).toEqual({
      status: false,
      index: { offset: 2, line: 1, column: 3 },
      expected: ["'.'", "EOF"],
    });
    expect((pathLanguage.template as unknown as { parse(text: string): unknown }).parse("a\n${1.")).toEqual({
      status: false,
      index: { offset: 6, line: 2, column: 5 },
      expected: ["a key"],
    });
  });
});
