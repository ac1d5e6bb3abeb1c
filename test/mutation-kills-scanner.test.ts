/**
 * Assertions written for mutants of src/grammar/scanner.ts that survived the mutation run. The scanner
 * is the parser's fast path: when it gives up (returns `undefined`) the grammar decides, so a scanner
 * that gives up too often is invisible through parseRef. These tests therefore call `scanPlaceholder`
 * directly and pin its answer both exactly and against the grammar (`runRule(….placeholder, text)`).
 */
import { describe, expect, test } from "vitest";
import { pathLanguage, runRule, seedLanguage } from "../src/grammar/language.js";
import { scanPlaceholder } from "../src/grammar/scanner.js";

type Syntax = "seed" | "path";

/** What the grammar says: the AST, or `undefined` when the string is not a whole placeholder. */
function grammar(text: string, syntax: Syntax): unknown {
  const result = runRule((syntax === "seed" ? seedLanguage : pathLanguage).placeholder, text);
  return result.ok ? result.value : undefined;
}

describe("scanner.ts", () => {
  describe("text that is not a placeholder is rejected (as the grammar rejects it)", () => {
    test.each([
      ["a segment must start with . or [ (digits and ] after another character are no index)", "$1x0]"],
      ['a quoted key must be closed by ] right after the string', '$1["a"x'],
      ["?? needs two question marks: ?x is no default operator", "$1 ?x$2"],
      ["?? needs two question marks: x? is no default operator", "$1x?$2"],
      ["two arbitrary characters are no default operator before a reference", "$1ab$2"],
      ["two arbitrary characters are no default operator before a literal", "$1ab1"],
    ])("%s: %s", (_name, text) => {
      expect(grammar(text, "path")).toBeUndefined();
      expect(scanPlaceholder(text, "path")).toBeUndefined();
    });
  });

  describe("literal defaults false and null keep their spans", () => {
    test.each([
      ["$1 ?? false", false, { start: 6, end: 11 }],
      ["$1 ?? null", null, { start: 6, end: 10 }],
      ["$1??false", false, { start: 4, end: 9 }],
      ["$1??null", null, { start: 4, end: 8 }],
    ])("%s", (text, value, span) => {
      const scanned = scanPlaceholder(text, "path");
      expect(scanned).toStrictEqual(grammar(text, "path"));
      expect(scanned).toMatchObject({
        type: "default",
        span: { start: 0, end: text.length },
        reference: { type: "reference", span: { start: 0, end: 2 } },
        fallback: { type: "literal", span, value },
      });
    });

  });

  describe("long array indexes have Number's value, correctly rounded", () => {
    test.each([
      ["16 digits (still exact)", "$1[1234567890123456]", 1234567890123456],
      ["20 nines rounds to 1e20 (digit-by-digit arithmetic would give 100000000000000020000)", "$1[99999999999999999999]", 1e20],
      ["20 digits, correctly rounded", "$1[12345678901234567890]", 12345678901234567890],
      ["17 digits, correctly rounded", "$1[93639665995319412]", 93639665995319412],
    ])("%s", (_name, text, index) => {
      const scanned = scanPlaceholder(text, "path");
      expect(scanned).toStrictEqual(grammar(text, "path"));
      expect(scanned).toMatchObject({ type: "reference", path: [{ type: "index", span: { start: 2, end: text.length }, index }] });
    });

    test("short indexes keep their exact value", () => {
      expect(scanPlaceholder("$1[0][007][123456789012345]", "path")).toMatchObject({
        path: [{ index: 0 }, { index: 7 }, { index: 123456789012345 }],
      });
    });
  });
});
