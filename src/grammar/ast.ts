/**
 * The typed AST of references and templates. Every node is readonly, has a `type` discriminant and a
 * `span` (0-based UTF-16 offsets into the parsed text, end exclusive). Parsimmon types never appear here.
 */
import { asRefError, RefError } from "../shared/errors.js";
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
export type AstNode = StepNode | Segment | ReferenceNode | LiteralNode | DefaultNode | TextPart | InterpolationPart | TemplateNode;

/**
 * Call `visit` on `node` and every node below it, parents before children. An error thrown by `visit`
 * comes out as it is; a node that cannot be read (not an AST, a throwing Proxy) is a `RefError`.
 *
 * @example
 * walkAst(parseRef("$1.a"), (node) => console.log(node.type)) // reference, step, key
 */
export function walkAst(node: AstNode, visit: (node: AstNode, parent: AstNode | undefined) => void, parent?: AstNode): void {
  if (typeof visit !== "function") throw new RefError("invalid-args", "walkAst needs a visit function");
  // The visitor's own errors pass through unchanged; only failures to read the tree are converted.
  let visitorError: { readonly error: unknown } | undefined;
  const guardedVisit = (child: AstNode, childParent: AstNode | undefined): void => {
    try {
      visit(child, childParent);
    } catch (error) {
      visitorError = { error };
      throw error;
    }
  };
  try {
    walk(readableNode(node), guardedVisit, parent);
  } catch (error) {
    if (visitorError !== undefined) throw visitorError.error;
    throw asRefError(error, "the AST");
  }
}

/**
 * `node` itself, or a `RefError` code `syntax` when it is not an object at all (not an AST).
 *
 * @example
 * readableNode(undefined) // throws RefError: expected an AST node, not undefined
 */
export function readableNode<T>(node: T): T {
  if (typeof node !== "object" || node === null)
    throw new RefError("syntax", `expected an AST node, not ${node === null ? "null" : typeof node}`);
  return node;
}

function walk(node: AstNode, visit: (node: AstNode, parent: AstNode | undefined) => void, parent?: AstNode): void {
  visit(node, parent);
  switch (node.type) {
    case "reference":
      walk(node.step, visit, node);
      for (const segment of node.path) walk(segment, visit, node);
      return;
    case "default": {
      // A chain of defaults nests to the right: follow it in a loop (same visiting order), not by recursion.
      let chain: DefaultNode = node;
      for (;;) {
        walk(chain.reference, visit, chain);
        const fallback = chain.fallback;
        if (fallback.type !== "default") return walk(fallback, visit, chain);
        visit(fallback, chain);
        chain = fallback;
      }
    }
    case "template":
      for (const part of node.parts) walk(part, visit, node);
      return;
    case "interpolation":
      walk(node.expression, visit, node);
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

/**
 * Every reference in an AST, in source order.
 *
 * @example
 * referencesIn(parseRef("$1.a ?? $2", { syntax: "path" })).map((r) => r.step.id) // ["1", "2"]
 */
export function referencesIn(ast: RefAst): ReferenceNode[] {
  const found: ReferenceNode[] = [];
  try {
    walk(readableNode(ast), (node) => {
      if (node.type === "reference") found.push(node);
    });
  } catch (error) {
    throw asRefError(error, "the AST");
  }
  return found;
}

const stepIdsOf = new WeakMap<RefAst, readonly number[]>();

/**
 * The step ids an AST references, each once, in source order (frozen; remembered per AST, and parsed
 * ASTs are shared by the parse cache, so a placeholder written in many steps is walked once). The one
 * rule for ids too large to be exact: their digits round to a number that is never a step id (plans
 * refuse ids that are not safe integers), so such a reference matches no step and waits for one that
 * never comes.
 *
 * @example
 * referencedStepIds(parseRef("$1.a ?? $2 ?? $1", { syntax: "path" })) // [1, 2]
 */
export function referencedStepIds(ast: RefAst): readonly number[] {
  let ids = stepIdsOf.get(ast);
  if (ids === undefined) {
    const found: number[] = [];
    for (const node of referencesIn(ast)) {
      const id = Number(node.step.id);
      if (!found.includes(id)) found.push(id);
    }
    ids = Object.freeze(found);
    stepIdsOf.set(ast, ids);
  }
  return ids;
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
