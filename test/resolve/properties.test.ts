/**
 * fast-check properties for the invariants of issues 2 and 3: pass-through, no mutation, print/parse
 * round trips, total parsing, agreement with an independent model of the seed rules, span placement,
 * structural sharing and single pass under `deep`, and nothing thrown but `RefError`s.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type {
  Expression,
  IndexSegment,
  KeySegment,
  LiteralNode,
  QuotedKeySegment,
  ReferenceNode,
  Segment,
  TemplateNode,
  TextPart,
  InterpolationPart,
  RefAst,
} from "../../src/grammar/ast.js";
import { formatRef } from "../../src/grammar/format.js";
import { isPlaceholder, parseRef, parseTemplate, tryParseRef } from "../../src/grammar/parse.js";
import type { Results } from "../../src/resolve/access.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { KeyError, RefError } from "../../src/shared/errors.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import { spanProblems, withoutSpans } from "../helpers/ast.js";

const NO_SPAN = { start: 0, end: 0 };

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Every combination of the options that change behaviour. */
const optionsArb: fc.Arbitrary<ResolveOptions> = fc.record({
  syntax: fc.constantFrom("seed" as const, "path" as const),
  templates: fc.boolean(),
  strict: fc.boolean(),
  deep: fc.boolean(),
});

/** The same, with small limits now and then. */
const optionsWithLimitsArb: fc.Arbitrary<ResolveOptions> = fc
  .tuple(
    optionsArb,
    fc.option(fc.nat({ max: 4 })),
    fc.option(fc.nat({ max: 40 })),
    fc.option(fc.nat({ max: 3 })),
    fc.option(fc.nat({ max: 3 })),
    fc.option(fc.nat({ max: 20 })),
  )
  .map(([options, maxSegments, maxRefLength, maxDepth, maxPlaceholders, maxOutputLength]) => ({
    ...options,
    ...(maxSegments === null ? {} : { maxSegments }),
    ...(maxRefLength === null ? {} : { maxRefLength }),
    ...(maxDepth === null ? {} : { maxDepth }),
    ...(maxPlaceholders === null ? {} : { maxPlaceholders }),
    ...(maxOutputLength === null ? {} : { maxOutputLength }),
  }));

/** Any UTF-16 code unit, lone surrogates and control characters included. */
const utf16Unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const utf16String = fc.string({ unit: utf16Unit, maxLength: 24 });

/** Pieces of the reference language, so that generated strings come close to (and into) it. */
const refPiece = fc.constantFrom(
  "$",
  "$",
  "$$",
  "${",
  "{",
  "}",
  "[",
  "]",
  ".",
  "?",
  "??",
  " ?? ",
  " ",
  '"',
  "\\",
  "0",
  "1",
  "12",
  "9",
  "a",
  "b.c",
  "é",
  "🌍",
  "\n",
  "\t",
  "\u0000",
  "\ud800",
  "true",
  "null",
  "-1e3",
);
const refLike = fc.string({ unit: refPiece, maxLength: 14 });

/** Strings of every kind, many starting with "$". */
const anyString = fc.oneof(
  utf16String,
  fc.string({ unit: "binary", maxLength: 24 }),
  refLike,
  refLike.map((s) => `$${s}`),
  utf16String.map((s) => `$${s}`),
  refLike.map((s) => `$1${s}`),
);

/** Step digits: canonical (no leading zeros), sometimes huge. */
const canonicalDigits = fc.oneof(
  fc.constant("0"),
  fc.nat({ max: 200 }).map((n) => String(n + 1)),
  fc.stringMatching(/^[1-9][0-9]{0,30}$/),
);

// AST arbitraries (spans are placeholders: comparisons leave spans out).

const stepNode = canonicalDigits.map((id) => ({ type: "step" as const, span: NO_SPAN, digits: id, id }));

/** A path name: characters other than . [ ] { } $ ? and whitespace. */
const pathName = fc.string({
  unit: fc.constantFrom("a", "Z", "_", "-", "0", "9", "é", "🌍", "'", '"', "(", ":", "@", "#", "\\", "/"),
  minLength: 1,
  maxLength: 6,
});

