/**
 * Steps left with no job are queued again: the steps of running runs that are still to run (ready,
 * retrying (at their time), or running with no live worker) and have no job that can still run (none, or one graphile-worker gave
 * up on) get one again: graphile-worker's public `add_job` in replace mode revives a dead job of the
 * step's key (its tries counted from 0) or adds a missing one; what is there is read from its `jobs` view.
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob, stepJobOrder } from "../queue.js";
import { CLAIMABLE_STATES, RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";
import { PAST_DEADLINE } from "./recover-dead-workers.js";

/** $1: the states of steps that need a job. */
export function requeueOrphansSql(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const workers = table(connection, "workers");
  return `with live as (select id from ${workers} w where not (${PAST_DEADLINE("w")})),
     orphans as (
       select s.run_id, s.step_id, s.tool, s.run_id || ':' || s.step_id::text as key, greatest(now(), s.retry_at) as run_at
       from ${steps} s join ${runs} r on r.id = s.run_id
       where r.status = ${RUNNING_RUN_SQL} and s.state = any($1::text[])
         and (s.state <> ${STATE_SQL.running} or s.worker is null or s.worker not in (select id from live))
         and not exists (select 1 from graphile_worker.jobs j where j.key = s.run_id || ':' || s.step_id::text and j.attempts < j.max_attempts))
     select count(j.job) as n from (select ${addStepJob(connection, "o.run_id", "o.step_id", "o.tool", { runAtSql: "o.run_at" })} as job
                                    from orphans o ${stepJobOrder("o.tool", "o.run_id", "o.step_id")}) as j`;
}

/**
 * Queue the orphans again, in one statement; how many jobs were made available.
 *
 * @example
 * if ((await requeueOrphans(pool, connection)) > 0) nudge()
 */
export async function requeueOrphans(pool: PgPool, connection: Connection): Promise<number> {
  const found = await pool.query(requeueOrphansSql(connection), [CLAIMABLE_STATES]);
  return Number(found.rows[0]?.n ?? 0);
}
