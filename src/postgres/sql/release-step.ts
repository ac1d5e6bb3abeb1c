/**
 * A step given back by a worker that stops: if this attempt still holds it, it is ready again, and
 * its job, if this worker still holds it, is free at once with its try given back (see release-job.ts).
 */
import type { Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { freeJob } from "./release-job.js";
import { readyAgain } from "./release-taken-step.js";

/** $1: the run id, $2: the step id, $3: the attempt, $4: the job id, $5: the worker id. */
export function releaseStepSql(connection: Connection): string {
  return `with ${readyAgain(connection, "$1", "$2", "$3")},
     ${freeJob("$4", "$5")}`;
}

/**
 * Release the step and its job, in one statement.
 *
 * @example
 * await releaseStep(pool, connection, { runId, stepId, attempt, jobId: helpers.job.id, workerId: worker.id })
 */
export async function releaseStep(
  pool: PgPool,
  connection: Connection,
  step: { readonly runId: string; readonly stepId: number; readonly attempt: number; readonly jobId: string; readonly workerId: string },
): Promise<void> {
  await pool.query(releaseStepSql(connection), [step.runId, step.stepId, step.attempt, step.jobId, step.workerId]);
}
