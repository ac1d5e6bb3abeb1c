/**
 * A step failed, first part, in the caller's transaction: one prepared call of the PL/pgSQL function
 * `settle_failed` (settle-failed-function.ts), which stores the error if this attempt still holds the
 * step and gives every step's state as it was before, from which the caller decides, by the rules of
 * ../step/schedule.ts, whom the failure skips.
 */
import type { Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import type { StoredStepError } from "../stored-error.js";
import type { StepState } from "../../step/schedule.js";
import { ruleState, type StepAttempt, type StoredState } from "../stored-states.js";
import { settleFailedName } from "./settle-failed-function.js";

/** $1: the run id, $2: the step id, $3: the attempt, $4: whether a result is kept, $5: that result (JSON), $6: the error (JSON). */
export function settleFailedSql(connection: Connection): string {
  return `select o_step_id, o_state, o_dependencies from ${settleFailedName(connection)}($1, $2, $3, $4, $5, $6)`;
}

/** A step of the failed step's run, as it was before the failure was stored (its state as the rules see it). */
export interface RunStepRow {
  readonly id: number;
  readonly state: StepState;
  readonly dependencies: number[];
}

/** A step failed: which attempt, its error, and a result that failed its output check (`undefined`: none). */
export interface FailedStep extends StepAttempt {
  readonly error: StoredStepError;
  readonly result: string | null | undefined;
}

/**
 * Store the failure (one prepared call); the run's steps as they were, or `undefined` when it was not stored.
 *
 * @example
 * const steps = await storeFailure(client, connection, { runId, stepId: 3, attempt: 1, error: { code: "timeout", detail: "timed out after 50 ms" }, result: undefined })
 */
export async function storeFailure(
  client: PgQueryable,
  connection: Connection,
  { runId, stepId, attempt, error, result }: FailedStep,
): Promise<RunStepRow[] | undefined> {
  const found = await client.query({
    name: `plan_refs.settle_failed.${connection.schema}`,
    text: settleFailedSql(connection),
    values: [runId, stepId, attempt, result !== undefined, result ?? null, JSON.stringify(error)],
  });
  if (found.rows.length === 0) return undefined;
  return found.rows.map((row) => ({
    id: Number(row.o_step_id),
    state: ruleState(row.o_state as StoredState),
    dependencies: row.o_dependencies as number[],
  }));
}
