/**
 * What becomes of a step once a try of it has ended, the one rule of both executors: `runPlan` (its
 * step tries, src/run/step-tries.ts) and a PostgreSQL worker (src/postgres/step-worker.ts) ask it
 * after every try and act on the answer in their own way (a timer or a rescheduled job, a ledger or
 * a row). Pure: the try's failure, the tool's retry policy and the try's number decide; `random` is
 * the jitter's only source.
 */
import { keepsResult, type StepFailure } from "./attempt.js";
import { retryDelayMs, type ResolvedRetryPolicy } from "./retry.js";

/** A step after a try: done, tried again after a wait, or failed (its result kept or not). */
export type AfterTry =
  /** The try succeeded: its result is the step's, and what waits on the step may start. */
  | { readonly next: "done" }
  /** The try failed and the policy tries again after `delayMs`; `attempts` is the policy's count of tries. */
  | { readonly next: "retry"; readonly failure: StepFailure; readonly delayMs: number; readonly attempts: number }
  /** The step fails with `failure`; `keepsResult`: the try's result is kept all the same (an output that fails its schema). */
  | { readonly next: "failed"; readonly failure: StepFailure; readonly keepsResult: boolean };

/** The answer for every try that succeeded (one object: the hot path allocates nothing). */
const DONE: AfterTry = Object.freeze({ next: "done" });

/**
 * What becomes of a step after its try number `attempt` (1, 2, …) ended with `outcome` (its failure;
 * `undefined` when it succeeded), under the tool's retry `policy` (`undefined`: no retry, also what an
 * executor passes for a run that stopped).
 *
 * @example
 * afterTry(undefined, undefined, 1)                                            // { next: "done" }
 * afterTry(STEP_FAILURES.timeout(100), resolveRetryPolicy({ attempts: 2, jitter: "none" }), 1) // { next: "retry", delayMs: 1000, attempts: 2, failure }
 * afterTry(STEP_FAILURES.invalidOutput("/ must be string"), undefined, 1)      // { next: "failed", keepsResult: true, failure }
 */
export function afterTry(
  outcome: StepFailure | undefined,
  policy: ResolvedRetryPolicy | undefined,
  attempt: number,
  random: () => number = Math.random,
): AfterTry {
  if (outcome === undefined) return DONE;
  if (policy !== undefined) {
    const delayMs = retryDelayMs(policy, attempt, outcome, random);
    if (delayMs !== undefined) return { next: "retry", failure: outcome, delayMs, attempts: policy.attempts };
  }
  return { next: "failed", failure: outcome, keepsResult: keepsResult(outcome) };
}
