/**
 * The evaluator: gives an AST its value against a set of step results. It knows nothing of syntax
 * (that is `src/grammar`); it only walks nodes and reads own data through `access.ts`.
 */
import { assertNever, readableNode, type Expression, type ReferenceNode, type RefAst, type Segment } from "../grammar/ast.js";
import { formatRef } from "../grammar/format.js";
import { asRefError, KeyError, RefError } from "../shared/errors.js";
import { DEFAULT_LIMITS, normalizeOptions } from "../shared/options.js";
import { pathLikeAt, pathSyntaxHint } from "../shared/path-hint.js";
import type { Span } from "../shared/span.js";
import { cutText, listSome, quoted, safeText, valueKind } from "../shared/text.js";
import {
  accessError,
  assertResults,
  keySample,
  MISSING,
  NOT_INDEXABLE,
  readIndex,
  readKey,
  readStep,
  sizeOf,
  type Results,
} from "./access.js";
import { outputLimitError } from "./limits.js";
import { InterpolationTooLong, interpolationText } from "./stringify.js";

/** Limits that apply while evaluating. */
export interface EvaluateOptions {
  /** Longest string a template may produce (default 1,048,576). */
  readonly maxOutputLength?: number | undefined;
  /** Deepest nesting of a value interpolated as JSON (default 256). */
  readonly maxDepth?: number | undefined;
}

/** What the evaluator needs to know about where it is, for error messages, and its limits. */
interface Context {
  /** The source text the AST came from, if known (spans index into it). */
  readonly source: string | undefined;
  readonly maxOutputLength: number;
  readonly maxDepth: number;
  /**
   * Set for a context that lives for one call only (`callContext`): the last step read is remembered
   * (`stepId`, `stepValue`), so `$1.city` then `$1.country` read step 1's result once. A context
   * without it (kept across calls, whose results may change) reads every time.
   */
  readonly memo?: boolean | undefined;
  /** The last step read in this call, with `memo`. */
  stepId?: string | undefined;
  /** What `readStep` gave for `stepId` (the result or `MISSING`). */
  stepValue?: unknown;
}

/** The context of one call of `resolveRefs` or a compiled function: `source` set before each placeholder, the step memo fresh. */
export interface EvaluationContext extends Context {
  source: string | undefined;
}

/** A context for one call with these limits (never kept beyond the call: the memo belongs to that call's results). */
export function callContext(limits: { readonly maxOutputLength: number; readonly maxDepth: number }, source?: string): EvaluationContext {
  return {
    source,
    maxOutputLength: limits.maxOutputLength,
    maxDepth: limits.maxDepth,
    memo: true,
    stepId: undefined,
    stepValue: undefined,
  };
}

/** The result of step `id`, or `MISSING`, through the context's memo when it has one. May throw (a Proxy trap): callers guard. */
function stepResult(results: Results, id: string, context: Context): unknown {
  if (context.memo !== true) return readStep(results, id);
  if (context.stepId === id) return context.stepValue;
  const value = readStep(results, id);
  context.stepId = id;
  context.stepValue = value;
  return value;
}

/**
 * Evaluate a parsed reference or template against `results`. `$n` returns `results[n]` itself (no
 * copy); a template returns a string, or the raw value when it is one interpolation and nothing else.
 * Throws `KeyError` for a missing step or key, `RefError` for anything else.
 *
 * @example
 * evaluate(parseRef("$1.city"), { 1: { city: "Paris" } }) // "Paris"
 */
export function evaluate(ast: RefAst, results: Results, options?: EvaluateOptions & { source?: string }): unknown {
  assertResults(results);
  const context = evaluateContext(options);
  try {
    return evaluateAst(readableNode(ast), results, context);
  } catch (error) {
    // A hand-built AST that cannot be read (a missing field, a throwing Proxy) is a RefError too.
    throw asRefError(error, "the AST");
  }
}

/** The options of `evaluate`, read once and checked: `invalid-options` for a bad value, `access` for an unreadable one. */
function evaluateContext(options: (EvaluateOptions & { source?: string }) | undefined): Context {
  if (options === undefined) return callContext(DEFAULT_LIMITS);
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "options must be an object");
  let source: unknown, maxOutputLength: unknown, maxDepth: unknown;
  try {
    ({ source, maxOutputLength, maxDepth } = options);
  } catch (error) {
    throw asRefError(error, "the options");
  }
  if (source !== undefined && typeof source !== "string") throw new RefError("invalid-options", "option source must be a string");
  const { maxOutputLength: outputLimit, maxDepth: depthLimit } = normalizeOptions({
    maxOutputLength: maxOutputLength as number | undefined,
    maxDepth: maxDepth as number | undefined,
  });
  return callContext({ maxOutputLength: outputLimit, maxDepth: depthLimit }, source);
}

