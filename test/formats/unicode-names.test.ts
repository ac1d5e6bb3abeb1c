/**
 * The Unicode names behind `\N{…}` in fromLLMCompiler (src/formats/unicode-names/): the table is made
 * only when an escape needs it, it reads back whole, every name in it converts to its character, and
 * the messages for a refused name are safe and bounded. What CPython accepts and refuses, escape by
 * escape, is the generated table test/cases/formats-llmcompiler-names.json (convert-cases.test.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fromLLMCompiler, fromLLMCompilerStream } from "../../src/formats/index.js";
import { LONGEST_NAME, TABLE_ALIASES, TABLE_NAMES } from "../../src/formats/unicode-names/data.js";
import { characterByName, isNameTableLoaded, nameTable } from "../../src/formats/unicode-names/names.js";
import type { ToolCatalog } from "../../src/plan/plan.js";

const catalogs = JSON.parse(readFileSync(join(import.meta.dirname, "../cases/formats-catalogs.json"), "utf8")) as Record<
  string,
  ToolCatalog
>;
const catalog = catalogs.research!;

const query = (text: string): unknown => fromLLMCompiler(text, { catalog }).plan.steps[0]?.args.query;

// First in the file: the module state is this file's own (vitest isolates test files), so nothing has loaded the table yet.
describe("the table is made only when a \\N{…} escape needs it", () => {
  test("importing plan-refs/formats and converting plans without \\N{…} leave it unmade", async () => {
    expect(isNameTableLoaded()).toBe(false);
    expect(query('1. web_search("it\\\'s \\u00e9t\\u00e9 \\x41\\101\\n")\n2. fetch_page($1)\n3. join()')).toBe("it's été AA\n");
    expect(query('1. web_search(r"\\N{BULLET}")')).toBe("\\N{BULLET}");
    // Malformed escapes and the algorithmic names need no table either.
    fromLLMCompiler('1. web_search("\\N")\n2. web_search("\\N{}")\n3. web_search("\\N{BULLET")', { catalog });
    expect(query('1. web_search("\\N{HANGUL SYLLABLE GA}\\N{CJK UNIFIED IDEOGRAPH-4E00}")')).toBe("\uac00\u4e00");
    const steps = [];
    for await (const step of fromLLMCompilerStream(['1. web_search("a', 'b")\n2. join()'], { catalog })) steps.push(step);
    expect(steps).toHaveLength(1);
    expect(isNameTableLoaded()).toBe(false);
  });

  test("the first table name makes it", () => {
    expect(query('1. web_search("\\N{BULLET}")')).toBe("\u2022");
    expect(isNameTableLoaded()).toBe(true);
  });
});

describe("the packed table", () => {
  test("reads back whole: every name and alias, in capitals, none of them algorithmic or longer than LONGEST_NAME", () => {
    const table = nameTable();
    expect(table.size).toBe(TABLE_NAMES + TABLE_ALIASES);
    expect(table.get("BULLET")).toBe(0x2022);
    expect(table.get("SPACE")).toBe(0x20);
    expect(table.get("BYTE ORDER MARK")).toBe(0xfeff);
    expect(table.get("CJK COMPATIBILITY IDEOGRAPH-2F800")).toBe(0x2f800);
    expect(table.has("KEYCAP NUMBER SIGN")).toBe(false);
    const wrong = [...table].filter(
      ([name, code]) =>
        !/^[A-Z0-9][A-Z0-9 -]*$/.test(name) ||
        /^(?:HANGUL SYLLABLE |CJK UNIFIED IDEOGRAPH-)/.test(name) ||
        name.length > LONGEST_NAME ||
        !(code >= 0 && code <= 0x10ffff),
    );
    expect(wrong).toEqual([]);
  });

  test("a name of the table, in capitals or not, converts to its character (the table itself the oracle)", () => {
    const entries = [...nameTable()];
    fc.assert(
      fc.property(fc.nat({ max: entries.length - 1 }), fc.constantFrom("upper", "lower", "mixed"), (index, spelling) => {
        const [name, code] = entries[index]!;
        const written =
          spelling === "upper"
            ? name
            : spelling === "lower"
              ? name.toLowerCase()
              : [...name].map((char, i) => (i % 2 === 0 ? char.toLowerCase() : char)).join("");
        const { plan, diagnostics } = fromLLMCompiler(`1. web_search("<\\N{${written}}>")`, { catalog });
        expect(diagnostics).toEqual([]);
        expect(plan.steps[0]?.args).toEqual({ query: `<${String.fromCodePoint(code)}>` });
      }),
    );
  });

  test("characterByName reads the algorithmic names in capitals only, and no other letter changes case", () => {
    expect(characterByName("HANGUL SYLLABLE GAGG")).toBe(0xac02);
    expect(characterByName("HANGUL SYLLABLE Ga")).toBeUndefined();
    expect(characterByName("CJK UNIFIED IDEOGRAPH-2EBE0")).toBe(0x2ebe0);
    expect(characterByName("CJK UNIFIED IDEOGRAPH-2ebe0")).toBeUndefined();
    // JavaScript's toUpperCase makes these I, S and FF; Python's name lookup changes only ASCII letters.
    expect(characterByName("LATIN SMALL LETTER DOTLESS \u0131")).toBeUndefined();
    expect(characterByName("\u017fPACE")).toBeUndefined();
    expect(characterByName("LATIN SMALL LIGATURE \ufb00")).toBeUndefined();
    expect(characterByName("LATIN SMALL LIGATURE ff")).toBe(0xfb00);
  });
});

describe("refused names", () => {
  const leftOut = (text: string) =>
    fromLLMCompiler(text, { catalog }).diagnostics.map((diagnostic) => ({
      message: diagnostic.message,
      start: diagnostic.offset?.start,
      end: diagnostic.offset?.end,
    }));

  test("the message names the name, and says which name was meant when one is near", () => {
    expect(leftOut('1. web_search("\\N{BULLET }"')).toEqual([
      { message: 'unknown Unicode character name "BULLET "; did you mean "BULLET"?; line 1 is left out', start: 15, end: 26 },
    ]);
    expect(leftOut('1. web_search("\\N{hangul syllable ga}"')).toEqual([
      {
        message: 'unknown Unicode character name "hangul syllable ga"; did you mean "HANGUL SYLLABLE GA"?; line 1 is left out',
        start: 15,
        end: 37,
      },
    ]);
    expect(leftOut('1. web_search("\\N{NO SUCH THING}"')).toEqual([
      { message: 'unknown Unicode character name "NO SUCH THING"; line 1 is left out', start: 15, end: 32 },
    ]);
    expect(leftOut('1. web_search("\\Nx"')[0]?.message).toBe(
      "malformed \\N character escape: a name in braces must follow \\N, as in \\N{BULLET}; line 1 is left out",
    );
    expect(leftOut('1. web_search("\\N{}"')[0]?.message).toBe(
      "malformed \\N character escape: the name in \\N{} is empty; line 1 is left out",
    );
    expect(leftOut('1. web_search("\\N{BULLET"')[0]?.message).toBe(
      'malformed \\N character escape: no "}" ends the name before the string ends; line 1 is left out',
    );
  });

  test("the name is escaped in the message: control characters, quotes and backslashes", () => {
    const [problem] = leftOut('1. web_search("\\N{RED\u001b[31m\\"X}"');
    expect(problem?.message).toBe('unknown Unicode character name "RED\\u001b[31m\\\\\\"X"; line 1 is left out');
    expect(problem?.message).not.toContain("\u001b");
  });

  test("no more of the line than the longest name is read to find the }", () => {
    const text = `1. web_search("\\N{${"A".repeat(60_000)}`;
    const [problem] = leftOut(text);
    expect(problem?.message).toBe(
      `unknown Unicode character name "${"A".repeat(30)}…": longer than any (${LONGEST_NAME} characters at most); line 1 is left out`,
    );
    expect(problem!.end! - problem!.start!).toBe(3 + LONGEST_NAME + 1);
  });
});
