/**
 * The public parser: turns strings into the AST defined by the grammar in `language.ts`, with typed
 * errors, limits and a bounded cache. Everything else in plan-refs (evaluator, linter, editor tools)
 * parses through here, so the language has exactly one definition. Its parts each live in a file of
 * their own: classify.ts (how a string is seen), parse-cache.ts (what is kept), options-memo.ts (the
 * last options), limits.ts (the limits and their errors), freeze.ts (shared ASTs are frozen).
 */
import { copyError, RefError, RefSyntaxError, withoutStack } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type SyntaxOptions } from "../shared/options.js";
import type { Expression, RefAst, TemplateNode } from "./ast.js";
import { classify, languageOf } from "./classify.js";
import { runRule, type RuleResult } from "./language.js";
import { lengthLimitError, mightBeRef, withinLimits } from "./limits.js";
import { normalizedOf } from "./options-memo.js";
import { scanPlaceholder } from "./scanner.js";
import { DOLLAR, isDigit } from "./tokens.js";

// Importers of parse.js (evaluator, linter, editor, runner) keep their imports.
export { classifyString, type Classification } from "./classify.js";
export { clearParseCache, DEFAULT_PARSE_CACHE_SIZE, parseCacheStats, setParseCacheSize } from "./parse-cache.js";

/** A value or an error, for callers that go on after a failure. */
export type Result<T, E = RefError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** The whole-string placeholder rule: the scanner when it accepts the text, else the grammar (which also explains failures). */
function parsePlaceholder(text: string, options: NormalizedOptions): RuleResult<Expression> {
  const scanned = scanPlaceholder(text, options.syntax);
  if (scanned !== undefined) return { ok: true, value: scanned };
  return runRule(languageOf(options).placeholder, text);
}

/**
 * Parse a placeholder (or, with `templates`, a template) into its AST. Throws `RefSyntaxError` with
 * the offset and what was expected when the string is not valid.
 *
 * @example
 * parseRef("$1.city")
 * // { type: "reference", syntax: "seed", step: { id: "1", … }, path: [{ type: "key", name: "city", … }], span: { start: 0, end: 7 } }
 */
export function parseRef(text: string, options?: SyntaxOptions): RefAst {
  const result = tryParseRef(text, options);
  if (result.ok) return result.value;
  // The error may come from the cache, built without a stack: give the one thrown here the caller's.
  Error.captureStackTrace(result.error, parseRef);
  throw result.error;
}

/**
 * Like `parseRef`, but never throws: returns `{ ok: true, value }` or `{ ok: false, error }`.
 *
 * @example
 * tryParseRef("$1.") // { ok: false, error: RefSyntaxError { offset: 3, expected: ["a key"] } }
 */
export function tryParseRef(text: string, options?: SyntaxOptions): Result<RefAst> {
  let normalized: NormalizedOptions;
  try {
    normalized = normalizedOf(options);
  } catch (error) {
    return { ok: false, error: error as RefError };
  }
  if (typeof text !== "string") return { ok: false, error: new RefError("syntax", `a reference must be a string, not ${typeof text}`) };
  // Over maxRefLength: a `limit` error if it could be a placeholder (classify decides), else the syntax error below.
  const classified = classify(text, normalized, true);
  switch (classified.kind) {
    case "ref":
      return { ok: true, value: classified.ast };
    case "error":
      // A cached error is shared: the caller gets its own copy (callers do amend errors they rethrow).
      return { ok: false, error: copyError(classified.error) };
    case "literal": {
      // Not a placeholder at all: classify parses every string that could be one (a "$", a digit, or a
      // template), so the grammar fails on this one too, and says where.
      const parsed = runRule(languageOf(normalized).placeholder, text) as Extract<RuleResult<Expression>, { ok: false }>;
      return { ok: false, error: withoutStack(() => new RefSyntaxError(text, parsed.offset, parsed.expected)) };
    }
  }
}

/**
 * Parse a whole string as a template (text parts and reference parts, with spans), whatever the
 * `templates` option says. A whole-string placeholder (`$1.city`) is a template with one `bare` part.
 * Throws `RefSyntaxError` for an unclosed `${` or an invalid reference inside one.
 *
 * @example
 * parseTemplate("Weather in ${1.city} today").parts.map((p) => p.type) // ["text", "interpolation", "text"]
 */
export function parseTemplate(text: string, options?: SyntaxOptions): TemplateNode {
  const given = normalizedOf(options);
  const normalized = given.templates ? given : normalizeOptions({ ...given, templates: true });
  if (typeof text !== "string") throw new RefError("syntax", `a template must be a string, not ${typeof text}`);
  if (text.length > normalized.maxRefLength) {
    if (mightBeRef(text, normalized)) throw lengthLimitError(text, normalized.maxRefLength, "template");
    // No `${`, no leading `$$`, not a placeholder: the whole text is one text part (every `$` in it is literal).
    return {
      type: "template",
      span: { start: 0, end: text.length },
      parts: [{ type: "text", span: { start: 0, end: text.length }, value: text }],
    };
  }
  if (text.charCodeAt(0) === DOLLAR && isDigit(text.charCodeAt(1))) {
    const whole = parsePlaceholder(text, normalized);
    if (whole.ok) {
      const expression: Expression = withinLimits(whole.value, text, normalized);
      return {
        type: "template",
        span: expression.span,
        parts: [{ type: "interpolation", span: expression.span, form: "bare", expression }],
      };
    }
  }
  const parsed = runRule(languageOf(normalized).template, text);
  if (!parsed.ok) throw new RefSyntaxError(text, parsed.offset, parsed.expected);
  return withinLimits(parsed.value, text, normalized);
}

/**
 * Whether `resolveRefs` would treat `value` as a placeholder (or, with `templates`, a template) rather
 * than pass it through. Malformed strings are not placeholders.
 *
 * @example
 * isPlaceholder("$1.city") // true
 * isPlaceholder("$5 off")  // false
 */
export function isPlaceholder(value: unknown, options?: SyntaxOptions): boolean {
  if (typeof value !== "string") return false;
  const normalized = normalizedOf(options);
  return classify(value, normalized, false).kind === "ref";
}