function outputTooLong(context: Context, span: Span): RefError {
  return outputLimitError("template output", context.maxOutputLength, context.source, span);
}

/** `evaluate` without re-checking `results` (the caller already did). */
export function evaluateAst(ast: RefAst, results: Results, context: Context): unknown {
  switch (ast.type) {
    case "reference":
      // The common case (`$1.city`), straight to the lookup: what evaluateExpression would do, one call less.
      return evaluateReference(ast, results, context);
    case "default":
      return evaluateExpression(ast, results, context);
    case "template": {
      const [only] = ast.parts;
      if (ast.parts.length === 1 && only?.type === "interpolation") return evaluateExpression(only.expression, results, context);
      let text = "";
      for (const part of ast.parts) {
        if (part.type === "text") {
          text += part.value;
        } else {
          const value = evaluateExpression(part.expression, results, context);
          try {
            text += interpolationText(value, context.maxOutputLength - text.length, context.maxDepth);
          } catch (error) {
            // The value alone overflows what is left: the same error as text that overflows (the caller's limit, this part's span).
            if (error instanceof InterpolationTooLong) throw outputTooLong(context, part.span);
            throw error;
          }
        }
        if (text.length > context.maxOutputLength) throw outputTooLong(context, part.span);
      }
      return text;
    }
    default:
      return assertNever(ast);
  }
}

function evaluateExpression(node: Expression, results: Results, context: Context): unknown {
  // A chain of defaults is walked in a loop, not by recursion: `a ?? b ?? c` tries a, then b, then c.
  let current: Expression | { type: "literal"; value: unknown } = node;
  for (;;) {
    switch (current.type) {
      case "reference":
        return evaluateReference(current, results, context);
      case "literal":
        return current.value;
      case "default": {
        // Only a missing step or key falls back (an access error is thrown, never hidden), and the
        // KeyError of a reference that falls back is never built: its message lists keys, which costs
        // time in proportion to a large result, and a chain of defaults would pay it once per link.
        const found = lookupReference(current.reference, results, context);
        if (found !== MISSING) return found;
        current = current.fallback;
        break;
      }
      default:
        return assertNever(current);
    }
  }
}

/**
 * A reference's value, or `MISSING` when a step or key is missing: what a default needs, without
 * building a KeyError. An unreadable value (a throwing Proxy) is an `access` error, never a fallback.
 */
function lookupReference(node: ReferenceNode, results: Results, context: Context): unknown {
  const path = node.path;
  let index = -1;
  try {
    let value = stepResult(results, node.step.id, context);
    for (index = 0; value !== MISSING && index < path.length; index++) {
      const segment = path[index]!;
      value = segment.type === "index" ? readIndex(value, segment.index) : readKey(value, segment.name);
      if (value === NOT_INDEXABLE) return MISSING;
    }
    return value;
  } catch (error) {
    throw accessError(() => readingWhat(node, index), error);
  }
}

function evaluateReference(node: ReferenceNode, results: Results, context: Context): unknown {
  // The happy path builds no text and allocates nothing: labels and messages are made only when a
  // lookup fails, and one try covers the whole walk (`index` says which read threw).
  const path = node.path;
  let index = -1;
  let container: unknown;
  let value: unknown;
  try {
    value = stepResult(results, node.step.id, context);
    if (value !== MISSING)
      for (index = 0; index < path.length; index++) {
        container = value;
        const segment = path[index]!;
        value = segment.type === "index" ? readIndex(container, segment.index) : readKey(container, segment.name);
        if (value === MISSING || value === NOT_INDEXABLE) break;
      }
  } catch (error) {
    throw accessError(() => readingWhat(node, index), error);
  }
  if (value === MISSING) throw index < 0 ? missingStep(node, results, context) : missingSegment(node, index, container, "missing", context);
  if (value === NOT_INDEXABLE) throw missingSegment(node, index, container, "not-indexable", context);
  return value;
}

