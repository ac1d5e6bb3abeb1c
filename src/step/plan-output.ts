/**
 * A plan's `output`, resolved when its run ends (LLMCompiler's "join"): against the results of the
 * steps that succeeded, with the run's language options, so a step that failed, was skipped or never
 * ran is a missing step to it (a `??` default catches that, as in a step's arguments). What it cannot
 * resolve becomes `report.outputError`; no step fails because of it.
 */
import { resolveRefs } from "../resolve/resolve-refs.js";
import { isInstance, KeyError, RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import { describeError } from "./attempt.js";
import { OUTPUT_STEP_ID, StepError } from "./step-error.js";

/** What resolving the output gave: the value, or why there is none. */
export type OutputOutcome = { readonly output: unknown } | { readonly outputError: StepError };

/**
 * Resolve `output` (the run's copy, or the `RefError` of reading it) against the results of a finished
 * run. `errors` are the steps that failed (a result they left, an invalid output's, is not used);
 * `skipped` the steps that never ran. Never throws.
 *
 * @example
 * resolveOutput({ answer: "$2" }, new Map([[2, "sunny"]]), new Map(), [], options) // { output: { answer: "sunny" } }
 */
export function resolveOutput(
  output: Readonly<Record<string, unknown>> | RefError,
  results: ReadonlyMap<number, unknown>,
  errors: ReadonlyMap<number, StepError>,
  skipped: readonly number[],
  options: NormalizedOptions,
): OutputOutcome {
  if (isInstance(output, RefError))
    return {
      outputError: new StepError("unresolved-output", OUTPUT_STEP_ID, "", `it could not be read: ${(output as RefError).message}`, output),
    };
  let succeeded: ReadonlyMap<number, unknown> = results;
  if (errors.size > 0) {
    const only = new Map(results);
    for (const id of errors.keys()) only.delete(id);
    succeeded = only;
  }
  try {
    return { output: resolveRefs(output as Readonly<Record<string, unknown>>, succeeded, options) };
  } catch (error) {
    return { outputError: new StepError("unresolved-output", OUTPUT_STEP_ID, "", outputDetail(error, errors, skipped), error) };
  }
}

/** Why the output could not be resolved, naming what happened to a step it needed. */
function outputDetail(error: unknown, errors: ReadonlyMap<number, StepError>, skipped: readonly number[]): string {
  const missing = isInstance(error, KeyError) ? (error as KeyError) : undefined;
  if (missing !== undefined && missing.code === "missing-step" && missing.step !== null) {
    const failed = errors.get(missing.step);
    // resolveRefs names the argument of every KeyError it throws (`arg`, a JSON Pointer into the output).
    const at = ` (at ${missing.arg})`;
    if (failed !== undefined) return `it refers to step ${missing.step}${at}, which failed (${failed.code})`;
    if (skipped.includes(missing.step)) return `it refers to step ${missing.step}${at}, which was skipped`;
  }
  return `it could not be resolved: ${describeError(error)}`;
}
