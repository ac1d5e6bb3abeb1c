/**
 * The evaluator's limits (`maxDepth`, `maxPlaceholders`, `maxOutputLength`): one error builder each,
 * as src/grammar/limits.ts does for the parser's. Every place that enforces one of these limits throws
 * what its builder returns, so a limit's code and message are written once.
 */
import { RefError } from "../shared/errors.js";
import type { Span } from "../shared/span.js";

/**
 * What went over `maxOutputLength` when a single interpolated value alone is too long: the template
 * turns it into its own "template output" error (the caller's limit, the part's span).
 */
export class InterpolationTooLong extends RefError {}

/**
 * `RefError` code `limit`: nested deeper than `maxDepth`, either `args` walked with `deep` (at pointer
 * `arg`) or a value interpolated as JSON into a template.
 *
 * @example
 * depthLimitError("args", 256, "/a/b").message // "args are nested deeper than maxDepth (256), in argument /a/b"
 */
export function depthLimitError(what: "args" | "interpolated value", maxDepth: number, arg?: string): RefError {
  const subject = what === "args" ? "args are" : "interpolated value is";
  return new RefError("limit", `${subject} nested deeper than maxDepth (${maxDepth})`, { arg });
}

/**
 * `RefError` code `limit`: one call holds more than `maxPlaceholders` placeholders and templates (the
 * first one over it is at pointer `arg`).
 *
 * @example
 * placeholderLimitError(2, "/c").detail // "more than maxPlaceholders (2) placeholders in one call"
 */
export function placeholderLimitError(maxPlaceholders: number, arg: string): RefError {
  return new RefError("limit", `more than maxPlaceholders (${maxPlaceholders}) placeholders in one call`, { arg });
}

/**
 * `RefError` code `limit`: longer than `maxOutputLength`, either a template's output (`ref` its
 * source, `span` the part that overflowed) or one interpolated value alone (`InterpolationTooLong`,
 * which the template replaces with its own).
 *
 * @example
 * outputLimitError("template output", 10).message // "template output is longer than maxOutputLength (10)"
 */
export function outputLimitError(
  what: "template output" | "interpolated value",
  maxOutputLength: number,
  ref?: string,
  span?: Span,
): RefError {
  const detail = `${what} is longer than maxOutputLength (${maxOutputLength})`;
  return what === "template output" ? new RefError("limit", detail, { ref, span }) : new InterpolationTooLong("limit", detail);
}
