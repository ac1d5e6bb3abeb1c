/**
 * A job this worker holds, given back by a worker that stops: free at once, with its try given back
 * (graphile-worker counted one when the job was taken). The one place plan-refs writes
 * graphile-worker's private tables (see `freeJob`; release-step.ts frees a job with its step).
 */
import type { PgPool } from "../peers.js";

/**
 * SQL, the last common table expressions of a statement: free a job this worker holds, its try given
 * back, and its queue (a serial tool's) if this worker locked it for the job (`jobIdSql`, `workerIdSql`:
 * the statement's parameters of the job id and worker id). Private tables, on purpose: graphile-worker's
 * public functions never touch a locked job (`reschedule_jobs` skips it, `add_job` in replace mode gives
 * it up and adds a new one, which a serial queue this worker holds would keep waiting until the worker
 * ends the old job), and only the worker that holds a job may give its try back. The same statement as
 * graphile-worker's own `returnJobs` at shutdown; `migrate` and `startWorker` refuse a graphile-worker
 * outside the tested versions (graphile-version.ts), whose tables may differ.
 */
export function freeJob(jobIdSql: string, workerIdSql: string): string {
  return `freed as (
       update graphile_worker._private_jobs set locked_by = null, locked_at = null, attempts = greatest(attempts - 1, 0), run_at = now()
       where id = ${jobIdSql}::bigint and locked_by = ${workerIdSql} returning job_queue_id)
     update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
     from freed where q.id = freed.job_queue_id and q.locked_by = ${workerIdSql}`;
}

/** $1: the job id, $2: the worker id. */
export const releaseJobSql = `with ${freeJob("$1", "$2")}`;

/**
 * Release a job whose step this worker has not claimed (it waited for its tool's turn when the worker stopped).
 *
 * @example
 * await releaseJob(pool, helpers.job.id, worker.id)
 */
export async function releaseJob(pool: PgPool, jobId: string, workerId: string): Promise<void> {
  await pool.query(releaseJobSql, [jobId, workerId]);
}
