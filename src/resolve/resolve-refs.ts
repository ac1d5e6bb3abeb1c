/**
 * `resolveRefs`: the public entry of the evaluator. It walks a tool call's arguments (the walk shared
 * with `compileArgs`, walk-args.ts), classifies each string with the grammar and evaluates the
 * placeholders, returning a new object and never touching its inputs.
 */
import type { RefAst } from "../grammar/ast.js";
import { atArgument, RefError } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { assertResults, stackLimit, type Results } from "./access.js";
import { callContext, evaluateAst, type EvaluationContext } from "./evaluate.js";
import { ArgsWalk, assertArgs, childPointer, defineOwn } from "./walk-args.js";

/**
 * Resolve the placeholders in a tool call's arguments against the results of earlier steps.
 *
 * Returns a new plain object with the same own keys in the same order; values that are not
 * placeholders come back as the very same values. With no options this is exactly the seed language:
 * top-level string values `$n` and `$n.key` only. Throws `KeyError` for a missing step or key (with
 * `arg`, a JSON Pointer into `args`), `RefError` for invalid input.
 *
 * @example
 * resolveRefs({ q: "$1.city", units: "metric" }, { 1: { city: "Paris" } })
 * // { q: "Paris", units: "metric" }
 * @example
 * resolveRefs({ q: "Weather in ${1.city}" }, { 1: { city: "Paris" } }, { templates: true })
 * // { q: "Weather in Paris" }
 */
export function resolveRefs(args: Readonly<Record<string, unknown>>, results: Results, options?: ResolveOptions): Record<string, unknown> {
  const normalized = normalizeOptions(options);
  assertArgs(args);
  assertResults(results);
  const walker = new Resolver(results, normalized);
  try {
    return walker.resolveTop(args);
  } catch (error) {
    throw stackLimit(error);
  }
}

// Shared with compile-args.ts and the runner: the walk's helpers live in walk-args.ts.
export { assertArgs, childPointer, defineOwn };

/**
 * Evaluate one placeholder, the string `text` parsed as `ast`, found at key `key` of the container at
 * JSON Pointer `parent` of a call's arguments: its value, or its `RefError` naming that argument
 * (`arg`). The one rule for both `resolveRefs` and the runner's in-place resolution of a snapshot.
 *
 * @example
 * evaluatePlaceholder(parseRef("$1.city"), "$1.city", { 1: {} }, callContext(normalizeOptions(undefined)), "", "q")
 * // throws KeyError … (arg "/q")
 */
export function evaluatePlaceholder(
  ast: RefAst,
  text: string,
  results: Results,
  context: EvaluationContext,
  parent: string,
  key: string,
): unknown {
  try {
    context.source = text;
    return evaluateAst(ast, results, context);
  } catch (error) {
    if (error instanceof RefError) throw atArgument(error, childPointer(parent, key));
    throw error;
  }
}

/** The direct form of the walk (walk-args.ts): each placeholder is evaluated as it is met. */
class Resolver extends ArgsWalk<unknown> {
  /** What the evaluator is told about the placeholder being evaluated: one object per call, its `source` set before each evaluation. */
  readonly #context: EvaluationContext;

  constructor(
    readonly results: Results,
    options: NormalizedOptions,
  ) {
    super(options);
    this.#context = callContext(options);
  }

  resolveTop(args: Record<string, unknown>): Record<string, unknown> {
    const values = this.walkTop(args);
    const keys = this.topKeys;
    // A copy of the remembered shape has every key already: overwriting a value is cheaper than adding a key.
    const out = this.topShape === undefined ? {} : { ...this.topShape.object };
    for (let i = 0; i < keys.length; i++) defineOwn(out, keys[i]!, values[i]);
    return out;
  }

  protected constant(value: unknown): unknown {
    return value;
  }

  protected placeholder(ast: RefAst, text: string, parent: string, key: string): unknown {
    return evaluatePlaceholder(ast, text, this.results, this.#context, parent, key);
  }

  /** Copy a container only if something inside it changed (structural sharing). */
  protected container(
    container: Record<string, unknown> | unknown[],
    plainArray: boolean,
    keys: readonly string[],
    values: readonly unknown[],
    resolved: readonly unknown[],
  ): unknown {
    // Object.is, not ===: a NaN that came back unchanged must not force a copy.
    let changed = false;
    for (let i = 0; i < values.length && !changed; i++) changed = !Object.is(resolved[i], values[i]);
    if (!changed) return container;
    const out: Record<string, unknown> | unknown[] = plainArray
      ? new Array<unknown>((container as unknown[]).length)
      : Object.getPrototypeOf(container) === null
        ? (Object.create(null) as Record<string, unknown>)
        : {};
    for (let i = 0; i < keys.length; i++) defineOwn(out, keys[i]!, resolved[i]);
    return out;
  }
}
