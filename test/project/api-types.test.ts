/**
 * Type-level checks of the public API (verified by `tsc --noEmit`, which `npm test` runs over test/):
 * the AST union narrows by `type`, and the public functions and errors have the documented signatures.
 * The runtime assertions next to them make each test prove something when vitest runs it, too.
 */
import { describe, expect, expectTypeOf, test } from "vitest";
import * as root from "../../src/index.js";
import * as grammar from "../../src/grammar/index.js";
import * as resolve from "../../src/resolve/index.js";
import type {
  AstNode,
  DefaultNode,
  Expression,
  IndexSegment,
  InterpolationPart,
  KeySegment,
  LiteralNode,
  QuotedKeySegment,
  RefAst,
  ReferenceNode,
  Segment,
  Span,
  StepNode,
  TemplateNode,
  TextPart,
  Result,
  SyntaxOptions,
} from "../../src/grammar/index.js";
import type { KeyError, RefError, RefErrorCode, RefSyntaxError, ResolveOptions, Results } from "../../src/resolve/index.js";

describe("the AST union narrows by type", () => {
  test("RefAst", () => {
    const ast: RefAst = grammar.parseRef("$1.a ?? 2", { syntax: "path" });
    switch (ast.type) {
      case "reference":
        expectTypeOf(ast).toEqualTypeOf<ReferenceNode>();
        expectTypeOf(ast.step).toEqualTypeOf<StepNode>();
        expectTypeOf(ast.path).toEqualTypeOf<readonly Segment[]>();
        expectTypeOf(ast.syntax).toEqualTypeOf<"seed" | "path">();
        break;
      case "default":
        expectTypeOf(ast).toEqualTypeOf<DefaultNode>();
        expectTypeOf(ast.reference).toEqualTypeOf<ReferenceNode>();
        expectTypeOf(ast.fallback).toEqualTypeOf<ReferenceNode | LiteralNode | DefaultNode>();
        break;
      case "template":
        expectTypeOf(ast).toEqualTypeOf<TemplateNode>();
        expectTypeOf(ast.parts).toEqualTypeOf<readonly (TextPart | InterpolationPart)[]>();
        break;
      default:
        expectTypeOf(ast).toBeNever();
    }
    expect(ast.type).toBe("default");
  });

  test("Segment", () => {
    const ast = grammar.parseRef('$1.a[0]["b"]', { syntax: "path" });
    if (ast.type !== "reference") throw new Error("expected a reference");
    const kinds = ast.path.map((segment) => {
      switch (segment.type) {
        case "key":
          expectTypeOf(segment).toEqualTypeOf<KeySegment>();
          expectTypeOf(segment.name).toEqualTypeOf<string>();
          return segment.name;
        case "index":
          expectTypeOf(segment).toEqualTypeOf<IndexSegment>();
          expectTypeOf(segment.index).toEqualTypeOf<number>();
          return segment.index;
        case "quoted-key":
          expectTypeOf(segment).toEqualTypeOf<QuotedKeySegment>();
          return segment.name;
        default:
          expectTypeOf(segment).toBeNever();
          return segment;
      }
    });
    expect(kinds).toEqual(["a", 0, "b"]);
  });

  test("template parts and literals", () => {
    const template = grammar.parseTemplate('a ${1.b ?? "x"}', { syntax: "path" });
    const part = template.parts[1]!;
    if (part.type === "interpolation") {
      expectTypeOf(part.form).toEqualTypeOf<"braced" | "bare">();
      expectTypeOf(part.expression).toEqualTypeOf<Expression>();
      if (part.expression.type === "default" && part.expression.fallback.type === "literal") {
        expectTypeOf(part.expression.fallback.value).toEqualTypeOf<string | number | boolean | null>();
        expect(part.expression.fallback.value).toBe("x");
      }
    } else {
      expectTypeOf(part).toEqualTypeOf<TextPart>();
      expectTypeOf(part.value).toEqualTypeOf<string>();
    }
    expect(part.type).toBe("interpolation");
  });

  test("every node has a readonly type and span", () => {
    expectTypeOf<AstNode["type"]>().toEqualTypeOf<
      "step" | "key" | "index" | "quoted-key" | "reference" | "literal" | "default" | "text" | "interpolation" | "template"
    >();
    expectTypeOf<AstNode["span"]>().toEqualTypeOf<Span>();
    expectTypeOf<Span>().toEqualTypeOf<{ readonly start: number; readonly end: number }>();
    // Never called: it only has to fail to compile without the @ts-expect-error.
    const mutate = (node: AstNode, span: Span): void => {
      // @ts-expect-error: AST nodes are readonly
      node.span = span;
      // @ts-expect-error: spans are readonly
      node.span.start = 1;
    };
    expect(mutate).toBeTypeOf("function");
  });
});

