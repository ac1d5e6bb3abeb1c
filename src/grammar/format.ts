/**
 * The printer: turns an AST back into canonical text. `parseRef(formatRef(ast))` gives back the same
 * AST (spans aside), and `formatRef(parseRef(s)) === s` for every canonical string `s`.
 *
 * Canonical means: step numbers without leading zeros, `" ?? "` with one space on each side, path keys
 * as `.name` where the name allows it, and a template's leading literal `$` written `$$`.
 */
import { asRefError, RefError } from "../shared/errors.js";
import type { Expression, LiteralNode, RefAst, Segment, TemplateNode } from "./ast.js";
import { assertNever, readableNode } from "./ast.js";
import { isPathName } from "./tokens.js";

/**
 * Print an AST as canonical reference or template text.
 *
 * @example
 * formatRef(parseRef("$01.city")) // "$1.city"
 */
export function formatRef(ast: RefAst): string {
  try {
    return formatAst(readableNode(ast));
  } catch (error) {
    // A hand-built node that cannot be read (a missing field, a throwing Proxy) is a RefError too.
    throw asRefError(error, "the AST");
  }
}

function formatAst(ast: RefAst): string {
  switch (ast.type) {
    case "reference":
    case "default":
      return formatExpression(ast, true);
    case "template":
      return formatTemplate(ast);
    default:
      return assertNever(ast);
  }
}

function formatExpression(node: Expression | LiteralNode, withDollar: boolean): string {
  switch (node.type) {
    case "reference": {
      const segments = node.path.map((segment) => formatSegment(segment, node.syntax)).join("");
      return `${withDollar ? "$" : ""}${node.step.id}${segments}`;
    }
    case "default": {
      // A chain `a ?? b ?? c` nests to the right: walk it in a loop, so a long chain cannot exhaust the stack.
      const texts = [formatExpression(node.reference, withDollar)];
      let fallback: Expression | LiteralNode = node.fallback;
      while (fallback.type === "default") {
        texts.push(formatExpression(fallback.reference, true));
        fallback = fallback.fallback;
      }
      texts.push(formatExpression(fallback, true));
      return texts.join(" ?? ");
    }
    case "literal":
      return JSON.stringify(node.value);
    default:
      return assertNever(node);
  }
}

function formatSegment(segment: Segment, syntax: "seed" | "path"): string {
  switch (segment.type) {
    case "key":
      if (syntax === "seed" || isPathName(segment.name)) return `.${segment.name}`;
      return `[${JSON.stringify(segment.name)}]`;
    case "quoted-key":
      return `[${JSON.stringify(segment.name)}]`;
    case "index":
      return `[${segment.index}]`;
    default:
      return assertNever(segment);
  }
}

function formatTemplate(template: TemplateNode): string {
  const [only] = template.parts;
  if (template.parts.length === 1 && only?.type === "interpolation" && only.form === "bare") {
    return formatExpression(only.expression, true);
  }
  let out = "";
  template.parts.forEach((part, i) => {
    if (part.type === "text") {
      // A leading "$" is written "$$"; elsewhere "${" is written "$${".
      const lead = i === 0 && part.value.startsWith("$") ? "$$" : "";
      const rest = lead ? part.value.slice(1) : part.value;
      if (rest.endsWith("$") && template.parts[i + 1]?.type === "interpolation") {
        throw new RefError(
          "syntax",
          'a template text part that ends with "$" cannot be followed by an interpolation ("$${" would be read as an escape)',
        );
      }
      // split/join, not replaceAll: in a replacement string "$$" means one "$", which would undo the escape.
      out += lead + rest.split("${").join("$${");
    } else {
      const body = formatExpression(part.expression, false);
      if (part.expression.type === "reference" && part.expression.syntax === "seed" && body.includes("}")) {
        throw new RefError("syntax", 'a seed key inside ${…} cannot contain "}"');
      }
      out += `\${${body}}`;
    }
  });
  return out;
}
