/**
 * A failed try to be tried again, in one round trip: one prepared call of the PL/pgSQL function
 * `retry_step` (retry-step-function.ts), which marks the step `retrying` with its next time and queues its job for then.
 */
import type { Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import type { StoredStepError } from "../stored-error.js";
import type { StepAttempt } from "../stored-states.js";
import { retryStepName } from "./retry-step-function.js";

/** $1: the run id, $2: the step id, $3: the attempt, $4: the try's error (JSON), $5: the delay in milliseconds. */
export function retryStepSql(connection: Connection): string {
  return `select ${retryStepName(connection)}($1, $2, $3, $4, $5) as stored`;
}

/** A failed try to be tried again: which attempt, its error, and how long the step waits. */
export interface RetriedStep extends StepAttempt {
  readonly error: StoredStepError;
  readonly delayMs: number;
}

/**
 * Mark a failed try to be tried again after `delayMs`; `false` when this attempt no longer holds the step.
 *
 * @example
 * await retryStep(pool, connection, { runId, stepId: 3, attempt: 1, error: { code: "tool-error", detail: "the tool threw: down" }, delayMs: 1_000 })
 */
export async function retryStep(
  pool: PgPool,
  connection: Connection,
  { runId, stepId, attempt, error, delayMs }: RetriedStep,
): Promise<boolean> {
  const found = await pool.query({
    name: `plan_refs.retry.${connection.schema}`,
    text: retryStepSql(connection),
    values: [runId, stepId, attempt, JSON.stringify(error), delayMs],
  });
  return found.rows[0]?.stored === true;
}
