/**
 * AST helpers shared by the parser tests and the properties: comparing ASTs without their spans, and
 * checking that spans lie inside the text and inside their parents, and cover what they claim.
 */
import { expect } from "vitest";
import { walkAst, type AstNode, type DefaultNode, type LiteralNode, type RefAst, type ReferenceNode } from "../../src/grammar/ast.js";

/** A copy of an AST (or any JSON-like value) without its `span` fields. */
export function withoutSpans(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSpans);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== "span")
      .map(([key, value]) => [key, withoutSpans(value)]),
  );
}

/** Every problem with the spans of `ast` parsed from `text` (empty when all is well). */
export function spanProblems(ast: RefAst, text: string): string[] {
  const problems: string[] = [];
  walkAst(ast, (node: AstNode, parent: AstNode | undefined) => {
    const { start, end } = node.span;
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= text.length)) {
      problems.push(`${node.type} span ${start}-${end} is not inside the text (length ${text.length})`);
    }
    if (parent !== undefined && (start < parent.span.start || end > parent.span.end)) {
      problems.push(`${node.type} span ${start}-${end} is not inside its parent ${parent.type} ${parent.span.start}-${parent.span.end}`);
    }
    const covered = text.slice(start, end);
    const claim = (ok: boolean, what: string): void => {
      if (!ok) problems.push(`${node.type} span covers ${JSON.stringify(covered)}, ${what}`);
    };
    switch (node.type) {
      case "step":
        claim(covered === node.digits, `not its digits ${node.digits}`);
        break;
      case "key":
        claim(covered === `.${node.name}`, `not .${node.name}`);
        break;
      case "index":
        claim(/^\[[0-9]+\]$/.test(covered) && Number(covered.slice(1, -1)) === node.index, `not [${node.index}]`);
        break;
      case "quoted-key":
        claim(covered.startsWith('["') && covered.endsWith('"]') && JSON.parse(covered.slice(1, -1)) === node.name, `not the quoted key`);
        break;
      case "literal":
        claim(Object.is(JSON.parse(covered), node.value), `not the literal`);
        break;
      case "interpolation":
        if (node.form === "braced") claim(covered.startsWith("${") && covered.endsWith("}"), "not ${…}");
        break;
      default:
        break;
    }
  });
  return problems;
}

/** Assert that the spans of `ast` are all well placed in `text`. */
export function expectSpansInside(ast: RefAst, text: string): void {
  expect(spanProblems(ast, text)).toEqual([]);
}

const NO_SPAN = { start: 0, end: 0 };

/** A path reference `$id` with no path, built directly (spans empty). */
export function bareReference(id: string, syntax: "seed" | "path" = "path"): ReferenceNode {
  return { type: "reference", span: NO_SPAN, syntax, step: { type: "step", span: NO_SPAN, digits: id, id }, path: [] };
}

/** `$1 ?? $2 ?? … ?? $length ?? "end"`, built directly (a parser would not take text this long). */
export function longChain(length: number): DefaultNode {
  let node: DefaultNode | LiteralNode = { type: "literal", span: NO_SPAN, value: "end" };
  for (let i = length; i >= 1; i--) node = { type: "default", span: NO_SPAN, reference: bareReference(String(i)), fallback: node };
  return node as DefaultNode;
}
