/**
 * The hand-written scanner (src/grammar/scanner.ts, the parser's fast path) must agree exactly with
 * the Parsimmon grammar, which stays the definition of the language: on every string, the scanner
 * returns the grammar's AST (spans included) when the grammar accepts the string as a whole placeholder,
 * and `undefined` when it does not. Generated strings are biased towards the grammar's tokens and
 * towards near-misses of valid placeholders.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { pathLanguage, runRule, seedLanguage } from "../../src/grammar/language.js";
import { clearParseCache, parseRef, tryParseRef } from "../../src/grammar/parse.js";
import { scanPlaceholder } from "../../src/grammar/scanner.js";

type Syntax = "seed" | "path";

/** What the grammar says: the AST, or `undefined` when the string is not a whole placeholder. */
function grammar(text: string, syntax: Syntax): unknown {
  const result = runRule((syntax === "seed" ? seedLanguage : pathLanguage).placeholder, text);
  return result.ok ? result.value : undefined;
}

function expectAgreement(text: string, syntax: Syntax): void {
  expect(scanPlaceholder(text, syntax)).toStrictEqual(grammar(text, syntax));
}

// Pieces of the language and the characters around its edges: whitespace the name rule excludes
// (including non-ASCII spaces), quotes and escapes, surrogate halves, digits in other scripts.
const tokens = [
  "$",
  "$",
  "$",
  "$$",
  "${",
  "}",
  "0",
  "1",
  "7",
  "9",
  "00",
  "12",
  ".",
  ".",
  "..",
  "[",
  "]",
  "[0]",
  "[12]",
  '"',
  '\\"',
  "\\",
  "\\u0041",
  "\\n",
  "\\x",
  "?",
  "??",
  " ?? ",
  " ",
  "  ",
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  "\u00a0",
  "\u0085",
  "\u1680",
  "\u180e",
  "\u2000",
  "\u200a",
  "\u200b",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\ufeff",
  "\u3000",
  "a",
  "b",
  "city",
  "é",
  "\ud83d\ude00",
  "\ud800",
  "\udc00",
  "１",
  "-",
  "+",
  "e",
  "E",
  "true",
  "false",
  "null",
  "tru",
  "nul",
  "0.5",
  "1e3",
  "-0",
  "01",
  '"x"',
  '"a.b"',
  '""',
  "{",
  "\u0000",
  "\u001f",
  "/",
  "~",
];

const tokenString = fc.array(fc.constantFrom(...tokens), { maxLength: 12 }).map((parts) => parts.join(""));
const startsLikeReference = fc
  .tuple(fc.constantFrom("$0", "$1", "$01", "$12", "$99999999999999999999"), tokenString)
  .map(([head, rest]) => head + rest);

const name = fc.stringMatching(/^[^.[\]{}$?\s]{1,6}$/);
const segment = fc.oneof(
  name.map((n) => `.${n}`),
  fc.nat({ max: 1000 }).map((i) => `[${i}]`),
  fc.string({ maxLength: 6 }).map((s) => `[${JSON.stringify(s)}]`),
);
const reference = fc
  .tuple(fc.stringMatching(/^[0-9]{1,4}$/), fc.array(segment, { maxLength: 4 }))
  .map(([digits, path]) => `$${digits}${path.join("")}`);
const literal = fc.oneof(
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom("true", "false", "null", "0", "-1.5e3"),
);
const operator = fc.constantFrom("??", " ?? ", "  ??", "?? ", " ??  ");
const expression = fc
  .tuple(reference, fc.array(fc.tuple(operator, reference), { maxLength: 3 }), fc.option(fc.tuple(operator, literal), { nil: undefined }))
  .map(([head, rest, last]) => head + rest.map(([op, ref]) => op + ref).join("") + (last === undefined ? "" : last[0] + last[1]));

/** A valid placeholder with one edit: a character inserted, removed or replaced, or a token appended. */
const nearMiss = fc
  .tuple(expression, fc.nat(), fc.constantFrom("insert", "remove", "replace", "append"), fc.constantFrom(...tokens))
  .map(([text, at, edit, token]) => {
    const i = text.length === 0 ? 0 : at % (text.length + 1);
    switch (edit) {
      case "insert":
        return text.slice(0, i) + token + text.slice(i);
      case "remove":
        return text.slice(0, i) + text.slice(i + 1);
      case "replace":
        return text.slice(0, i) + token + text.slice(i + 1);
      case "append":
        return text + token;
    }
  });

const syntax = fc.constantFrom<Syntax>("seed", "path");
const runs = { numRuns: 3000 };

