/**
 * Properties of the editor functions: no function fails on any text, offset or options
 * (not even internally: the public boundary's fallback is never needed), spans are well placed, the
 * tolerant lexer agrees with the grammar on valid strings, and renaming a step changes nothing but ids.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { classifyString } from "../../src/grammar/parse.js";
import { lintPlanText } from "../../src/lint/lint-plan.js";
import { planGraph } from "../../src/plan/graph.js";
import { normalizeOptions, type Syntax } from "../../src/shared/options.js";
import type { Span } from "../../src/shared/span.js";
import { setEditorErrorReporter } from "../../src/editor/guard.js";
import { lexString } from "../../src/editor/lexer.js";
import { tokensOfAst } from "../../src/editor/tokens.js";
import {
  applyTextEdits,
  completionsAt,
  definitionAt,
  documentTokens,
  hoverAt,
  referencesTo,
  renameStep,
  stepAt,
  tokenize,
  type EditorOptions,
  type ToolCatalog,
} from "../../src/editor/index.js";

let internalErrors: unknown[] = [];
beforeEach(() => {
  internalErrors = [];
  setEditorErrorReporter((error) => internalErrors.push(error));
});
afterEach(() => {
  setEditorErrorReporter(undefined);
});

// --- Generators ---------------------------------------------------------------------------------

const stepId = fc.integer({ min: 0, max: 12 });
const key = fc.constantFrom("a", "city", "a.b", "x y", "__proto__", "é", "0", "}", "");

/** Strings an argument may hold: references of every form, half-typed ones, and plain text. */
const argString = fc.oneof(
  stepId.map((id) => `$${id}`),
  stepId.map((id) => `$0${id}`),
  fc.tuple(stepId, key).map(([id, k]) => `$${id}.${k}`),
  fc.tuple(stepId, stepId).map(([a, b]) => `$${a}.x ?? $${b}.y ?? "z"`),
  fc.tuple(stepId, key).map(([id, k]) => `$${id}[0]["${k}"].n`),
  fc.tuple(stepId, stepId).map(([a, b]) => `In \${${a}.city} and \${0${b}} $\${x}`),
  fc.constantFrom("$1.", "$1 .x", "Paris", "$5 off", "${1", "${1.a", "$$", "$", "$1[", '$1["a', "", "\\"),
);

const argValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: argString },
  { weight: 1, arbitrary: fc.dictionary(key, argString, { maxKeys: 2 }) },
  { weight: 1, arbitrary: fc.array(argString, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)) },
);

const catalog: ToolCatalog = {
  t: {
    description: "A tool.",
    output: {
      type: "object",
      properties: {
        a: { type: "string" },
        city: { type: "string" },
        x: { type: "array", items: { type: "object", properties: { n: {} } } },
      },
    },
  },
  u: { output: { anyOf: [{ properties: { y: {} } }, { $ref: "#" }] } },
};

interface GeneratedPlan {
  readonly options: { syntax: Syntax; templates: boolean; deep: boolean };
  readonly tools?: ToolCatalog;
  readonly steps: { id: number; tool: string; args: Record<string, unknown> }[];
}

const planArb: fc.Arbitrary<GeneratedPlan> = fc
  .record({
    syntax: fc.constantFrom<Syntax>("seed", "path"),
    templates: fc.boolean(),
    deep: fc.boolean(),
    withTools: fc.boolean(),
    ids: fc.uniqueArray(stepId, { minLength: 1, maxLength: 6 }),
    tools: fc.array(fc.constantFrom("t", "u", "v"), { minLength: 6, maxLength: 6 }),
    args: fc.array(fc.dictionary(fc.constantFrom("q", "r", "s"), argValue, { maxKeys: 3 }), { minLength: 6, maxLength: 6 }),
  })
  .map(({ syntax, templates, deep, withTools, ids, tools, args }) => ({
    options: { syntax, templates, deep },
    ...(withTools ? { tools: catalog } : {}),
    steps: ids.map((id, i) => ({ id, tool: tools[i]!, args: args[i]! })),
  }));

