/**
 * The executor's error: why one step of a run failed. It lives with the executor (`runPlan`, and the
 * PostgreSQL workers that build the same report); it is a `RefError`, so callers that catch
 * plan-refs' errors by class or by `code` catch it too.
 */
import { isInstance, RefError } from "../shared/errors.js";
import type { Span } from "../shared/span.js";

/** Why a step of `runPlan` failed. */
export type StepErrorCode = (typeof STEP_ERROR_CODES)[number];

/**
 * Every `StepErrorCode` (`denied`: a person refused the step's approval, or `needsApproval` failed;
 * its tool was not called; `unresolved-output`: the plan's `output` could not be resolved,
 * `report.outputError`).
 *
 * @example
 * STEP_ERROR_CODES.includes(json.errors["2"].code) // a code this version knows
 */
export const STEP_ERROR_CODES = [
  "tool-error",
  "unknown-tool",
  "unresolved-args",
  "timeout",
  "aborted",
  "invalid-output",
  "invalid-input",
  "missing-dependency",
  "cycle",
  "invalid-step",
  "unserializable",
  "denied",
  "unresolved-output",
] as const;

/** The `stepId` of a `StepError` about the plan's `output`, which is no step: no step has a negative id. */
export const OUTPUT_STEP_ID = -1;

/**
 * A step of a run failed: its tool threw or rejected (`tool-error`), its arguments could not be
 * resolved (`unresolved-args`, with the `KeyError` as `cause`, and the cause's `ref`, `arg` and `span`
 * copied onto the step error), it ran past `timeoutMs` (`timeout`), its result did not match the
 * catalog's output schema (`invalid-output`), its resolved arguments did not match the input schema
 * (`invalid-input`, with `validateInputs`: the tool was not called), and so on.
 *
 * @example
 * report.errors.get(2)?.code // "tool-error"
 * report.errors.get(3)?.arg  // "/q": where in step 3's args an `unresolved-args` error happened
 */
export class StepError extends RefError {
  override name = "StepError";
  /** Always a `StepErrorCode` (the constructor takes no other). */
  declare readonly code: StepErrorCode;
  readonly stepId: number;
  readonly tool: string;

  constructor(code: StepErrorCode, stepId: number, tool: string, detail: string, cause?: unknown) {
    super(
      code,
      stepId === OUTPUT_STEP_ID ? `the plan's output: ${detail}` : `step ${stepId} (${tool}): ${detail}`,
      // RefError keeps no cause when it is undefined.
      { cause },
    );
    this.stepId = stepId;
    this.tool = tool;
    // Where in the step's arguments (or the output) resolution failed. Not passed to super: the detail
    // already ends with the cause's message, which names the argument.
    if ((code === "unresolved-args" || code === "unresolved-output") && isInstance(cause, RefError)) {
      const where = this as { ref: string | undefined; arg: string | undefined; span: Span | undefined };
      try {
        where.ref = (cause as RefError).ref;
        where.arg = (cause as RefError).arg;
        where.span = (cause as RefError).span;
      } catch {
        // A cause built to look like a RefError (a Proxy): the step error keeps no place.
      }
    }
  }
}
