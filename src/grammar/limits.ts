/**
 * The parser's limits (`maxRefLength`, `maxSegments`, `maxInterpolations`): what each one counts, when
 * it applies, and its error, each written once.
 */
import { RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import type { Expression, LiteralNode, RefAst } from "./ast.js";
import { DOLLAR, DOT, isDigit, OPEN_BRACKET, QUESTION, QUOTE, SPACE } from "./tokens.js";
import { cutText } from "../shared/text.js";

/** `RefError` code `limit`: a placeholder or template longer than `maxRefLength`. */
export function lengthLimitError(text: string, maxRefLength: number, what: "placeholder" | "template"): RefError {
  return new RefError("limit", `${what} of ${text.length} characters exceeds maxRefLength (${maxRefLength})`, { ref: cutText(text, 40) });
}

/** `RefError` code `limit`: a template with more than `maxInterpolations` interpolations. */
export function interpolationLimitError(text: string, interpolations: number, maxInterpolations: number): RefError {
  return new RefError("limit", `template has ${interpolations} interpolations, over maxInterpolations (${maxInterpolations})`, {
    ref: cutText(text, 40),
  });
}

/** `RefError` code `limit`: a reference with more than `maxSegments` path segments and defaults. */
export function segmentLimitError(text: string, segments: number, maxSegments: number): RefError {
  return new RefError("limit", `reference has ${segments} path segments and defaults, over maxSegments (${maxSegments})`, {
    ref: cutText(text, 40),
  });
}

const STEP_DIGITS = /[0-9]*/y;

/**
 * Whether `text` could be a placeholder or template in the mode of `options`, judged from its start
 * (and, with templates, one search for `${`): `$` digits then the end or `.` (seed), or also `[` and a
 * digit or quote, or spaces and `??` (path). Linear at worst, and cheap enough to run before any
 * parsing. An over-long string is refused (`maxRefLength`) only if it could be one.
 */
export function mightBeRef(text: string, options: NormalizedOptions): boolean {
  if (options.templates && (text.startsWith("$$") || text.includes("${"))) return true;
  if (text.charCodeAt(0) !== DOLLAR) return false;
  // A regular expression runs through a megabyte of digits several times faster than a loop.
  STEP_DIGITS.lastIndex = 1;
  STEP_DIGITS.test(text);
  let at = STEP_DIGITS.lastIndex;
  if (at === 1) return false;
  if (at === text.length) return true;
  const next = text.charCodeAt(at);
  if (next === DOT) return true;
  if (options.syntax !== "path") return false;
  // Path syntax: a segment `[0]`/`["k"]`, or a default ` ?? ` (spaces, then `??`).
  if (next === OPEN_BRACKET) return isDigit(text.charCodeAt(at + 1)) || text.charCodeAt(at + 1) === QUOTE;
  while (text.charCodeAt(at) === SPACE) at++;
  return text.charCodeAt(at) === QUESTION && text.charCodeAt(at + 1) === QUESTION;
}

/** The `limit` error when a parse is over `maxSegments` or `maxInterpolations`, else `undefined`. */
export function overLimit(segments: number, interpolations: number, text: string, options: NormalizedOptions): RefError | undefined {
  if (interpolations > options.maxInterpolations) return interpolationLimitError(text, interpolations, options.maxInterpolations);
  if (segments > options.maxSegments) return segmentLimitError(text, segments, options.maxSegments);
  return undefined;
}

/** `ast` itself, after checking the segment and interpolation limits (throws their `limit` error). */
export function withinLimits<T extends RefAst>(ast: T, text: string, options: NormalizedOptions): T {
  const limit = overLimit(countSegments(ast), countInterpolations(ast), text, options);
  if (limit !== undefined) throw limit;
  return ast;
}

/** How many `${…}` a template holds (0 for a placeholder). */
export function countInterpolations(ast: RefAst): number {
  if (ast.type !== "template") return 0;
  let count = 0;
  for (const part of ast.parts) if (part.type === "interpolation") count++;
  return count;
}

/**
 * Path segments plus one per `??`; for a template, those of its longest interpolation (each is a
 * reference of its own). A chain of defaults nests to the right: counted in a loop, so a long chain
 * cannot exhaust the stack.
 */
export function countSegments(ast: RefAst): number {
  if (ast.type === "template") {
    let most = 0;
    for (const part of ast.parts) if (part.type === "interpolation") most = Math.max(most, countSegments(part.expression));
    return most;
  }
  let count = 0;
  let node: Expression | LiteralNode = ast;
  while (node.type === "default") {
    count += 1 + node.reference.path.length;
    node = node.fallback;
  }
  return node.type === "reference" ? count + node.path.length : count;
}
