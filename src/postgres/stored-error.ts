/**
 * How a step's error is kept in the database (`steps.error`, JSON) and made again into the
 * `StepError` `runPlan` would have reported: its code, its detail and, for `unresolved-args`, where in
 * the arguments resolution failed.
 */
import { RefError } from "../shared/errors.js";
import { isInstance } from "../shared/errors.js";
import { MISSING, readOwnData } from "../shared/own-data.js";
import type { StepFailure } from "../step/attempt.js";
import { STEP_ERROR_CODES, StepError, type StepErrorCode } from "../step/step-error.js";

/** A step's error as stored. */
export interface StoredStepError {
  readonly code: StepErrorCode;
  readonly detail: string;
  readonly ref?: string;
  readonly arg?: string;
}

/**
 * A failure as it is stored: the place of an `unresolved-args` failure comes from its cause (the
 * resolver's `RefError`).
 *
 * @example
 * storedError(STEP_FAILURES.timeout(50)) // { code: "timeout", detail: "timed out after 50 ms" }
 */
export function storedError(failure: StepFailure): StoredStepError {
  const cause = failure.cause;
  if (failure.code !== "unresolved-args" || !isInstance(cause, RefError)) return { code: failure.code, detail: failure.detail };
  const { ref, arg } = cause as RefError;
  return { code: failure.code, detail: failure.detail, ...(ref === undefined ? {} : { ref }), ...(arg === undefined ? {} : { arg }) };
}

/** The stored JSON of a step's error, read by own data (a row written by an older version may lack fields). */
function readStored(stored: unknown): StoredStepError {
  const field = (key: string): unknown => {
    const value = typeof stored === "object" && stored !== null ? readOwnData(stored, key) : MISSING;
    return value === MISSING ? undefined : value;
  };
  const code = field("code");
  const ref = field("ref");
  const arg = field("arg");
  const detail = field("detail") ?? "";
  return {
    code: typeof code === "string" && (STEP_ERROR_CODES as readonly string[]).includes(code) ? (code as StepErrorCode) : "tool-error",
    // Read from jsonb, so JSON text again: a number as its digits, an object as itself rather than "[object Object]".
    detail: typeof detail === "string" ? detail : JSON.stringify(detail),
    ...(typeof ref === "string" ? { ref } : {}),
    ...(typeof arg === "string" ? { arg } : {}),
  };
}

/**
 * A step error as runPlan makes it, from what was stored: an `unresolved-args` error with a place gets
 * it through its cause, as runPlan's gets it from the resolver's error.
 *
 * @example
 * rebuildStepError(2, "geocode", { code: "timeout", detail: "timed out after 50 ms" }).message // "step 2 (geocode): timed out after 50 ms"
 */
export function rebuildStepError(stepId: number, tool: string, stored: unknown): StepError {
  const { code, detail, ref, arg } = readStored(stored);
  const place = ref !== undefined || arg !== undefined ? new RefError("unresolved-args", detail, { ref, arg }) : undefined;
  return new StepError(code, stepId, tool, detail, place);
}
