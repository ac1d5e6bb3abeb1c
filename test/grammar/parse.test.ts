/**
 * The public parser, src/grammar/parse.ts (issues 2 and 3): the shared rows in test/cases/parse.json
 * (ASTs with spans, canonical printing, error offsets), span invariants, printer edge cases, and what
 * parseRef, tryParseRef and parseTemplate answer at their edges.
 */
import { describe, expect, test } from "vitest";
import { referencesIn, walkAst, type RefAst, type TemplateNode } from "../../src/grammar/ast.js";
import { formatRef } from "../../src/grammar/format.js";
import { isPlaceholder, parseRef, parseTemplate, tryParseRef } from "../../src/grammar/parse.js";
import { RefError, RefSyntaxError } from "../../src/shared/errors.js";
import type { SyntaxOptions } from "../../src/shared/options.js";
import { expectSpansInside, withoutSpans } from "../helpers/ast.js";
import { expectError, loadCases, thrownBy, type ErrorSpec } from "../helpers/cases.js";

interface ParseCase {
  readonly name: string;
  readonly input: string;
  readonly options?: SyntaxOptions;
  readonly ast?: unknown;
  readonly canonical?: string;
  readonly isPlaceholder?: boolean;
  readonly error?: ErrorSpec;
}

/** Check that every span lies inside the text, inside its parent, and covers what it claims. */
function checkSpans(ast: RefAst, text: string): void {
  expectSpansInside(ast, text);
}

describe("parse.json", () => {
  test.each(loadCases<ParseCase>("parse.json"))("$name", (row) => {
    const tried = tryParseRef(row.input, row.options);
    if (row.isPlaceholder !== undefined) expect(isPlaceholder(row.input, row.options)).toBe(row.isPlaceholder);
    if (row.error !== undefined) {
      expectError(
        thrownBy(() => parseRef(row.input, row.options)),
        row.error,
      );
      expect(tried.ok).toBe(false);
      if (!tried.ok) expectError(tried.error, row.error);
      return;
    }
    const ast = parseRef(row.input, row.options);
    expect(tried).toEqual({ ok: true, value: ast });
    if (row.ast !== undefined) expect(ast).toEqual(row.ast);
    checkSpans(ast, row.input);
    if (row.canonical !== undefined) {
      expect(formatRef(ast)).toBe(row.canonical);
      const again = parseRef(row.canonical, row.options);
      expect(formatRef(again)).toBe(row.canonical);
      // The canonical text parses to the same AST, spans and the digits as written aside.
      const sameDigits = (node: unknown): unknown =>
        JSON.parse(JSON.stringify(withoutSpans(node)), (key, value: unknown) => (key === "digits" ? undefined : value));
      expect(sameDigits(again)).toEqual(sameDigits(ast));
    }
  });
});

