/**
 * A step given back by a worker that stops: if this attempt still holds it, it is ready again, and
 * its job, if this worker still holds it, is free at once with its try given back (graphile-worker
 * counted one when the job was taken).
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";

/**
 * Release the step and its job, in one statement.
 *
 * @example
 * await releaseStep(pool, connection, { runId, stepId, attempt, jobId: helpers.job.id, workerId: worker.id })
 */
export async function releaseStep(pool: PgPool, connection: Connection, step: { readonly runId: string; readonly stepId: number; readonly attempt: number; readonly jobId: string; readonly workerId: string }): Promise<void> {
  await pool.query(
    `with step as (
       update ${table(connection, "steps")} set state = 'ready', worker = null
       where run_id = $1 and step_id = $2 and attempt = $3 and state = 'running' returning 1)
     update graphile_worker._private_jobs set locked_by = null, locked_at = null, attempts = greatest(attempts - 1, 0), run_at = now()
     where id = $4::bigint and locked_by = $5`,
    [step.runId, step.stepId, step.attempt, step.jobId, step.workerId],
  );
}