const pieces = fc.constantFrom(
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
  '"',
  "\\",
  '"steps"',
  '"id"',
  '"tool"',
  '"args"',
  '"options"',
  '"syntax"',
  '"path"',
  '"tools"',
  "true",
  "1",
  "01",
  '"$1"',
  '"$1.',
  '"${1.a}"',
  " ",
  "\n",
  "\r\n",
  "\\u0024",
  "$",
  ".",
  "${",
  "🌍",
  "\u0000",
  "\ud800",
);

/** Any text: junk, a generated plan as it is, or one cut short, or with junk inserted. */
const textArb = fc.oneof(
  { weight: 1, arbitrary: fc.string({ unit: pieces, maxLength: 60 }) },
  { weight: 3, arbitrary: planArb.map((plan) => JSON.stringify(plan, null, 1)) },
  fc.tuple(planArb, fc.nat()).map(([plan, cut]) => {
    const text = JSON.stringify(plan);
    return text.slice(0, cut % (text.length + 1));
  }),
  fc.tuple(planArb, fc.nat(), fc.string({ unit: pieces, maxLength: 4 })).map(([plan, at, junk]) => {
    const text = JSON.stringify(plan);
    const i = at % (text.length + 1);
    return text.slice(0, i) + junk + text.slice(i);
  }),
);

const optionsArb: fc.Arbitrary<EditorOptions | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({ syntax: fc.constantFrom<Syntax>("seed", "path"), templates: fc.boolean(), deep: fc.boolean() }, { requiredKeys: [] }),
  fc.constant({ tools: catalog }),
  fc.record(
    { syntax: fc.anything(), templates: fc.anything(), maxRefLength: fc.anything(), tools: fc.anything() },
    { requiredKeys: [] },
  ) as fc.Arbitrary<EditorOptions>,
);

// --- Helpers ------------------------------------------------------------------------------------

function inside(span: Span, length: number): boolean {
  return Number.isInteger(span.start) && Number.isInteger(span.end) && 0 <= span.start && span.start <= span.end && span.end <= length;
}

function sortedDisjoint(spans: readonly Span[]): boolean {
  return spans.every((span, i) => i === 0 || spans[i - 1]!.end <= span.start);
}

// --- Properties ---------------------------------------------------------------------------------

describe("no editor function fails, on any text, offset or options", () => {
  test("every result is well formed and the internal fallback is never used", () => {
    const seen = { completions: 0, hovers: 0 };
    fc.assert(
      fc.property(textArb, fc.nat(), fc.integer({ min: -1, max: 8 }), optionsArb, stepId, stepId, (text, pick, delta, options, a, b) => {
        // Half the time near a `$` (where references are), else anywhere, a little outside the text included.
        const dollars = [...text.matchAll(/\$/g)].map((m) => m.index);
        const offset = dollars.length > 0 && pick % 2 === 0 ? dollars[pick % dollars.length]! + delta : (pick % (text.length + 3)) - 1;
        const tokens = documentTokens(text, options);
        expect(tokens.every((token) => inside(token.span, text.length) && token.span.end > token.span.start)).toBe(true);
        expect(sortedDisjoint(tokens.map((token) => token.span))).toBe(true);

        const items = completionsAt(text, offset, options);
        if (items.length > 0) seen.completions++;
        for (const item of items) {
          expect(inside(item.span, text.length)).toBe(true);
          expect(item.span.start <= offset && offset <= item.span.end).toBe(true);
        }
        const hover = hoverAt(text, offset, options);
        if (hover !== undefined) seen.hovers++;
        if (hover !== undefined) expect(inside(hover.span, text.length) && hover.markdown.length > 0).toBe(true);
        const definition = definitionAt(text, offset, options);
        if (definition !== undefined) expect(inside(definition, text.length) && text[definition.start] === "{").toBe(true);
        const found = stepAt(text, offset, options);
        if (found !== undefined) expect(inside(found.span, text.length)).toBe(true);

        const references = referencesTo(text, a, options);
        expect(references.every((span) => inside(span, text.length))).toBe(true);
        expect(sortedDisjoint(references)).toBe(true);
        const edits = renameStep(text, a, b + 100, options);
        expect(edits.every((edit) => inside(edit.span, text.length))).toBe(true);
        expect(sortedDisjoint(edits.map((edit) => edit.span))).toBe(true);
        expect(internalErrors).toEqual([]);
      }),
      { numRuns: 600 },
    );
    // The cursor often lands in a reference: the property is not vacuous.
    expect(seen.completions).toBeGreaterThan(5);
    expect(seen.hovers).toBeGreaterThan(20);
  });

  test("odd offsets (fractions, NaN, infinities) and non-string input", () => {
    const text = JSON.stringify({
      steps: [
        { id: 1, tool: "t", args: {} },
        { id: 2, tool: "t", args: { q: "$1.a" } },
      ],
    });
    for (const offset of [Number.NaN, Infinity, -Infinity, 3.5, -1, 1e12]) {
      expect(completionsAt(text, offset)).toEqual([]);
      expect(hoverAt(text, offset)).toBeUndefined();
      expect(definitionAt(text, offset)).toBeUndefined();
    }
    for (const value of [undefined, null, 42, {}, ["$1"]]) {
      expect(tokenize(value as string)).toEqual([]);
      expect(documentTokens(value as string)).toEqual([]);
      expect(completionsAt(value as string, 0)).toEqual([]);
      expect(renameStep(value as string, 1, 2)).toEqual([]);
    }
    expect(internalErrors).toEqual([]);
  });
});