describe("parseRef and tryParseRef on values that are not strings", () => {
  test.each([[42], [null], [undefined], [{}], [["$1"]], [Symbol("s")]])("%s", (value) => {
    const result = tryParseRef(value as unknown as string);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toBeInstanceOf(RefError);
    expect(thrownBy(() => parseRef(value as unknown as string))).toBeInstanceOf(RefError);
    expect(isPlaceholder(value)).toBe(false);
  });

  test("tryParseRef reports invalid options as data", () => {
    const result = tryParseRef("$1", { syntax: "regex" as never });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("invalid-options");
  });

  test("a RefSyntaxError names the text, the offset and a span there", () => {
    const error = thrownBy(() => parseRef("$1.a b", { syntax: "path" })) as RefSyntaxError;
    expect(error).toBeInstanceOf(RefSyntaxError);
    expect(error.text).toBe("$1.a b");
    expect(error.offset).toBe(4);
    expect(error.span).toEqual({ start: 4, end: 5 });
    expect(error.message).toContain("offset 4");
  });

  test("a syntax error message escapes and truncates the text", () => {
    const error = thrownBy(() => parseRef(`$1\u0000${"x".repeat(500)}`)) as RefSyntaxError;
    expect(error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(error.message.length).toBeLessThan(200);
  });
});

describe("spans", () => {
  const inputs: [string, SyntaxOptions][] = [
    ["$1", {}],
    ["$0001.key with spaces and . dots", {}],
    ['$12.a[3]["x y"].b ?? $4["q"][0] ?? "fallback"', { syntax: "path" }],
    ["$1 ?? -1.5e3", { syntax: "path" }],
    ["Hello ${1.name}, you are ${2.age} $$ ${3}", { templates: true }],
    ['$$${1.a[0] ?? $2 ?? null} and $${x} ${3["k"]}', { templates: true, syntax: "path" }],
    ["🌍 ${1.🌍} 🌍", { templates: true }],
  ];
  test.each(inputs)("%j", (text, options) => {
    checkSpans(parseRef(text, options), text);
    checkSpans(parseTemplate(text, options), text);
  });

  test("a reference's span covers $ and its whole path", () => {
    const text = '$12.a[3]["x y"] ?? $4';
    const [first, second] = referencesIn(parseRef(text, { syntax: "path" }));
    expect(text.slice(first!.span.start, first!.span.end)).toBe('$12.a[3]["x y"]');
    expect(text.slice(second!.span.start, second!.span.end)).toBe("$4");
  });

  test("a braced interpolation's reference starts at its step", () => {
    const text = "a ${7.k} b";
    const template = parseRef(text, { templates: true }) as TemplateNode;
    const [reference] = referencesIn(template);
    expect(text.slice(reference!.span.start, reference!.span.end)).toBe("7.k");
  });
});

describe("long chains of defaults", { tags: ["slow"] }, () => {
  /** `$1 ?? $2 ?? … ?? "end"` built directly as an AST, `count` references long. */
  function chain(count: number): RefAst {
    const reference = (id: string) => ({
      type: "reference" as const,
      span: { start: 0, end: 0 },
      syntax: "path" as const,
      step: { type: "step" as const, span: { start: 0, end: 0 }, digits: id, id },
      path: [],
    });
    let node: unknown = { type: "literal", span: { start: 0, end: 0 }, value: "end" };
    for (let i = count; i >= 1; i--)
      node = { type: "default", span: { start: 0, end: 0 }, reference: reference(String(i)), fallback: node };
    return node as RefAst;
  }

  test("print without exhausting the stack", () => {
    const text = formatRef(chain(50_000));
    expect(text.startsWith("$1 ?? $2 ?? $3")).toBe(true);
    expect(text.endsWith('$50000 ?? "end"')).toBe(true);
  });

  test("walk without exhausting the stack, parents before children", () => {
    const seen: string[] = [];
    walkAst(chain(50_000), (node, parent) => {
      if (node.type === "reference") seen.push(`${node.step.id}<${parent?.type ?? ""}`);
    });
    expect(seen).toHaveLength(50_000);
    expect(seen.slice(0, 2)).toEqual(["1<default", "2<default"]);
    expect(referencesIn(chain(3)).map((node) => node.step.id)).toEqual(["1", "2", "3"]);
  });
});

describe("the printer", () => {
  test.each([
    ["an unknown node type", { type: "bogus", span: { start: 0, end: 0 } }],
    [
      "an unknown segment type",
      {
        type: "reference",
        span: { start: 0, end: 2 },
        syntax: "path",
        step: { type: "step", span: { start: 1, end: 2 }, digits: "1", id: "1" },
        path: [{ type: "slice" }],
      },
    ],
  ])("a hand-built AST with %s is a RefError, not a crash", (_name, ast) => {
    expect(thrownBy(() => formatRef(ast as unknown as RefAst))).toBeInstanceOf(RefError);
  });

  test("a seed key with } cannot be printed inside ${…}", () => {
    const template = parseTemplate("${1.a}");
    const interpolation = template.parts[0]!;
    if (interpolation.type !== "interpolation" || interpolation.expression.type !== "reference") throw new Error("unexpected AST");
    const key = interpolation.expression.path[0]!;
    const bad: TemplateNode = {
      ...template,
      parts: [{ ...interpolation, expression: { ...interpolation.expression, path: [{ ...key, name: "a}b" } as typeof key] } }],
    };
    expect(thrownBy(() => formatRef(bad))).toBeInstanceOf(RefError);
  });

  test("a path key that is not a plain name prints as a quoted key", () => {
    const reference = parseRef("$1.a", { syntax: "path" });
    if (reference.type !== "reference") throw new Error("unexpected AST");
    const renamed = { ...reference, path: [{ ...reference.path[0]!, name: "a b" }] } as typeof reference;
    expect(formatRef(renamed)).toBe('$1["a b"]');
  });

  test("a template that starts with a literal $ prints it as $$", () => {
    expect(formatRef(parseTemplate("$$1 is ${1}"))).toBe("$$1 is ${1}");
    expect(parseTemplate(formatRef(parseTemplate("$$1 is ${1}"))).parts[0]).toMatchObject({ type: "text", value: "$1 is " });
  });
});

describe("error objects and stacks", () => {
  // Errors the cache keeps or hands out as data are built without a stack (it would name only the
  // first caller, and capturing it cost more than the parse); the one parseRef throws gets its caller's.
  function throwingCaller(text: string): unknown {
    return thrownBy(() => parseRef(text, { syntax: "path" }));
  }

  test.each(["$1.", "$1[x]", "$1 ?? ", "$99.a b"])(
    "parseRef(%j) throws a RefSyntaxError whose stack names the caller, every time (cached or not)",
    (text) => {
      for (let i = 0; i < 3; i++) {
        const error = throwingCaller(text) as RefSyntaxError;
        expect(error).toBeInstanceOf(RefSyntaxError);
        expect(error.stack).toContain("throwingCaller");
      }
    },
  );

  test("building errors without a stack leaves Error.stackTraceLimit as it was", () => {
    const before = Error.stackTraceLimit;
    for (const text of ["$1.", "$5 off", "$1[x]"]) {
      tryParseRef(text, { syntax: "path" });
      tryParseRef(text, { syntax: "path", templates: true });
      expect(isPlaceholder(text, { strict: true })).toBe(false);
    }
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("x").stack).toContain("parse.test");
  });

  test("each caller of tryParseRef gets its own error object, equal in every field", () => {
    const first = tryParseRef("$1.", { syntax: "path" });
    const second = tryParseRef("$1.", { syntax: "path" });
    if (first.ok || second.ok) throw new Error("expected failures");
    expect(first.error).not.toBe(second.error);
    expect({ ...first.error, message: first.error.message }).toEqual({ ...second.error, message: second.error.message });
    expect(Object.getPrototypeOf(first.error)).toBe(RefSyntaxError.prototype);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("parse.ts: parseTemplate", () => {
  test("a value that is not a string is a syntax RefError that names its type", () => {
    const error = thrownBy(() => parseTemplate(5 as unknown as string)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("a template must be a string, not number");
  });

  test("a whole-string placeholder over maxSegments is refused; within it, it is one bare part", () => {
    const error = thrownBy(() => parseTemplate("$1.a.b", { syntax: "path", maxSegments: 1 })) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("limit");
    expect(error.message).toContain("reference has 2 path segments and defaults, over maxSegments (1)");
    const template = parseTemplate("$1.a", { syntax: "path", maxSegments: 1 });
    expect(template.parts).toHaveLength(1);
    expect(template.parts[0]).toMatchObject({ type: "interpolation", form: "bare" });
  });

  test.each([
    ["$.abc", {}, false],
    ["$$abc", {}, true],
    ["$12.x", {}, true],
    ["$12 x", { syntax: "path" as const }, false],
    ["$12 ?? x", { syntax: "path" as const }, true],
  ])("over maxRefLength, %s with %o is refused: %s (else it is one text part)", (text, options, refused) => {
    const parse = () => parseTemplate(text, { ...options, maxRefLength: 2 });
    if (refused) {
      const error = thrownBy(parse) as RefError;
      expect(error.code).toBe("limit");
      expect(error.message).toContain(`template of ${text.length} characters exceeds maxRefLength (2)`);
    } else {
      expect(parse()).toEqual({
        type: "template",
        span: { start: 0, end: text.length },
        parts: [{ type: "text", span: { start: 0, end: text.length }, value: text }],
      });
    }
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("parse.ts: what tryParseRef and parseTemplate say at their edges", () => {
  test("tryParseRef on a value that is not a string says what it got", () => {
    for (const [value, type] of [
      [42, "number"],
      [null, "object"],
      [undefined, "undefined"],
    ] as const) {
      const result = tryParseRef(value as unknown as string);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toBe(`a reference must be a string, not ${type}`);
    }
  });

  test("parseTemplate: a template of exactly maxRefLength characters is parsed, one more is a limit error", () => {
    const text = "a${1.b}"; // 7 characters
    expect(parseTemplate(text, { syntax: "path", maxRefLength: 7 }).parts.map((part) => part.type)).toEqual(["text", "interpolation"]);
    expect((thrownBy(() => parseTemplate(`${text}c`, { syntax: "path", maxRefLength: 7 })) as RefError).code).toBe("limit");
  });
});
