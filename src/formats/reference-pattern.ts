/**
 * The regular expression of a whole-value reference: a string that `resolveRefs` replaces by a value
 * of any type (`"$1"`, `"$1.city"`, with `templates` also `"${1.city}"` alone). It is built from the
 * grammar's token sources (src/grammar/tokens.ts), so it never drifts from the parser; a property test
 * checks it against `parseRef` on random strings.
 */
import {
  DEFAULT_OP_SOURCE,
  DIGITS_SOURCE,
  JSON_NUMBER_SOURCE,
  JSON_STRING_SOURCE,
  LITERAL_WORDS,
  PATH_NAME_CHAR_SOURCE,
} from "../grammar/tokens.js";
import type { Syntax } from "../shared/options.js";

/** The language options a reference pattern depends on. */
export interface ReferencePatternOptions {
  readonly syntax?: Syntax | undefined;
  readonly templates?: boolean | undefined;
}

/** `.name`, `[0]` or `["quoted key"]` (path syntax). */
const SEGMENT = String.raw`(?:\.${PATH_NAME_CHAR_SOURCE}+|\[(?:${DIGITS_SOURCE}|${JSON_STRING_SOURCE})\])`;
const LITERAL = `(?:${JSON_STRING_SOURCE}|${JSON_NUMBER_SOURCE}|${LITERAL_WORDS.map(([word]) => word).join("|")})`;
const PATH_REFERENCE = String.raw`\$${DIGITS_SOURCE}${SEGMENT}*`;
/** What follows the first reference of a path expression: `?? $2.x` fallbacks, then at most one `?? literal`. */
const FALLBACKS = `(?:${DEFAULT_OP_SOURCE}${PATH_REFERENCE})*(?:${DEFAULT_OP_SOURCE}${LITERAL})?`;

/**
 * The source of a regular expression (anchored with `^…$`, for JSON Schema's `pattern` and for
 * `new RegExp(source, "u")`) that matches exactly the strings that are one whole reference in the
 * given language: a placeholder, or with `templates` a template that is a single `${…}` (which keeps
 * the value's type). Strings with text around a reference are templates that always give a string.
 *
 * @example
 * new RegExp(referencePattern(), "u").test("$1.city")                      // true
 * new RegExp(referencePattern({ syntax: "path" }), "u").test("$1.a[0] ?? 2") // true
 */
export function referencePattern(options: ReferencePatternOptions = {}): string {
  const path = options.syntax === "path";
  const whole = path ? `${PATH_REFERENCE}${FALLBACKS}` : String.raw`\$${DIGITS_SOURCE}(?:\.[\s\S]+)?`;
  if (options.templates !== true) return `^${whole}$`;
  const braced = path ? String.raw`\$\{${DIGITS_SOURCE}${SEGMENT}*${FALLBACKS}\}` : String.raw`\$\{${DIGITS_SOURCE}(?:\.[^}]+)?\}`;
  return `^(?:${whole}|${braced})$`;
}