describe("scanner agrees with the grammar", () => {
  test("on strings made of the grammar's tokens", () => {
    fc.assert(
      fc.property(tokenString, syntax, (text, s) => expectAgreement(text, s)),
      runs,
    );
  });

  test("on strings that start like a reference", () => {
    fc.assert(
      fc.property(startsLikeReference, syntax, (text, s) => expectAgreement(text, s)),
      runs,
    );
  });

  test("on valid path expressions (and the seed reading of the same text)", () => {
    fc.assert(
      fc.property(expression, syntax, (text, s) => {
        expectAgreement(text, s);
        if (s === "path") expect(scanPlaceholder(text, s)).toBeDefined();
      }),
      runs,
    );
  });

  test("on near-misses of valid expressions", () => {
    fc.assert(
      fc.property(nearMiss, syntax, (text, s) => expectAgreement(text, s)),
      runs,
    );
  });

  test("on arbitrary strings, including lone surrogates", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 20 }).map((s) => `$1${s}`),
        syntax,
        (text, s) => expectAgreement(text, s),
      ),
      runs,
    );
  });

  const edges = [
    "$",
    "$1",
    "$01",
    "$000",
    "$1.",
    "$1..",
    "$1.a",
    "$1.a.b",
    "$1 ",
    "$1\n",
    "$1.\n",
    "$1.a ?? 1",
    "$1x",
    "$１",
    "$-1",
    "$1e3",
    "$5 off",
    "price $1",
    "$1[0]",
    "$1[00]",
    "$1[",
    "$1[]",
    "$1[0",
    "$1[-1]",
    '$1[""]',
    '$1["a.b"]',
    '$1["\\u00e9"]',
    '$1["\\x"]',
    '$1["a"',
    "$1.a[0].b",
    "$1.a b",
    "$1.\u00a0",
    "$1??$2",
    "$1 ?? $2",
    "$1 ??$2.a",
    "$1 ?? ",
    "$1 ??",
    "$1 ?? x",
    '$1 ?? "x"',
    "$1 ?? -0",
    "$1 ?? 01",
    "$1 ?? 1.",
    "$1 ?? 1e",
    "$1 ?? true",
    "$1 ?? truex",
    "$1 ?? null ?? $2",
    '$1 ?? $2 ?? "x"',
    "$1 ? ? $2",
    "$1  ??  $2",
    "$1\t?? $2",
    "$1.a?",
    "$1.${x}",
    "$1.}",
    "$1.{",
    "$1.$",
    "$99999999999999999999.a",
  ];
  // Every code unit that `\s` matches, and some that look like spaces but are not: next to a path name.
  const spaces = [
    "\t",
    "\n",
    "\v",
    "\f",
    "\r",
    " ",
    "\u0085",
    "\u00a0",
    "\u1680",
    "\u180e",
    "\u2000",
    "\u2005",
    "\u200a",
    "\u200b",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
  ];
  edges.push(...spaces.flatMap((space) => [`$1.a${space}`, `$1.a${space}b`, `$1${space}`, `$1.${space}`]));
  test.each(
    edges.flatMap((text) => [
      { text, syntax: "seed" as const },
      { text, syntax: "path" as const },
    ]),
  )("$syntax: $text", ({ text, syntax: s }) => {
    expectAgreement(text, s);
  });
});

describe("the parser's answers are the grammar's", () => {
  test("parseRef gives the grammar's AST, from a cold or a warm cache", () => {
    fc.assert(
      fc.property(fc.oneof(expression, nearMiss), syntax, (text, s) => {
        const expected = grammar(text, s);
        clearParseCache();
        const cold = tryParseRef(text, { syntax: s });
        const warm = tryParseRef(text, { syntax: s });
        for (const result of [cold, warm]) {
          if (expected === undefined) expect(result.ok).toBe(false);
          else expect(result).toStrictEqual({ ok: true, value: expected });
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("errors keep the grammar's offset and expected list", () => {
    fc.assert(
      fc.property(fc.oneof(nearMiss, startsLikeReference), syntax, (text, s) => {
        const rule = runRule((s === "seed" ? seedLanguage : pathLanguage).placeholder, text);
        fc.pre(!rule.ok);
        const result = tryParseRef(text, { syntax: s });
        expect(result.ok).toBe(false);
        if (!result.ok && rule.ok === false && result.error.code === "syntax") {
          expect(result.error).toMatchObject({ offset: rule.offset, expected: rule.expected });
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("a seed placeholder with leading zeros keeps its digits and canonical id", () => {
    expect(parseRef("$007.city")).toMatchObject({
      step: { digits: "007", id: "7", span: { start: 1, end: 4 } },
      path: [{ name: "city", span: { start: 4, end: 9 } }],
    });
    expect(parseRef("$000")).toMatchObject({ step: { digits: "000", id: "0" } });
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("scanner.ts", () => {
  describe("text that is not a placeholder is rejected (as the grammar rejects it)", () => {
    test.each([
      ["a segment must start with . or [ (digits and ] after another character are no index)", "$1x0]"],
      ["a quoted key must be closed by ] right after the string", '$1["a"x'],
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
      // Literals JavaScript rounds, on purpose: the scanner must round the digits as the engine does.
      // eslint-disable-next-line no-loss-of-precision
      ["20 digits, correctly rounded", "$1[12345678901234567890]", 12345678901234567890],
      // eslint-disable-next-line no-loss-of-precision
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
