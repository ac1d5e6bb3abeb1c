/**
 * The printer (src/grammar/format.ts): formatRef's special cases, long default chains printed without recursion.
 */
import { describe, expect, test } from "vitest";
import type { RefAst, TemplateNode } from "../../src/grammar/ast.js";
import { formatRef } from "../../src/grammar/format.js";
import { parseRef, parseTemplate } from "../../src/grammar/parse.js";
import { RefError } from "../../src/shared/errors.js";
import { bareReference, longChain } from "../helpers/ast.js";
import { thrownBy } from "../helpers/cases.js";

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
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
    const error = thrownBy(() =>
      formatRef({
        type: "template",
        span: { start: 0, end: 0 },
        parts: [{ type: "interpolation", span: { start: 0, end: 0 }, form: "braced", expression: parseRef("$1.a}b") as never }],
      }),
    ) as RefError;
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

const SPAN = { start: 0, end: 0 };
const CHAIN_LENGTH = 50_000;
const chain = longChain(CHAIN_LENGTH);

function template(...parts: unknown[]): TemplateNode {
  return { type: "template", span: SPAN, parts } as unknown as TemplateNode;
}

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("format.ts: formatRef", () => {
  test("a 50,000-long default chain prints without exhausting the stack", () => {
    const text = formatRef(chain);
    expect(text.startsWith("$1 ?? $2 ?? $3 ?? ")).toBe(true);
    expect(text.endsWith(` ?? $${CHAIN_LENGTH} ?? "end"`)).toBe(true);
    expect(text.split(" ?? ")).toHaveLength(CHAIN_LENGTH + 1);
  });

  test.each([
    [
      "a default chain ending in a node of unknown type",
      { type: "default", span: SPAN, reference: bareReference("1"), fallback: { type: "mystery", span: SPAN } },
    ],
    [
      "an interpolation whose expression is of unknown type",
      template({ type: "interpolation", span: SPAN, form: "braced", expression: { type: "mystery", span: SPAN } }),
    ],
  ])("%s is a RefError code syntax naming the type, not text with a hole", (_name, ast) => {
    const error = thrownBy(() => formatRef(ast as unknown as RefAst)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("unexpected AST node of type mystery");
  });

  test.each([
    [
      "a bare interpolation followed by text prints braced, with the text",
      template(
        { type: "interpolation", span: SPAN, form: "bare", expression: bareReference("1", "seed") },
        { type: "text", span: SPAN, value: " x" },
      ),
      "${1} x",
    ],
    [
      "two bare interpolations print braced, both",
      template(
        { type: "interpolation", span: SPAN, form: "bare", expression: bareReference("1", "seed") },
        { type: "interpolation", span: SPAN, form: "bare", expression: bareReference("2", "seed") },
      ),
      "${1}${2}",
    ],
    [
      "a single text part prints as its text even with a stray form field",
      template({ type: "text", span: SPAN, value: "abc", form: "bare" }),
      "abc",
    ],
    [
      "a template whose only part is a hole (sparse array) prints as nothing",
      { type: "template", span: SPAN, parts: new Array<unknown>(1) } as unknown as TemplateNode,
      "",
    ],
    [
      "a default interpolation is not checked as a seed reference, even with a stray syntax field",
      template({
        type: "interpolation",
        span: SPAN,
        form: "braced",
        expression: {
          type: "default",
          span: SPAN,
          syntax: "seed",
          reference: parseRef('$1["}"]', { syntax: "path" }),
          fallback: { type: "literal", span: SPAN, value: "x" },
        },
      }),
      '${1["}"] ?? "x"}',
    ],
  ])("%s", (_name, ast, expected) => {
    expect(formatRef(ast)).toBe(expected);
  });

  test.each([
    ["a $ that starts a later text part is not doubled", "${1}$x"],
    ["a $ after text and an interpolation stays single", "a${1}$ b"],
    ["a leading $ is doubled, a later one is not", "$$a${1}$"],
  ])("%s", (_name, text) => {
    expect(formatRef(parseTemplate(text))).toBe(text);
  });

  test("the lead doubling applies to the first part only (hand-built)", () => {
    const ast = template(
      { type: "text", span: SPAN, value: "$a" },
      { type: "interpolation", span: SPAN, form: "braced", expression: bareReference("1", "seed") },
      { type: "text", span: SPAN, value: "$b" },
    );
    expect(formatRef(ast)).toBe("$$a${1}$b");
  });
});