/** What was being read when a read threw: the step results (`index` -1) or path segment `index`. */
function readingWhat(node: ReferenceNode, index: number): string {
  const segment = index < 0 ? undefined : node.path[index];
  if (segment === undefined) return "the step results";
  return segment.type === "index" ? `index ${segment.index}` : `key ${JSON.stringify(cutText(segment.name, 40))}`;
}

/** What every `KeyError` of a reference carries: the step (number and exact digits) and the label. */
function referenceDetails(node: ReferenceNode, context: Context) {
  const step = node.step.id;
  const stepNumber = Number(step);
  const base = { step: Number.isSafeInteger(stepNumber) ? stepNumber : null, stepText: step };
  return { step, base, label: referenceLabel(node, context.source) };
}

function missingStep(node: ReferenceNode, results: Results, context: Context): KeyError {
  const { step, base, label } = referenceDetails(node, context);
  const { keys: have, total } = stepsWithResults(results);
  const why =
    base.step === null
      ? "step numbers above Number.MAX_SAFE_INTEGER never match a step"
      : have.length === 0
        ? "no step has a result yet"
        : `steps with results: ${listSome(have, 8, total)}`;
  return new KeyError("missing-step", `${label}: no result for step ${safeText(step, 24)} (${why})`, {
    ...base,
    ref: context.source ?? label,
    span: node.step.span,
  });
}

/** The `KeyError` for path segment `index`, which failed on `value` (the part of the result that did resolve). */
function missingSegment(
  node: ReferenceNode,
  index: number,
  value: unknown,
  reason: "missing" | "not-indexable",
  context: Context,
): KeyError {
  const { step, base, label } = referenceDetails(node, context);
  const segment = node.path[index]!;
  const at = index === 0 ? "" : ` at ${pathText(node, index)}`;
  const key = segment.type === "index" ? segment.index : segment.name;
  const details = { ...base, ref: context.source ?? label, span: segment.span, key, segment: index };
  if (reason === "not-indexable") {
    const wants = segment.type === "index" ? "an index (only arrays have indexes)" : "a key (only objects and Maps have keys)";
    return new KeyError(
      "not-indexable",
      `${label}: step ${step}'s result is ${valueKind(value)}${at}, which cannot take ${wants}`,
      details,
    );
  }
  if (segment.type === "index") {
    return new KeyError(
      "missing-key",
      `${label}: step ${step}'s result has no index ${segment.index}${at} (length ${sizeOf(value) ?? 0})`,
      details,
    );
  }
  const { keys, total } = keySample(value);
  const known = keys.length === 0 ? "it has no keys" : `keys: ${listSome(keys, 8, total)}`;
  // A seed key with a `.` or `[` is most likely a path written without the option syntax "path".
  const hint = node.syntax === "seed" && pathLikeAt(segment.name) >= 0 ? `; ${pathSyntaxHint(segment.name)}` : "";
  return new KeyError(
    "missing-key",
    `${label}: step ${step}'s result has no key ${quoted(segment.name, 40)}${at} (${known})${hint}`,
    details,
  );
}

/** The reference as written (from the source when known), `$`-prefixed, safe for messages. */
function referenceLabel(node: ReferenceNode, source: string | undefined): string {
  const written = source === undefined ? formatRef(node) : source.slice(node.span.start, node.span.end);
  return safeText(written.startsWith("$") ? written : `$${written}`, 80);
}

/** The part of a path that did resolve, as text: `.address` for `$1.address.zip` failing at `zip`. */
function pathText(node: ReferenceNode, upTo: number): string {
  return node.path
    .slice(0, upTo)
    .map((segment: Segment) =>
      segment.type === "index"
        ? `[${segment.index}]`
        : segment.type === "quoted-key"
          ? `[${quoted(segment.name, 30)}]`
          : `.${safeText(segment.name, 30)}`,
    )
    .join("");
}

/** The first steps that have results, and how many there are (unknown for arrays: holes are not steps, and counting them is a full pass). */
function stepsWithResults(results: Results): { readonly keys: string[]; readonly total: number | null } {
  if (Array.isArray(results)) {
    const steps: string[] = [];
    try {
      for (let i = 0; i < results.length && steps.length < 9; i++) if (Object.hasOwn(results, i)) steps.push(String(i));
    } catch {
      // A hostile array (a Proxy whose traps throw): the message lists what was read.
    }
    return { keys: steps, total: null };
  }
  return keySample(results);
}