const pathSegment: fc.Arbitrary<Segment> = fc.oneof(
  pathName.map((name): KeySegment => ({ type: "key", span: NO_SPAN, name })),
  fc.nat().map((index): IndexSegment => ({ type: "index", span: NO_SPAN, index })),
  utf16String.map((name): QuotedKeySegment => ({ type: "quoted-key", span: NO_SPAN, name })),
);

const pathReference: fc.Arbitrary<ReferenceNode> = fc
  .record({ step: stepNode, path: fc.array(pathSegment, { maxLength: 4 }) })
  .map(({ step, path }) => ({ type: "reference", span: NO_SPAN, syntax: "path", step, path }));

const literalNode: fc.Arbitrary<LiteralNode> = fc
  .oneof(
    utf16String,
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  )
  .map((value) => ({ type: "literal", span: NO_SPAN, value }));

/** A path expression: references joined by ??, optionally ending with a literal, folded right as the parser does. */
const pathExpression: fc.Arbitrary<Expression> = fc
  .tuple(fc.array(pathReference, { minLength: 1, maxLength: 3 }), fc.option(literalNode))
  .map(([references, literal]) => {
    const items: (ReferenceNode | LiteralNode)[] = literal === null ? references : [...references, literal];
    let node = items[items.length - 1]!;
    for (let i = items.length - 2; i >= 0; i--) {
      node = { type: "default", span: NO_SPAN, reference: items[i] as ReferenceNode, fallback: node } as unknown as ReferenceNode;
    }
    return node as Expression;
  });

/** A seed reference; inside `${…}` its key cannot contain "}". */
function seedReference(braced: boolean): fc.Arbitrary<ReferenceNode> {
  const name = braced
    ? fc.string({ unit: utf16Unit.filter((c) => c !== "}"), minLength: 1, maxLength: 12 })
    : fc.string({ unit: utf16Unit, minLength: 1, maxLength: 12 });
  return fc.record({ step: stepNode, key: fc.option(name) }).map(({ step, key }) => ({
    type: "reference",
    span: NO_SPAN,
    syntax: "seed",
    step,
    path: key === null ? [] : [{ type: "key", span: NO_SPAN, name: key }],
  }));
}

/** Template text, rich in "$", "$$", "${", braces. */
const templateText = fc.string({
  unit: fc.constantFrom("$", "$$", "${", "$${", "{", "}", "a", " ", "1", ".", "é", "\n"),
  minLength: 1,
  maxLength: 8,
});

/**
 * A template AST in `syntax`: text and braced interpolations, with adjacent texts merged (the parser
 * merges them) and no text ending in "$" right before an interpolation (not printable: "$${" is the escape).
 */
function templateAst(syntax: "seed" | "path"): fc.Arbitrary<TemplateNode> {
  const expression = syntax === "seed" ? seedReference(true) : pathExpression;
  const part = fc.oneof(
    templateText.map((value): TextPart => ({ type: "text", span: NO_SPAN, value })),
    expression.map((expression): InterpolationPart => ({ type: "interpolation", span: NO_SPAN, form: "braced", expression })),
  );
  return fc.array(part, { maxLength: 5 }).map((raw) => {
    const parts: (TextPart | InterpolationPart)[] = [];
    for (const item of raw) {
      const last = parts[parts.length - 1];
      if (item.type === "text" && last?.type === "text") parts[parts.length - 1] = { ...last, value: last.value + item.value };
      else parts.push(item);
    }
    const fixed = parts.map((item, i) =>
      item.type === "text" && item.value.endsWith("$") && parts[i + 1]?.type === "interpolation"
        ? { ...item, value: `${item.value}.` }
        : item,
    );
    return { type: "template", span: NO_SPAN, parts: fixed };
  });
}

// JSON-ish values

/** Plain objects built with own data properties, so a "__proto__" key is an own key as JSON.parse gives it. */
function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

const keyName = fc.constantFrom("a", "b", "a.b", "city", "constructor", "__proto__", "toString", "length", "0", "", " ", "$1", "é");

const leafValue = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double());

/** A step's result: a scalar, a string, an array, a plain object (sometimes null-prototype), a Map or a class instance. */
const stepValue: fc.Arbitrary<unknown> = fc.oneof(
  leafValue,
  fc.array(leafValue, { maxLength: 3 }),
  fc.array(fc.tuple(keyName, leafValue), { maxLength: 4 }).map(ownObject),
  fc
    .array(fc.tuple(keyName, leafValue), { maxLength: 3 })
    .map((entries) => Object.assign(Object.create(null) as object, Object.fromEntries(entries))),
  fc.array(fc.tuple(keyName, leafValue), { maxLength: 3 }).map((entries) => new Map(entries)),
  fc.constant(
    new (class Instance {
      a = 1;
    })(),
  ),
);

