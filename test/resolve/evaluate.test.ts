/**
 * The evaluator (src/resolve/evaluate.ts): its options, the messages and fields of its errors, defaults, hand-built ASTs.
 */
import { describe, expect, test } from "vitest";
import { evaluate, KeyError, parseRef, RefError, type RefAst, type Results } from "../../src/index.js";
import { thrownBy } from "../helpers/cases.js";
import { countingResults } from "../helpers/counting.js";

const PATH = { syntax: "path" } as const;
const TEMPLATES = { templates: true } as const;

function refErrorOf(fn: () => unknown): RefError {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(RefError);
  return error as RefError;
}

function keyErrorOf(fn: () => unknown): KeyError {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(KeyError);
  return error as KeyError;
}

/** A plain object whose every own-property read throws `boom` (it still passes as plain: its prototype is Object.prototype). */
function throwingObject(): object {
  return new Proxy(
    {},
    {
      getOwnPropertyDescriptor() {
        throw new Error("boom");
      },
    },
  );
}

/** A plain array of length 2 whose element reads throw `boom`. */
function throwingArray(): unknown[] {
  return new Proxy([1, 2], {
    getOwnPropertyDescriptor() {
      throw new Error("boom");
    },
  });
}

/** `depth` arrays nested in one another. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}
// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: options", () => {
  const ast = parseRef("$1.a");
  const results = { 1: { a: "x" } };

  test.each([
    ["an empty object", {}],
    ["a string source", { source: "$1.a" }],
    ["an undefined source", { source: undefined }],
    ["limits", { maxOutputLength: 10, maxDepth: 3 }],
  ])("accepts %s as options", (_name, options) => {
    expect(evaluate(ast, results, options)).toBe("x");
  });

  test.each([
    ["a number", 5],
    ["a string", "options"],
    ["true", true],
    ["null", null],
  ])("rejects %s as options with invalid-options", (_name, options) => {
    const error = refErrorOf(() => evaluate(ast, results, options as never));
    expect(error.code).toBe("invalid-options");
    expect(error.message).toBe("options must be an object");
  });

  test.each([
    ["a number", 5],
    ["null", null],
    ["an object", { text: "$1.a" }],
    ["a boolean", false],
  ])("rejects %s as option source with invalid-options", (_name, source) => {
    const error = refErrorOf(() => evaluate(ast, results, { source } as never));
    expect(error.code).toBe("invalid-options");
    expect(error.message).toBe("option source must be a string");
  });

  test("an options object whose getter throws is an access error naming the options, with the original as cause", () => {
    const boom = new Error("boom");
    const options = {
      get source(): string {
        throw boom;
      },
    };
    const error = refErrorOf(() => evaluate(ast, results, options));
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read the options: boom");
    expect(error.cause).toBe(boom);
  });

  test("maxOutputLength given in options limits a template's output", () => {
    const error = refErrorOf(() => evaluate(parseRef("ab ${1.a}", TEMPLATES), { 1: { a: "xyz" } }, { maxOutputLength: 4 }));
    expect(error.code).toBe("limit");
    expect(error.message).toBe("template output is longer than maxOutputLength (4)");
    expect(evaluate(parseRef("ab ${1.a}", TEMPLATES), { 1: { a: "xyz" } }, { maxOutputLength: 6 })).toBe("ab xyz");
  });

  test("maxDepth given in options limits the nesting of an interpolated value", () => {
    const template = parseRef("v=${1}", TEMPLATES);
    expect(evaluate(template, { 1: nested(2) }, { maxDepth: 2 })).toBe("v=[[[]]]");
    const error = refErrorOf(() => evaluate(template, { 1: nested(3) }, { maxDepth: 2 }));
    expect(error.code).toBe("limit");
    expect(error.message).toBe("interpolated value is nested deeper than maxDepth (2)");
  });

  test("without options, the default maxDepth (256) applies to interpolated values", () => {
    const template = parseRef("v=${1}", TEMPLATES);
    expect(evaluate(template, { 1: nested(256) })).toBe(`v=${"[".repeat(257)}${"]".repeat(257)}`);
    const error = refErrorOf(() => evaluate(template, { 1: nested(257) }));
    expect(error.code).toBe("limit");
    expect(error.message).toBe("interpolated value is nested deeper than maxDepth (256)");
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: templates", () => {
  test("an interpolated value gets only what is left of maxOutputLength after the text before it; the error names the caller's limit and the part", () => {
    // 6 characters of text leave 4 of 10 for "[1,2,3]" (7): the value itself is over the limit.
    const error = refErrorOf(() =>
      evaluate(parseRef("abcdef${1}", TEMPLATES), { 1: [1, 2, 3] }, { maxOutputLength: 10, source: "abcdef${1}" }),
    );
    expect(error.code).toBe("limit");
    expect(error.message).toBe("template output is longer than maxOutputLength (10)");
    expect(error.span).toEqual({ start: 6, end: 10 });
    expect(error.ref).toBe("abcdef${1}");
    expect(evaluate(parseRef("abc${1}", TEMPLATES), { 1: [1, 2, 3] }, { maxOutputLength: 10 })).toBe("abc[1,2,3]");
  });

  test("a template over maxOutputLength reports the source as ref and the span of the part that went over", () => {
    const source = "ab ${1.a} cd";
    const error = refErrorOf(() => evaluate(parseRef(source, TEMPLATES), { 1: { a: "xyz" } }, { source, maxOutputLength: 7 }));
    expect(error.code).toBe("limit");
    expect(error.ref).toBe(source);
    expect(error.span).toEqual({ start: 9, end: 12 });
  });

  test("a template of one part that is read through a getter returning nothing the first time is still evaluated part by part", () => {
    // `[only] = parts` reads part 0 once (undefined: not a lone interpolation), the loop reads it again.
    let reads = 0;
    const parts: unknown[] = [];
    Object.defineProperty(parts, 0, {
      enumerable: true,
      get: () => (reads++ === 0 ? undefined : { type: "text", value: "plain", span: { start: 0, end: 5 } }),
    });
    const ast = { type: "template", span: { start: 0, end: 5 }, parts } as unknown as RefAst;
    expect(evaluate(ast, {})).toBe("plain");
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: hand-built ASTs", () => {
  test.each([
    ["at the top", { type: "bogus" }],
    ["as a default's fallback", { type: "default", reference: parseRef("$9"), fallback: { type: "bogus" } }],
    ["as a lone interpolation", { type: "template", parts: [{ type: "interpolation", expression: { type: "bogus" } }] }],
  ])("a node of an unknown type %s is a syntax RefError", (_name, ast) => {
    const error = refErrorOf(() => evaluate(ast as unknown as RefAst, {}));
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("unexpected AST node of type bogus");
  });

  test("an AST whose fields cannot be read is an access error naming the AST", () => {
    const boom = new Error("boom");
    const ast = new Proxy(
      {},
      {
        get() {
          throw boom;
        },
      },
    ) as RefAst;
    const error = refErrorOf(() => evaluate(ast, {}));
    expect(error.code).toBe("access");
    expect(error.message).toBe("could not read the AST: boom");
    expect(error.cause).toBe(boom);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: access errors say what was being read", () => {
  const longKey = "k".repeat(50);

  test.each([
    ["the step results (a reference)", "$1.a.b", () => throwingObject(), "could not read the step results: boom"],
    ["the step results (a default)", "$1.a.b ?? 0", () => throwingObject(), "could not read the step results: boom"],
    ["a key (a reference)", "$1.a.b", () => ({ 1: throwingObject() }), 'could not read key "a": boom'],
    ["a key (a default)", "$1.a.b ?? 0", () => ({ 1: throwingObject() }), 'could not read key "a": boom'],
    ["a later key", "$1.a.b", () => ({ 1: { a: throwingObject() } }), 'could not read key "b": boom'],
    ["an index (a reference)", "$1[1].b", () => ({ 1: throwingArray() }), "could not read index 1: boom"],
    ["an index (a default)", "$1[1].b ?? 0", () => ({ 1: throwingArray() }), "could not read index 1: boom"],
    ["a long key, cut to 40 characters", `$1.${longKey}`, () => ({ 1: throwingObject() }), `could not read key "${"k".repeat(40)}": boom`],
  ])("reading %s", (_name, text, results, message) => {
    const error = refErrorOf(() => evaluate(parseRef(text, PATH), results() as Results));
    expect(error.code).toBe("access");
    expect(error.message).toBe(message);
    expect((error.cause as Error).message).toBe("boom");
  });

  test("a failed step read names the step results even when a hand-built path holds something at -1", () => {
    const path = Object.assign([{ type: "key", name: "a", span: { start: 2, end: 4 } }], {
      "-1": { type: "key", name: "minus", span: { start: 0, end: 0 } },
    });
    const ast = {
      type: "reference",
      syntax: "path",
      span: { start: 0, end: 4 },
      step: { type: "step", digits: "1", id: "1", span: { start: 1, end: 2 } },
      path,
    } as unknown as RefAst;
    const error = refErrorOf(() => evaluate(ast, throwingObject() as Results));
    expect(error.message).toBe("could not read the step results: boom");
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: defaults", () => {
  test.each([
    ["$1.a ?? 0", { 1: { a: 5 } }, 5],
    ["$1[0].b ?? 0", { 1: [{ b: "x" }] }, "x"],
    ["$1 ?? 0", { 1: null }, null],
    ["$1.a.b ?? 7", { 1: { a: {} } }, 7],
    ["$1.a.b ?? 7", {}, 7],
    ["$1.a.b ?? 7", { 1: "text" }, 7],
  ])("%s against %j is %j", (text, results, expected) => {
    expect(evaluate(parseRef(text, PATH), results)).toEqual(expected);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: KeyError messages and fields", () => {
  test("a step above Number.MAX_SAFE_INTEGER is missing, and the message says why", () => {
    const error = keyErrorOf(() => evaluate(parseRef("$99999999999999999999"), {}));
    expect(error.code).toBe("missing-step");
    expect(error.message).toBe(
      "$99999999999999999999: no result for step 99999999999999999999 (step numbers above Number.MAX_SAFE_INTEGER never match a step)",
    );
    expect(error.step).toBeNull();
    expect(error.stepText).toBe("99999999999999999999");
  });

  test("without a source, ref is the reference's label", () => {
    const error = keyErrorOf(() => evaluate(parseRef("$2"), { 1: "x" }));
    expect(error.message).toBe("$2: no result for step 2 (steps with results: 1)");
    expect(error.ref).toBe("$2");
    expect(error.span).toEqual({ start: 1, end: 2 });
  });

  test("with a source, ref is the source and the label is the reference as written there", () => {
    const source = "a ${01.x} b";
    const error = keyErrorOf(() => evaluate(parseRef(source, TEMPLATES), {}, { source }));
    expect(error.message).toBe("$01.x: no result for step 1 (no step has a result yet)");
    expect(error.ref).toBe(source);
    expect(error.step).toBe(1);
    expect(error.stepText).toBe("1");
  });

  test("without a source, the label is the reference as formatRef prints it", () => {
    const error = keyErrorOf(() => evaluate(parseRef("$01.x"), {}));
    expect(error.message).toBe("$1.x: no result for step 1 (no step has a result yet)");
    expect(error.ref).toBe("$1.x");
  });

  test("a key of a string is not-indexable, and the message says only objects and Maps have keys", () => {
    const error = keyErrorOf(() => evaluate(parseRef("$1.a"), { 1: "text" }));
    expect(error.code).toBe("not-indexable");
    expect(error.message).toBe("$1.a: step 1's result is a string, which cannot take a key (only objects and Maps have keys)");
    expect(error.key).toBe("a");
    expect(error.segment).toBe(0);
  });

  test("a missing key lists the keys the result has", () => {
    const error = keyErrorOf(() => evaluate(parseRef("$1.b"), { 1: { a: 1 } }));
    expect(error.code).toBe("missing-key");
    expect(error.message).toBe('$1.b: step 1\'s result has no key "b" (keys: a)');
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: how many keys a missing-key message says there are", () => {
  test.each([
    [
      "an object with 20 keys",
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
      "keys: k0, k1, k2, k3, k4, k5, k6, k7, … (12 more)",
    ],
    [
      "an object with 9 keys",
      Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, i])),
      "keys: k0, k1, k2, k3, k4, k5, k6, k7, … (1 more)",
    ],
    [
      "an object with 8 keys",
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, i])),
      "keys: k0, k1, k2, k3, k4, k5, k6, k7",
    ],
    ["a Map with 10 keys", new Map(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])), "keys: k0, k1, k2, k3, k4, k5, k6, k7, … (2 more)"],
  ])("%s", (_name, value, known) => {
    const error = keyErrorOf(() => evaluate(parseRef("$1.zip"), { 1: value }));
    expect(error.message).toBe(`$1.zip: step 1's result has no key "zip" (${known})`);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("evaluate.ts: the steps a missing-step message lists", () => {
  test.each([
    ["holes in an array of results are not listed", [, "x", , "y"], "steps with results: 1, 3"],
    ["other own properties of an array of results are not listed", Object.assign(["x"], { note: 1 }), "steps with results: 0"],
    [
      "an array shows 8 steps, then … without a count (holes are not steps)",
      Array.from({ length: 20 }, (_, i) => i),
      "steps with results: 0, 1, 2, 3, 4, 5, 6, 7, …",
    ],
    [
      "an object shows 8 steps, then how many more there are",
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i, i])),
      "steps with results: 0, 1, 2, 3, 4, 5, 6, 7, … (12 more)",
    ],
    ["an empty array has no step", [], "no step has a result yet"],
  ])("%s", (_name, results, why) => {
    const error = keyErrorOf(() => evaluate(parseRef("$50"), results));
    expect(error.message).toBe(`$50: no result for step 50 (${why})`);
  });

  test("only indexes below the array's length are looked at", () => {
    // A Proxy that claims every property as its own: index `length` (0 here) must not be listed.
    const results = new Proxy([], {
      getOwnPropertyDescriptor: () => ({ value: 1, writable: true, enumerable: true, configurable: true }),
    });
    const error = keyErrorOf(() => evaluate(parseRef("$50"), results));
    expect(error.message).toBe("$50: no result for step 50 (no step has a result yet)");
  });
});

describe("the step memo: one evaluation context per call", () => {
  test("evaluate reads a step once per call, defaults and interpolations alike", () => {
    const { results, reads } = countingResults({ 1: { a: "x", b: "y" } });
    expect(evaluate(parseRef('${1.a}-${1.b}-${1.c ?? "z"}', { templates: true, syntax: "path" }), results)).toBe("x-y-z");
    expect(reads).toEqual(["1"]);
    expect(evaluate(parseRef("${1.a}", { templates: true }), results)).toBe("x");
    expect(reads).toEqual(["1", "1"]);
  });

  test("evaluateAst with a context that has no memo (one kept across calls) reads every time", async () => {
    const { evaluateAst } = await import("../../src/resolve/evaluate.js");
    const { results, reads } = countingResults({ 1: { a: "x", b: "y" } });
    const context = { source: undefined, maxOutputLength: 100, maxDepth: 10 };
    expect(evaluateAst(parseRef("${1.a}${1.b}", { templates: true }), results, context)).toBe("xy");
    expect(reads).toEqual(["1", "1"]);
    expect(context).toEqual({ source: undefined, maxOutputLength: 100, maxDepth: 10 });
  });
});
