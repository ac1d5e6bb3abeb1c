/**
 * A step given back by a worker that stops: if this attempt still holds it, it is ready again, and
 * its job, if this worker still holds it, is free at once with its try given back (graphile-worker
 * counted one when the job was taken). The one place plan-refs writes graphile-worker's private
 * tables (see `FREE_JOB`).
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob } from "../queue.js";

/**
 * Free a job this worker holds, its try given back, and its queue (a serial tool's) if this worker
 * locked it for the job ($1: the job id, $2: the worker id; the statement's last common table
 * expressions). Private tables, on purpose: graphile-worker's public functions never touch a locked
 * job (`reschedule_jobs` skips it, `add_job` in replace mode gives it up and adds a new one, which a
 * serial queue this worker holds would keep waiting until the worker ends the old job), and only the
 * worker that holds a job may give its try back. The same statement as graphile-worker's own
 * `returnJobs` at shutdown; `migrate` and `startWorker` refuse a graphile-worker outside the tested
 * versions (graphile-version.ts), whose tables may differ.
 */
const FREE_JOB = `freed as (
       update graphile_worker._private_jobs set locked_by = null, locked_at = null, attempts = greatest(attempts - 1, 0), run_at = now()
       where id = $1::bigint and locked_by = $2 returning job_queue_id)
     update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
     from freed where q.id = freed.job_queue_id and q.locked_by = $2`;

/**
 * The common table expression `step`: the step ready again if this attempt still holds it (run id,
 * step id and attempt in the parameters numbered `from`, `from + 1`, `from + 2`), returning its tool.
 */
function readyAgain(connection: Connection, from: number): string {
  return `step as (
       update ${table(connection, "steps")} set state = 'ready', worker = null
       where run_id = $${from} and step_id = $${from + 1} and attempt = $${from + 2} and state = 'running' returning tool)`;
}

/**
 * Release the step and its job, in one statement.
 *
 * @example
 * await releaseStep(pool, connection, { runId, stepId, attempt, jobId: helpers.job.id, workerId: worker.id })
 */
export async function releaseStep(pool: PgPool, connection: Connection, step: { readonly runId: string; readonly stepId: number; readonly attempt: number; readonly jobId: string; readonly workerId: string }): Promise<void> {
  await pool.query(
    `with ${readyAgain(connection, 3)},
     ${FREE_JOB}`,
    [step.jobId, step.workerId, step.runId, step.stepId, step.attempt],
  );
}

/**
 * Release a job whose step this worker has not claimed (it waited for its tool's turn when the worker stopped).
 *
 * @example
 * await releaseJob(pool, connection, helpers.job.id, worker.id)
 */
export async function releaseJob(pool: PgPool, connection: Connection, jobId: string, workerId: string): Promise<void> {
  await pool.query(`with ${FREE_JOB}`, [jobId, workerId]);
}

/**
 * Release a step a settle took for this worker (it has no job: see sql/settle-done.ts): ready again,
 * with a job available at once. The job this worker holds is another step's, done, and left to end.
 *
 * @example
 * await releaseTakenStep(pool, connection, { runId, stepId, attempt })
 */
export async function releaseTakenStep(pool: PgPool, connection: Connection, step: { readonly runId: string; readonly stepId: number; readonly attempt: number }): Promise<void> {
  await pool.query(
    `with ${readyAgain(connection, 1)}
     select ${addStepJob(connection, "$1::text", "$2::bigint", "step.tool")} from step`,
    [step.runId, step.stepId, step.attempt],
  );
}