describe("tokens", () => {
  const stringPieces = fc.constantFrom(
    "$",
    "$",
    "$$",
    "${",
    "$${",
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
    "a",
    "b.c",
    "é",
    "🌍",
    "true",
    "-1e3",
  );
  const syntaxOptions = fc.record({ syntax: fc.constantFrom<Syntax>("seed", "path"), templates: fc.boolean() });

  test("the tokens of a reference string tile it: in order, no gaps, none empty", () => {
    fc.assert(
      fc.property(fc.string({ unit: stringPieces, maxLength: 16 }), syntaxOptions, (text, options) => {
        const tokens = tokenize(text, options);
        if (tokens.length === 0) return;
        let at = 0;
        for (const token of tokens) {
          expect(token.span.start).toBe(at);
          expect(token.span.end).toBeGreaterThan(at);
          at = token.span.end;
        }
        expect(at).toBe(text.length);
      }),
      { numRuns: 2_000 },
    );
  });

  // Valid strings, built to the grammar's shape.
  const digits = fc.oneof(fc.nat({ max: 30 }).map(String), fc.constant("007"));
  const pathName = fc.string({ unit: fc.constantFrom("a", "Z", "_", "-", "0", "é", "🌍", "'", "(", ":"), minLength: 1, maxLength: 5 });
  const pathSegment = fc.oneof(
    pathName.map((name) => `.${name}`),
    fc.nat({ max: 99 }).map((index) => `[${index}]`),
    fc.string({ maxLength: 4 }).map((name) => `[${JSON.stringify(name)}]`),
  );
  const pathReference = (dollar: boolean): fc.Arbitrary<string> =>
    fc.tuple(digits, fc.array(pathSegment, { maxLength: 3 })).map(([step, segments]) => `${dollar ? "$" : ""}${step}${segments.join("")}`);
  const operator = fc.constantFrom(" ?? ", "??", "  ??", "?? ");
  const literal = fc.oneof(fc.constant('"x"'), fc.constant("null"), fc.constant("true"), fc.integer().map(String), fc.constant("-1.5e3"));
  const pathExpression = (dollar: boolean): fc.Arbitrary<string> =>
    fc
      .tuple(
        pathReference(dollar),
        fc.array(fc.tuple(operator, pathReference(true)), { maxLength: 2 }),
        fc.option(fc.tuple(operator, literal)),
      )
      .map(([head, rest, last]) => head + rest.map(([op, ref]) => op + ref).join("") + (last === null ? "" : last[0] + last[1]));
  const seedExpression = (braced: boolean): fc.Arbitrary<string> =>
    fc
      .tuple(
        digits,
        fc.option(
          braced
            ? fc.string({ minLength: 1, maxLength: 6 }).filter((key) => !key.includes("}"))
            : fc.string({ minLength: 1, maxLength: 6 }),
        ),
      )
      .map(([step, name]) => `${braced ? "" : "$"}${step}${name === null ? "" : `.${name}`}`);
  const text = fc.string({ unit: fc.constantFrom("a", " ", "$", "$${", "{", "}", "é", "."), minLength: 1, maxLength: 5 });
  const template = (syntax: Syntax): fc.Arbitrary<string> =>
    fc
      .array(
        fc.oneof(
          text,
          (syntax === "path" ? pathExpression(false) : seedExpression(true)).map((body) => `\${${body}}`),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((parts) => parts.join(""));
  const validString = fc
    .constantFrom<Syntax>("seed", "path")
    .chain((syntax) =>
      fc.tuple(
        fc.constant(syntax),
        fc.boolean(),
        fc.oneof(syntax === "path" ? pathExpression(true) : seedExpression(false), template(syntax)),
      ),
    );

  test("on a valid string the tolerant lexer gives the very tokens of the AST", () => {
    let checked = 0;
    fc.assert(
      fc.property(validString, ([syntax, templates, text]) => {
        const classification = classifyString(text, {
          ...normalizeOptions({ syntax, templates: templates || text.includes("${") || text.startsWith("$$") }),
          strict: true,
        });
        if (classification.kind !== "ref") return;
        checked++;
        const mode = classification.ast.type === "template" ? "template" : "placeholder";
        expect(lexString(text, syntax, mode).tokens).toEqual(tokensOfAst(text, classification.ast));
      }),
      { numRuns: 2_000 },
    );
    // Most generated strings are valid: the property is not vacuous.
    expect(checked).toBeGreaterThan(1_000);
  });
});

describe("renameStep", () => {
  /** A plan, one of its steps, and an id no step has and no reference names. */
  const renameCase = planArb.chain((plan) =>
    fc.tuple(fc.constant(plan), fc.constantFrom(...plan.steps.map((step) => step.id)), fc.integer({ min: 100, max: 120 })),
  );

  test("renaming a step changes ids only: the same diagnostics (ids mapped), the same graph, valid JSON", () => {
    fc.assert(
      fc.property(renameCase, fc.boolean(), ([plan, from, to], pretty) => {
        const text = pretty ? JSON.stringify(plan, null, 2) : JSON.stringify(plan);
        const edits = renameStep(text, from, to);
        expect(edits.length).toBeGreaterThan(0);
        const renamed = applyTextEdits(text, edits);
        const map = (id: number | undefined): number | undefined => (id === from ? to : id);

        // In a component with several cycles the linter reports the one through the smallest id (and
        // the forward references outside it), so there those two codes may change with the ids; the
        // dependency edges compared below still prove the same cycles.
        const entangled = planGraph(plan).cycles.some((cycle) => cycle.length > 1);
        const summary = (source: string, mapIds: boolean): string[] =>
          lintPlanText(source)
            .filter((diagnostic) => !entangled || (diagnostic.code !== "cycle" && diagnostic.code !== "forward-ref"))
            .map((diagnostic) =>
              diagnostic.code === "cycle"
                ? // Which step a cycle is reported from depends on the ids: compare the steps around it.
                  `cycle ${[...new Set([...diagnostic.message.matchAll(/step (\d+)/g)].map((m) => (mapIds ? map(Number(m[1])) : Number(m[1]))))].sort().join(",")}`
                : `${diagnostic.code} ${diagnostic.severity} ${diagnostic.pointer} ${mapIds ? map(diagnostic.step) : diagnostic.step}`,
            )
            .sort();
        expect(summary(renamed, false)).toEqual(summary(text, true));

        const edgesOf = (source: string, mapIds: boolean): string[] =>
          [...planGraph(JSON.parse(source)).dependencies]
            .flatMap(([step, targets]) => [...targets].map((target) => `${mapIds ? map(step) : step}->${mapIds ? map(target) : target}`))
            .sort();
        expect(edgesOf(renamed, false)).toEqual(edgesOf(text, true));

        // Renaming back gives the original text.
        expect(applyTextEdits(renamed, renameStep(renamed, to, from))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
