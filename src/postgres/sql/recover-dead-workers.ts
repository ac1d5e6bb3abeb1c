/**
 * Workers taken for dead, found (their rows deleted); their jobs are then released (unlock-workers.ts),
 * so that their steps run elsewhere.
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { stepTask } from "../queue.js";

/**
 * SQL: the worker row `w` is past the deadline it published (its last heartbeat plus its own
 * `recovery_ms`), counted only on time the database has seen pass: a heartbeat older than the
 * server's start counts from the start (a database outage is no worker's death).
 */
export const PAST_DEADLINE = (w: string): string =>
  `greatest(${w}.heartbeat_at, pg_postmaster_start_time()) + ${w}.recovery_ms * interval '1 millisecond' < clock_timestamp()`;

/** $1: this worker's id, $2: the stray delay in milliseconds, $3: the prefix of plan-refs' step tasks. */
export function findDeadWorkersSql(connection: Connection): string {
  const workers = table(connection, "workers");
  return `with dead as (
       delete from ${workers} w where w.id <> $1 and ${PAST_DEADLINE("w")} returning id
     ), strays as (
       select distinct j.locked_by as id from graphile_worker.jobs j
       where j.locked_by is not null and j.locked_by <> $1 and left(j.task_identifier, length($3)) = $3
         and greatest(j.locked_at, pg_postmaster_start_time()) < clock_timestamp() - $2 * interval '1 millisecond'
         and j.locked_by not in (select id from ${workers})
     )
     select id from dead union select id from strays`;
}

/**
 * The workers other than `workerId` taken for dead (their rows deleted): past the deadline each
 * published, and whoever holds plan-refs jobs without a heartbeat row, after `strayMs`.
 *
 * @example
 * const dead = await findDeadWorkers(pool, connection, worker.id, 30_000)
 */
export async function findDeadWorkers(pool: PgPool, connection: Connection, workerId: string, strayMs: number): Promise<string[]> {
  const found = await pool.query(findDeadWorkersSql(connection), [workerId, strayMs, stepTask(connection)]);
  return found.rows.map((row) => String(row.id));
}