describe("public function signatures", () => {
  test("grammar", () => {
    expectTypeOf(grammar.parseRef).parameters.toEqualTypeOf<[text: string, options?: SyntaxOptions]>();
    expectTypeOf(grammar.parseRef).returns.toEqualTypeOf<RefAst>();
    expectTypeOf(grammar.tryParseRef).returns.toEqualTypeOf<Result<RefAst>>();
    expectTypeOf(grammar.tryParseRef("$1")).toEqualTypeOf<
      { readonly ok: true; readonly value: RefAst } | { readonly ok: false; readonly error: RefError }
    >();
    expectTypeOf(grammar.parseTemplate).returns.toEqualTypeOf<TemplateNode>();
    expectTypeOf(grammar.isPlaceholder).parameters.toEqualTypeOf<[value: unknown, options?: SyntaxOptions]>();
    expectTypeOf(grammar.isPlaceholder).returns.toEqualTypeOf<boolean>();
    expectTypeOf(grammar.formatRef).parameters.toEqualTypeOf<[ast: RefAst]>();
    expectTypeOf(grammar.formatRef).returns.toEqualTypeOf<string>();
    const result = grammar.tryParseRef("$1.");
    if (result.ok) expectTypeOf(result.value).toEqualTypeOf<RefAst>();
    else expectTypeOf(result.error).toEqualTypeOf<RefError>();
    expect(result.ok).toBe(false);
  });

  test("resolve", () => {
    expectTypeOf(resolve.resolveRefs).parameters.toEqualTypeOf<
      [args: Readonly<Record<string, unknown>>, results: Results, options?: ResolveOptions]
    >();
    expectTypeOf(resolve.resolveRefs).returns.toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf(resolve.evaluate).returns.toEqualTypeOf<unknown>();
    expectTypeOf<Map<number, unknown>>().toMatchTypeOf<Results>();
    expectTypeOf<Record<string, unknown>>().toMatchTypeOf<Results>();
    expectTypeOf<unknown[]>().toMatchTypeOf<Results>();
    expectTypeOf<{ syntax: "path"; templates: true; deep: true; strict: false; maxDepth: 10 }>().toMatchTypeOf<ResolveOptions>();
    expectTypeOf<ResolveOptions["syntax"]>().toEqualTypeOf<"seed" | "path" | undefined>();
    expect(resolve.resolveRefs({ q: "$1" }, new Map([[1, "x"]]))).toEqual({ q: "x" });
  });

  test("errors", () => {
    expectTypeOf<KeyError>().toMatchTypeOf<RefError>();
    expectTypeOf<RefSyntaxError>().toMatchTypeOf<RefError>();
    expectTypeOf<RefError>().toMatchTypeOf<Error>();
    expectTypeOf<KeyError["code"]>().toEqualTypeOf<RefErrorCode>();
    expectTypeOf<KeyError["step"]>().toEqualTypeOf<number | null>();
    expectTypeOf<KeyError["key"]>().toEqualTypeOf<string | number | undefined>();
    expectTypeOf<KeyError["arg"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<KeyError["ref"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<RefSyntaxError["offset"]>().toEqualTypeOf<number>();
    expectTypeOf<RefSyntaxError["expected"]>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<
      "missing-step" | "missing-key" | "not-indexable" | "syntax" | "invalid-args" | "invalid-results" | "cycle" | "limit"
    >().toMatchTypeOf<RefErrorCode>();
    const error = new resolve.KeyError("missing-step", "x", { step: 1, stepText: "1" });
    expect(error).toBeInstanceOf(resolve.RefError);
  });

  test("the root entry re-exports the grammar and resolve entries", () => {
    expect(root.parseRef).toBe(grammar.parseRef);
    expect(root.resolveRefs).toBe(resolve.resolveRefs);
    expect(root.KeyError).toBe(resolve.KeyError);
    expect(root.RefError).toBe(grammar.RefError);
    expectTypeOf(root.resolveRefs).toEqualTypeOf(resolve.resolveRefs);
  });
});
