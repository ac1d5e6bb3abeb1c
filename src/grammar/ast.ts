/**
 * The typed AST of references and templates. Every node is readonly, has a `type` discriminant and a
 * `span` (0-based UTF-16 offsets into the parsed text, end exclusive). Parsimmon types never appear here.
 */
import { RefError } from "../shared/errors.js";
import type { Span } from "../shared/span.js";
import { safeText } from "../shared/text.js";

/** The step number of a reference: `01` in `$01.city`. */
export interface StepNode {
  readonly type: "step";
  readonly span: Span;
  /** The digits as written (`"01"`). */
  readonly digits: string;
  /** The canonical digits, leading zeros removed (`"1"`): steps are matched by this string, never by a rounded number. */
  readonly id: string;
}

/** A key: `.city` in path syntax, or the whole rest `.a.b` of a seed placeholder (key `a.b`). */
export interface KeySegment {
  readonly type: "key";
  /** Covers the segment with its leading `.`. */
  readonly span: Span;
  readonly name: string;
}

/** An array index: `[0]` (path syntax). */
export interface IndexSegment {
  readonly type: "index";
  /** Covers the segment with its brackets. */
  readonly span: Span;
  readonly index: number;
}

/** A quoted key: `["a.b"]` (path syntax), a JSON string with escapes. */
export interface QuotedKeySegment {
  readonly type: "quoted-key";
  /** Covers the segment with its brackets and quotes. */
  readonly span: Span;
  /** The key after JSON unescaping. */
  readonly name: string;
}

/** One step of a path. */
export type Segment = KeySegment | IndexSegment | QuotedKeySegment;

/** A reference to a step's result and a path into it: `$1`, `$1.city`, `$1.items[0]["a.b"]`. */
export interface ReferenceNode {
  readonly type: "reference";
  readonly span: Span;
  /** Which language the reference was written in: it decides how keys print. */
  readonly syntax: "seed" | "path";
  readonly step: StepNode;
  readonly path: readonly Segment[];
}

/** A JSON literal used as a default: `"Paris"`, `3`, `true`, `null`. */
export interface LiteralNode {
  readonly type: "literal";
  readonly span: Span;
  readonly value: string | number | boolean | null;
}

/** `reference ?? fallback` (path syntax): the fallback is used only when the reference hits a `KeyError`. */
export interface DefaultNode {
  readonly type: "default";
  readonly span: Span;
  readonly reference: ReferenceNode;
  readonly fallback: ReferenceNode | LiteralNode | DefaultNode;
}

/** What a placeholder denotes: a reference, possibly with defaults. */
export type Expression = ReferenceNode | DefaultNode;

/** Literal text of a template, after unescaping (`$${` gives `${`). */
export interface TextPart {
  readonly type: "text";
  readonly span: Span;
  readonly value: string;
}

/**
 * A reference inside a template. `form: "braced"` is `${1.city}`; `form: "bare"` is a whole-string
 * placeholder `$1.city`, which `parseTemplate` returns as a one-part template.
 */
export interface InterpolationPart {
  readonly type: "interpolation";
  readonly span: Span;
  readonly form: "braced" | "bare";
  readonly expression: Expression;
}

/** A string with references inside: `"Weather in ${1.city} today"` (option `templates`). */
export interface TemplateNode {
  readonly type: "template";
  readonly span: Span;
  readonly parts: readonly (TextPart | InterpolationPart)[];
}

/** What `parseRef` returns: a placeholder's expression, or a template. */
export type RefAst = Expression | TemplateNode;

/** Any AST node. */
export type AstNode =
  | StepNode
  | Segment
  | ReferenceNode
  | LiteralNode
  | DefaultNode
  | TextPart
  | InterpolationPart
  | TemplateNode;

/** Call `visit` on `node` and every node below it, parents before children. */
export function walkAst(node: AstNode, visit: (node: AstNode, parent: AstNode | undefined) => void, parent?: AstNode): void {
  visit(node, parent);
  switch (node.type) {
    case "reference":
      walkAst(node.step, visit, node);
      for (const segment of node.path) walkAst(segment, visit, node);
      return;
    case "default": {
      // A chain of defaults nests to the right: follow it in a loop (same visiting order), not by recursion.
      let chain: DefaultNode = node;
      for (;;) {
        walkAst(chain.reference, visit, chain);
        const fallback = chain.fallback;
        if (fallback.type !== "default") return walkAst(fallback, visit, chain);
        visit(fallback, chain);
        chain = fallback;
      }
    }
    case "template":
      for (const part of node.parts) walkAst(part, visit, node);
      return;
    case "interpolation":
      walkAst(node.expression, visit, node);
      return;
    case "step":
    case "key":
    case "index":
    case "quoted-key":
    case "literal":
    case "text":
      return;
    default:
      return assertNever(node);
  }
}

/** Every reference in an AST, in source order. */
export function referencesIn(ast: RefAst): ReferenceNode[] {
  const found: ReferenceNode[] = [];
  walkAst(ast, (node) => {
    if (node.type === "reference") found.push(node);
  });
  return found;
}

/**
 * Exhaustiveness check for `switch` over a union. Reached only by a hand-built or corrupted node, which
 * is still reported as a `RefError` (never a raw `Error`, and never by stringifying a possibly cyclic node).
 *
 * @example
 * switch (node.type) { case "text": return 1; case "interpolation": return 2; default: return assertNever(node) }
 */
export function assertNever(value: never): never {
  const type: unknown = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : value;
  throw new RefError("syntax", `unexpected AST node of type ${safeText(String(type), 40)}`);
}
