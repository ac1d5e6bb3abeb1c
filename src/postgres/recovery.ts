/**
 * What workers do for one another: who is taken for dead, the steps left with no job (queued again),
 * and a step given back by a worker that stops (ready again at once, the try not counted).
 */
import { table, type Connection } from "./db.js";
import { addStepJob } from "./queue.js";

/**
 * SQL: the worker row `w` is past the deadline it published (its last heartbeat plus its own
 * `recovery_ms`), counted only on time the database has seen pass: a heartbeat older than the
 * server's start counts from the start (a database outage is no worker's death).
 */
export const PAST_DEADLINE = (w: string): string =>
  `greatest(${w}.heartbeat_at, pg_postmaster_start_time()) + ${w}.recovery_ms * interval '1 millisecond' < clock_timestamp()`;

/**
 * One statement: the steps of running runs that are `ready`, or `running` with no live worker, and
 * have no job that can still run (none, or one graphile-worker gave up on), get one again: a dead job
 * is revived, a missing one added. The count of jobs made available is `n`.
 */
export function requeueOrphans(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const workers = table(connection, "workers");
  return `with live as (select id from ${workers} w where not (${PAST_DEADLINE("w")})),
     orphans as (
       select s.run_id, s.step_id, s.tool, s.run_id || ':' || s.step_id::text as key
       from ${steps} s join ${runs} r on r.id = s.run_id
       where r.status = 'running' and s.state in ('ready', 'running')
         and (s.state = 'ready' or s.worker is null or s.worker not in (select id from live))
         and not exists (select 1 from graphile_worker._private_jobs j where j.key = s.run_id || ':' || s.step_id::text and j.attempts < j.max_attempts)),
     revived as (
       update graphile_worker._private_jobs j set attempts = 0, locked_by = null, locked_at = null, run_at = now()
       from orphans o where j.key = o.key returning j.id),
     added as (
       select ${addStepJob(connection, "o.run_id", "o.step_id", "o.tool")} from orphans o
       where not exists (select 1 from graphile_worker._private_jobs j where j.key = o.key))
     select (select count(*) from revived) + (select count(*) from added) as n`;
}

/**
 * One statement with parameters (run id, step id, attempt, job id, worker id): the step, if this
 * attempt still holds it, is ready again, and its job, if this worker still holds it, is free at once
 * with its try given back (graphile-worker counted one when the job was taken).
 */
export function releaseStep(connection: Connection): string {
  return `with step as (
       update ${table(connection, "steps")} set state = 'ready', worker = null
       where run_id = $1 and step_id = $2 and attempt = $3 and state = 'running' returning 1)
     update graphile_worker._private_jobs set locked_by = null, locked_at = null, attempts = greatest(attempts - 1, 0), run_at = now()
     where id = $4::bigint and locked_by = $5`;
}