const stepKeys = ["0", "1", "2", "3", "10"];

/** Results as a plain object (as JSON.parse gives it), an array, or a Map keyed by step number. */
const resultsArb: fc.Arbitrary<Results> = fc.oneof(
  fc.array(fc.tuple(fc.constantFrom(...stepKeys, "01", "9007199254740993"), stepValue), { maxLength: 4 }).map(ownObject),
  fc.array(stepValue, { maxLength: 4 }),
  fc.array(fc.tuple(fc.constantFrom(0, 1, 2, 3, 10), stepValue), { maxLength: 4 }).map((entries) => new Map(entries)),
);

/** Seed placeholders aimed at the generated results, with tricky keys and step spellings. */
const seedPlaceholder = fc
  .tuple(fc.constantFrom("0", "1", "2", "3", "10", "01", "0002", "4", "9007199254740993", "99999999999999999999"), fc.option(keyName))
  .map(([digits, key]) => (key === null ? `$${digits}` : `$${digits}.${key}`))
  .filter((text) => text !== "$1." && !text.endsWith("."));

const argValue = fc.oneof(seedPlaceholder, seedPlaceholder, anyString, leafValue, fc.jsonValue({ maxDepth: 2 }));
const argName = fc.oneof(keyName, fc.string({ maxLength: 4 }), fc.constantFrom("a/b", "m~n"));
const argsArb = fc.array(fc.tuple(argName, argValue), { maxLength: 5 }).map(ownObject);

// ---------------------------------------------------------------------------------------------
// An independent model of the seed rules, written from the seed rules as specified.

const SEED = /^\$([0-9]+)(?:\.([\s\S]+))?$/;

type ModelOutcome = { ok: true; value: Record<string, unknown> } | { ok: false; code: string; arg: string };

