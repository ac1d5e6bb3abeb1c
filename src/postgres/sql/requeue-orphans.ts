/**
 * Steps left with no job are queued again: the steps of running runs that are still to run (ready,
 * retrying (at their time), or running with no live worker) and have no job that can still run (none, or one graphile-worker gave
 * up on) get one again, a dead job revived, a missing one added.
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob } from "../queue.js";
import { CLAIMABLE_STATES } from "../stored-states.js";
import { PAST_DEADLINE } from "./recover-dead-workers.js";

/**
 * Queue the orphans again, in one statement; how many jobs were made available.
 *
 * @example
 * if ((await requeueOrphans(pool, connection)) > 0) nudge()
 */
export async function requeueOrphans(pool: PgPool, connection: Connection): Promise<number> {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const workers = table(connection, "workers");
  const found = await pool.query(
    `with live as (select id from ${workers} w where not (${PAST_DEADLINE("w")})),
     orphans as (
       select s.run_id, s.step_id, s.tool, s.run_id || ':' || s.step_id::text as key, greatest(now(), s.retry_at) as run_at
       from ${steps} s join ${runs} r on r.id = s.run_id
       where r.status = 'running' and s.state = any($1::text[])
         and (s.state <> 'running' or s.worker is null or s.worker not in (select id from live))
         and not exists (select 1 from graphile_worker._private_jobs j where j.key = s.run_id || ':' || s.step_id::text and j.attempts < j.max_attempts)),
     revived as (
       update graphile_worker._private_jobs j set attempts = 0, locked_by = null, locked_at = null, run_at = o.run_at
       from orphans o where j.key = o.key returning j.id),
     added as (
       select ${addStepJob(connection, "o.run_id", "o.step_id", "o.tool", { runAtSql: "o.run_at" })} from orphans o
       where not exists (select 1 from graphile_worker._private_jobs j where j.key = o.key))
     select (select count(*) from revived) + (select count(*) from added) as n`,
    [CLAIMABLE_STATES],
  );
  return Number(found.rows[0]?.n ?? 0);
}
