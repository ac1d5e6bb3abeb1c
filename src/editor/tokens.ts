/**
 * Tokens of one reference or template string, for highlighting. A valid string is tokenized from its
 * AST (the grammar decides); a malformed one with the tolerant lexer, so half-typed text still gets
 * colours. The tokens of a reference string always tile it, in order, without gaps.
 */
import { assertNever, type Expression, type LiteralNode, type RefAst, type Segment } from "../grammar/ast.js";
import { classifyString, type Classification } from "../grammar/parse.js";
import { DOLLAR } from "../grammar/tokens.js";
import type { NormalizedOptions, SyntaxOptions } from "../shared/options.js";
import { withFallback } from "./guard.js";
import { editorLanguage } from "./editor-options.js";
import { lexString, type StringMode, type Token, type TokenKind } from "./lexer.js";

export type { Token, TokenKind } from "./lexer.js";

/**
 * The tokens of a reference or template string (offsets inside the string). A string that is plain
 * text to the resolver has none. Never throws; tolerant of half-typed text such as `"$1."`.
 *
 * @example
 * tokenize("$1.city").map((t) => t.kind) // ["dollar", "step", "separator", "key"]
 * tokenize("$1.")                        // dollar, step, separator
 * tokenize("Paris")                      // []
 */
export function tokenize(text: string, options?: SyntaxOptions): Token[] {
  return withFallback("tokenize", [], () => (typeof text === "string" ? tokensOf(text, editorLanguage(undefined, options)) : []));
}

/**
 * `tokenize` with options already normalized.
 *
 * @example
 * tokensOf("$1", normalizeOptions(undefined)).length // 2
 */
export function tokensOf(text: string, options: NormalizedOptions): Token[] {
  if (text.length > options.maxRefLength) return [];
  const classification = classifyString(text, { ...options, strict: true });
  if (classification.kind === "ref") return tokensOfAst(text, classification.ast);
  const mode = stringMode(text, options, classification);
  if (mode === undefined || classification.kind === "literal") return [];
  return lexString(text, options.syntax, mode).tokens;
}

/**
 * How a string is read: as a whole-string placeholder, as a template, or (`undefined`) as plain text
 * that cannot become a reference by typing at its end. Mirrors `classifyString`: a string that starts
 * with `$` and a digit is a placeholder unless, with templates on, it only parses as a template.
 *
 * @example
 * stringMode("$", normalizeOptions(undefined), classifyString("$", …)) // "placeholder"
 */
export function stringMode(text: string, options: NormalizedOptions, classification: Classification): StringMode | undefined {
  if (classification.kind === "ref") return classification.ast.type === "template" ? "template" : "placeholder";
  if (options.templates && (text.startsWith("$$") || text.includes("${"))) return "template";
  return text.charCodeAt(0) === DOLLAR ? "placeholder" : undefined;
}

/**
 * The tokens of a parsed string, from its AST.
 *
 * @example
 * tokensOfAst("$1.a", parseRef("$1.a")).map((t) => t.kind) // ["dollar", "step", "separator", "key"]
 */
export function tokensOfAst(text: string, ast: RefAst): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, start: number, end: number): void => {
    if (end > start) tokens.push({ kind, span: { start, end } });
  };

  const segment = (node: Segment): void => {
    const { start, end } = node.span;
    switch (node.type) {
      case "key":
        push("separator", start, start + 1);
        push("key", start + 1, end);
        return;
      case "index":
      case "quoted-key":
        push("separator", start, start + 1);
        push(node.type, start + 1, end - 1);
        push("separator", end - 1, end);
        return;
      default:
        return assertNever(node);
    }
  };

  const expression = (node: Expression): void => {
    // Defaults nest to the right: a loop, not recursion.
    let current: Expression | LiteralNode = node;
    for (;;) {
      if (current.type === "literal") {
        push("literal", current.span.start, current.span.end);
        return;
      }
      const reference = current.type === "reference" ? current : current.reference;
      if (text.charCodeAt(reference.span.start) === DOLLAR) push("dollar", reference.span.start, reference.span.start + 1);
      push("step", reference.step.span.start, reference.step.span.end);
      for (const item of reference.path) segment(item);
      if (current.type === "reference") return;
      push("operator", reference.span.end, current.fallback.span.start);
      current = current.fallback;
    }
  };

  const textPart = (start: number, end: number): void => {
    let at = start;
    if (at === 0 && text.startsWith("$$")) {
      push("escape", 0, 2);
      at = 2;
    }
    let run = at;
    while (at < end) {
      if (text.startsWith("$${", at) && at + 3 <= end) {
        push("text", run, at);
        push("escape", at, at + 3);
        at += 3;
        run = at;
      } else {
        at++;
      }
    }
    push("text", run, end);
  };

  switch (ast.type) {
    case "reference":
    case "default":
      expression(ast);
      break;
    case "template":
      for (const part of ast.parts) {
        if (part.type === "text") textPart(part.span.start, part.span.end);
        else if (part.form === "bare") expression(part.expression);
        else {
          push("brace", part.span.start, part.span.start + 2);
          expression(part.expression);
          push("brace", part.span.end - 1, part.span.end);
        }
      }
      break;
    default:
      assertNever(ast);
  }
  return tokens;
}
