/**
 * Assertions written for mutants that survived `npm run mutation` (Stryker over src/grammar and
 * src/resolve): each test pins a behaviour that no other test pinned exactly, so that changing the
 * code there now fails a test. Grouped by source file.
 */
import { describe, expect, test } from "vitest";
import type { RefAst, TemplateNode } from "../src/grammar/ast.js";
import { formatRef } from "../src/grammar/format.js";
import { parseRef, parseTemplate } from "../src/grammar/parse.js";
import { RefError } from "../src/shared/errors.js";
import { thrownBy } from "./helpers/cases.js";

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
    const error = thrownBy(() => formatRef({ type: "template", span: { start: 0, end: 0 }, parts: [{ type: "interpolation", span: { start: 0, end: 0 }, form: "braced", expression: parseRef("$1.a}b") as never }] })) as RefError;
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
