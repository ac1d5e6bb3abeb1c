/**
 * `plan-refs/grammar`: the syntax of references — parser, AST types, printer, and the grammar's rules
 * themselves (Parsimmon parsers at run time, typed as plan-refs's own `RefRule`) for tools (linters,
 * editors) that build on the same grammar.
 */
export type {
  AstNode,
  DefaultNode,
  Expression,
  IndexSegment,
  InterpolationPart,
  KeySegment,
  LiteralNode,
  QuotedKeySegment,
  ReferenceNode,
  RefAst,
  Segment,
  StepNode,
  TemplateNode,
  TextPart,
} from "./ast.js";
export { referencesIn, walkAst } from "./ast.js";
export { formatRef } from "./format.js";
export { pathLanguage, seedLanguage, type RefLanguage, type RefRule, type RefRuleResult } from "./language.js";
export {
  clearParseCache,
  isPlaceholder,
  parseCacheStats,
  parseRef,
  parseTemplate,
  setParseCacheSize,
  tryParseRef,
  type Result,
} from "./parse.js";
export type { Span } from "../shared/span.js";
export { RefError, RefSyntaxError, type RefErrorCode } from "../shared/errors.js";
export type { Syntax, SyntaxOptions } from "../shared/options.js";
