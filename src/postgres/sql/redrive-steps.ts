/**
 * Redrive a finished run (its row locked by the caller): every step without a result is to run again
 * (its error, times and worker cleared; ready when its dependencies are done, else waiting, with its
 * count of dependencies not done), the ready ones are enqueued, and the run is running again. Steps
 * that are done keep their results and are never queued. One statement.
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { addStepJob, stepJobOrder } from "../queue.js";
import { RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";

/** $1: the run id. */
export function redriveStepsSql(connection: Connection): string {
  const steps = table(connection, "steps");
  return `with counts as (
       select s.step_id, (select count(*) from json_array_elements_text(s.dependencies) d
                          where not exists (select 1 from ${steps} x where x.run_id = $1 and x.step_id = d::bigint and x.state = ${STATE_SQL.done})) as remaining
       from ${steps} s where s.run_id = $1 and s.state <> ${STATE_SQL.done}),
     reset as (
       update ${steps} s set state = case when c.remaining = 0 then ${STATE_SQL.ready} else ${STATE_SQL.waiting} end, remaining = c.remaining,
         error = null, has_result = false, result = null, blocked_by = null, started_at = null, ended_at = null, worker = null
       from counts c where s.run_id = $1 and s.step_id = c.step_id
       returning s.step_id, s.tool, s.state),
     jobs as (select ${addStepJob(connection, "$1::text", "r.step_id", "r.tool")} from reset r where r.state = ${STATE_SQL.ready} ${stepJobOrder("r.tool", "r.step_id")}),
     run as (update ${table(connection, "runs")} set status = ${RUNNING_RUN_SQL}, finished_at = null, unsettled = (select count(*) from reset) where id = $1 returning id)
     select (select count(*) from reset) as reset, (select count(*) from jobs) as queued, (select count(*) from run) as runs`;
}

/**
 * @example
 * const { reset, queued } = await redriveSteps(client, connection, runId)
 */
export async function redriveSteps(client: PgQueryable, connection: Connection, runId: string): Promise<{ reset: number; queued: number }> {
  const found = await client.query(redriveStepsSql(connection), [runId]);
  const row = found.rows[0] as { reset: unknown; queued: unknown };
  return { reset: Number(row.reset), queued: Number(row.queued) };
}