function isPlain(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function ownValue(container: object, key: string): { has: boolean; value?: unknown } {
  const descriptor = Object.getOwnPropertyDescriptor(container, key);
  return descriptor !== undefined && "value" in descriptor ? { has: true, value: descriptor.value } : { has: false };
}

function modelStep(results: Results, digits: string): { has: boolean; value?: unknown } {
  const step = BigInt(digits);
  if (step > BigInt(Number.MAX_SAFE_INTEGER)) return { has: false };
  const n = Number(step);
  if (results instanceof Map) return results.has(n) ? { has: true, value: results.get(n) } : { has: false };
  if (Array.isArray(results)) return n < results.length ? ownValue(results, String(n)) : { has: false };
  return ownValue(results, String(n));
}

function pointer(key: string): string {
  return `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

function seedModel(args: Record<string, unknown>, results: Results): ModelOutcome {
  const entries: [string, unknown][] = [];
  for (const name of Object.keys(args)) {
    const value = args[name];
    const match = typeof value === "string" ? SEED.exec(value) : null;
    if (match === null) {
      entries.push([name, value]);
      continue;
    }
    const step = modelStep(results, match[1]!);
    if (!step.has) return { ok: false, code: "missing-step", arg: pointer(name) };
    const key = match[2];
    if (key === undefined) {
      entries.push([name, step.value]);
      continue;
    }
    const container = step.value;
    let found: { has: boolean; value?: unknown };
    if (container instanceof Map) found = container.has(key) ? { has: true, value: container.get(key) } : { has: false };
    else if (isPlain(container)) found = ownValue(container as object, key);
    else return { ok: false, code: "not-indexable", arg: pointer(name) };
    if (!found.has) return { ok: false, code: "missing-key", arg: pointer(name) };
    entries.push([name, found.value]);
  }
  return { ok: true, value: ownObject(entries) };
}

// ---------------------------------------------------------------------------------------------
// Helpers

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

/** Run `fn`; anything thrown must be a RefError (returned), never a TypeError or RangeError. */
function onlyRefErrors(fn: () => unknown): RefError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (!(error instanceof RefError)) throw new Error(`threw a non-RefError: ${String(error)}`, { cause: error });
    return error;
  }
}

/** Whether a JSON-like value holds any string with a "$" (which some option set could resolve). */
function hasDollar(value: unknown): boolean {
  if (typeof value === "string") return value.includes("$");
  if (Array.isArray(value)) return value.some(hasDollar);
  if (typeof value === "object" && value !== null) return Object.values(value).some(hasDollar);
  return false;
}

// ---------------------------------------------------------------------------------------------
// (1) Values that are not placeholders pass through as the very same value.

describe("(1) non-placeholders pass through unchanged", () => {
  test("arbitrary JSON values that are not seed placeholders, default options", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(argName, fc.oneof(fc.jsonValue({ maxDepth: 3 }), anyString)), { maxLength: 5 }).map(ownObject),
        (args) => {
          const candidates = ownObject(Object.entries(args).filter(([, value]) => !(typeof value === "string" && SEED.test(value))));
          const out = resolveRefs(candidates, {});
          expect(Object.keys(out)).toEqual(Object.keys(candidates));
          for (const key of Object.keys(candidates)) expect(Object.is(out[key], candidates[key])).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("strings starting with $ that are not seed placeholders, default options", () => {
    fc.assert(
      fc.property(
        fc.oneof(refLike, utf16String).map((s) => `$${s}`),
        (text) => {
          fc.pre(!SEED.test(text));
          expect(resolveRefs({ q: text }, { 1: { a: 1 } })["q"]).toBe(text);
          expect(isPlaceholder(text)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  test("strings the language rejects pass through under every option set that is not strict", () => {
    fc.assert(
      fc.property(anyString, optionsArb, (text, options) => {
        const lenient = { ...options, strict: false };
        fc.pre(!isPlaceholder(text, lenient));
        // A template with a syntax error is an error even without strict; everything else passes through.
        const result = onlyRefErrors(() => expect(resolveRefs({ q: text }, {}, lenient)["q"]).toBe(text));
        if (result !== undefined) {
          expect(lenient.templates).toBe(true);
          expect(result.code === "syntax" || result.code === "limit").toBe(true);
          expect(text.includes("${") || text.startsWith("$$")).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  test("strings without a $ are never altered, under any options", () => {
    fc.assert(
      fc.property(
        utf16String.map((s) => s.replaceAll("$", "")),
        optionsArb,
        (text, options) => {
          expect(resolveRefs({ q: text, o: { t: text } }, {}, options)).toEqual({ q: text, o: { t: text } });
        },
      ),
      { numRuns: 200 },
    );
  });

  test("under deep, JSON without any $ comes back as the very same objects", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }),
        optionsArb,
        (args, options) => {
          fc.pre(!hasDollar(args));
          const out = resolveRefs(args, {}, { ...options, deep: true });
          for (const key of Object.keys(args)) expect(Object.is(out[key], args[key])).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (2) Inputs are never mutated.

describe("(2) inputs are never mutated", () => {
  test("deep-frozen args and results, every option set, success or RefError", () => {
    const nestedArgs = fc
      .array(
        fc.tuple(argName, fc.oneof(argValue, fc.array(argValue, { maxLength: 3 }), fc.dictionary(keyName, argValue, { maxKeys: 3 }))),
        { maxLength: 5 },
      )
      .map(ownObject);
    const jsonResults = fc.array(fc.tuple(fc.constantFrom(...stepKeys), fc.jsonValue({ maxDepth: 3 })), { maxLength: 4 }).map(ownObject);
    fc.assert(
      fc.property(nestedArgs, jsonResults, optionsArb, (args, results, options) => {
        const before = structuredClone({ args, results });
        deepFreeze(args);
        deepFreeze(results);
        onlyRefErrors(() => resolveRefs(args, results, options));
        expect({ args, results }).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (3) Print/parse round trips.

describe("(3) print/parse round trips", () => {
  test("formatRef(parseRef(s)) === s for canonical seed placeholders", () => {
    fc.assert(
      fc.property(canonicalDigits, fc.option(fc.string({ unit: utf16Unit, minLength: 1, maxLength: 20 })), (digits, key) => {
        const text = key === null ? `$${digits}` : `$${digits}.${key}`;
        expect(formatRef(parseRef(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  test("parseRef(formatRef(ast)) equals ast without spans, and prints back the same, for seed references", () => {
    fc.assert(
      fc.property(seedReference(false), (ast) => {
        const text = formatRef(ast);
        const parsed = parseRef(text);
        expect(withoutSpans(parsed)).toEqual(withoutSpans(ast));
        expect(formatRef(parsed)).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  test("the same for path expressions (keys, indexes, quoted keys, defaults, literals)", () => {
    fc.assert(
      fc.property(pathExpression, (ast) => {
        const text = formatRef(ast);
        const parsed = parseRef(text, { syntax: "path", maxSegments: 10_000 });
        expect(withoutSpans(parsed)).toEqual(withoutSpans(ast));
        expect(formatRef(parsed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  test.each(["seed", "path"] as const)("the same for %s templates, escapes included", (syntax) => {
    fc.assert(
      fc.property(templateAst(syntax), (ast) => {
        const text = formatRef(ast);
        const options = { syntax, templates: true, maxSegments: 10_000 };
        const parsed = parseTemplate(text, options);
        expect(withoutSpans(parsed)).toEqual(withoutSpans(ast));
        expect(formatRef(parsed)).toBe(text);
        if (ast.parts.some((part) => part.type === "interpolation")) {
          expect(withoutSpans(parseRef(text, options))).toEqual(withoutSpans(ast));
        }
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (4) tryParseRef never throws.

describe("(4) tryParseRef never throws", () => {
  test("on any string, under every option combination", () => {
    fc.assert(
      fc.property(anyString, optionsWithLimitsArb, (text, options) => {
        const result = tryParseRef(text, options);
        if (result.ok) expect(typeof result.value.type).toBe("string");
        else expect(result.error).toBeInstanceOf(RefError);
      }),
      { numRuns: 1500 },
    );
  });

  test("on strings that are nearly valid path templates", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          templateAst("path").map((ast) => formatRef(ast)),
          pathExpression.map((ast) => formatRef(ast)),
        ),
        fc.nat(),
        refPiece,
        optionsWithLimitsArb,
        (text, at, piece, options) => {
          const position = at % (text.length + 1);
          const mutated = text.slice(0, position) + piece + text.slice(position + 1);
          const result = tryParseRef(mutated, options);
          if (!result.ok) expect(result.error).toBeInstanceOf(RefError);
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (5) resolveRefs agrees with the independent model of the seed rules.

describe("(5) resolveRefs agrees with a model of the seed rules", () => {
  test("generated args and results, KeyError included", () => {
    fc.assert(
      fc.property(argsArb, resultsArb, (args, results) => {
        const expected = seedModel(args, results);
        let actual: Record<string, unknown> | undefined;
        let thrown: unknown;
        try {
          actual = resolveRefs(args, results);
        } catch (error) {
          thrown = error;
        }
        if (expected.ok) {
          expect(thrown).toBeUndefined();
          expect(Object.keys(actual!)).toEqual(Object.keys(expected.value));
          for (const key of Object.keys(expected.value)) expect(Object.is(actual![key], expected.value[key]), key).toBe(true);
        } else {
          expect(thrown).toBeInstanceOf(KeyError);
          expect({ code: (thrown as KeyError).code, arg: (thrown as KeyError).arg }).toEqual({ code: expected.code, arg: expected.arg });
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("isPlaceholder agrees with the model's definition of a seed placeholder", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, seedPlaceholder), (text) => {
        expect(isPlaceholder(text)).toBe(SEED.test(text));
      }),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (6) Spans lie inside the text, children inside parents.

describe("(6) spans", () => {
  test("of generated path expressions and templates", () => {
    const texts = fc.oneof(
      pathExpression.map((ast) => ({ text: formatRef(ast), options: { syntax: "path" as const } })),
      templateAst("path").map((ast) => ({ text: formatRef(ast), options: { syntax: "path" as const, templates: true } })),
      templateAst("seed").map((ast) => ({ text: formatRef(ast), options: { templates: true } })),
      seedReference(false).map((ast) => ({ text: formatRef(ast), options: {} })),
    );
    fc.assert(
      fc.property(texts, ({ text, options }) => {
        const all = { ...options, maxSegments: 10_000 };
        const asts: RefAst[] = [parseTemplate(text, all)];
        const result = tryParseRef(text, all);
        if (result.ok) asts.push(result.value);
        for (const ast of asts) expect(spanProblems(ast, text)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  test("of whatever arbitrary strings happen to parse", () => {
    fc.assert(
      fc.property(anyString, optionsArb, (text, options) => {
        const result = tryParseRef(text, options);
        if (result.ok) expect(spanProblems(result.value, text)).toEqual([]);
      }),
      { numRuns: 800 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (7) Under deep: structural sharing and a single pass.

type Tree = string | number | Tree[] | { [key: string]: Tree };

/** Leaves: placeholders (resolvable against the results below), plain strings and numbers. */
const leaf = fc.oneof(fc.constantFrom("$1", "$2.k", "$3", "$1", "plain", "$ not one", "$$2"), fc.integer());
const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("tree"), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.constantFrom("a", "b", "__proto__", "k/1", "~"), tie("tree")), { maxLength: 4 })
      .map((entries) => ownObject(entries) as { [key: string]: Tree }),
  ),
})).tree;

/** Results whose values hold placeholder text: a second pass would change them. */
const deepResults = fc.record({
  "1": fc.constantFrom("$2.k", "${3}", "$3 and more"),
  "2": fc.record({ k: fc.oneof(fc.constant({ inner: "$1" }), fc.constant(["$3"])) }),
  "3": fc.constant({ again: "$2.k" }),
});

const PLACEHOLDERS = new Set(["$1", "$2.k", "$3"]);

function containsPlaceholder(value: Tree): boolean {
  if (typeof value === "string") return PLACEHOLDERS.has(value);
  if (typeof value === "number") return false;
  return Object.values(value).some(containsPlaceholder);
}

describe("(7) deep: structural sharing and single pass", () => {
  test("unchanged subtrees are shared, changed containers copied, resolved values taken as they are", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("x", "y", "z", "__proto__"), tree, { maxKeys: 3 }), deepResults, (args, results) => {
        const before = structuredClone(args);
        const out = resolveRefs(args, results, { deep: true });
        const expectedOf = (text: string): unknown => (text === "$1" ? results["1"] : text === "$2.k" ? results["2"].k : results["3"]);
        const check = (input: Tree, output: unknown): void => {
          if (typeof input === "string") {
            // Single pass: the value is the result itself, never resolved again.
            expect(output).toBe(PLACEHOLDERS.has(input) ? expectedOf(input) : input === "$$2" ? "$$2" : input);
            return;
          }
          if (typeof input === "number") return expect(output).toBe(input);
          if (!containsPlaceholder(input)) return expect(output).toBe(input);
          expect(output).not.toBe(input);
          expect(Array.isArray(output)).toBe(Array.isArray(input));
          expect(Object.keys(output as object)).toEqual(Object.keys(input));
          for (const key of Object.keys(input)) {
            check((input as Record<string, Tree>)[key]!, Object.getOwnPropertyDescriptor(output, key)?.value);
          }
        };
        for (const key of Object.keys(args)) check(args[key]!, Object.getOwnPropertyDescriptor(out, key)?.value);
        expect(args).toEqual(before);
      }),
      { numRuns: 400 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (8) Nothing thrown but RefError subclasses.

describe("(8) only RefErrors are thrown", () => {
  test("arbitrary strings as arguments, arbitrary results, every option set", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(argName, anyString), { maxLength: 4 }).map(ownObject),
        fc.oneof(resultsArb, fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>),
        optionsWithLimitsArb,
        (args, results, options) => {
          onlyRefErrors(() => resolveRefs(args, results as Results, options));
          onlyRefErrors(() => resolveRefs({ nested: [args, { args }] }, results as Results, options));
        },
      ),
      { numRuns: 800 },
    );
  });

  test("arbitrary JSON as args (objects or not), every option set", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 3 }), optionsWithLimitsArb, (args, results, options) => {
        onlyRefErrors(() => resolveRefs(args as Record<string, unknown>, results as Results, options));
      }),
      { numRuns: 500 },
    );
  });

  test("isPlaceholder and parseTemplate on arbitrary strings", () => {
    fc.assert(
      fc.property(anyString, optionsWithLimitsArb, (text, options) => {
        onlyRefErrors(() => isPlaceholder(text, options));
        onlyRefErrors(() => parseTemplate(text, options));
        onlyRefErrors(() => parseRef(text, options));
      }),
      { numRuns: 800 },
    );
  });
});
