/**
 * A person approves a step waiting for approval (its run's row locked by the caller): it is ready and
 * queued, and runs without asking again; a suspended run is running again. One statement, changing
 * nothing unless the step still waits.
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { addStepJob, progressChannel } from "../queue.js";
import { AWAITING_APPROVAL, RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";

/** $1: the run id, $2: the step id, $3: the state of a step waiting for approval, $4: the status of a suspended run, $5: the progress channel. */
export function approveStepSql(connection: Connection): string {
  return `with step as (
       update ${table(connection, "steps")} set state = ${STATE_SQL.ready}, approved = true
       where run_id = $1 and step_id = $2 and state = $3 returning step_id, tool),
     jobs as (select ${addStepJob(connection, "$1::text", "s.step_id", "s.tool")} from step s),
     run as (update ${table(connection, "runs")} set status = ${RUNNING_RUN_SQL}, finished_at = null where id = $1 and status = $4 and exists (select 1 from step) returning watched),
     told as (select pg_notify($5, $1) from ${table(connection, "runs")} r where r.id = $1 and r.watched and exists (select 1 from step))
     select (select count(*) from step) as approved, (select count(*) from jobs) as queued, (select count(*) from run) as resumed, (select count(*) from told) as told`;
}

/**
 * Approve: the step ready (`approved`, so its claim does not ask again) and its job added; the run
 * running again if it was `suspended`. Whether the step was approved.
 *
 * @example
 * await approveWaiting(client, connection, runId, 3, "suspended") // true
 */
export async function approveWaiting(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepId: number,
  suspended: string,
): Promise<boolean> {
  const found = await client.query(approveStepSql(connection), [runId, stepId, AWAITING_APPROVAL, suspended, progressChannel(connection)]);
  return Number(found.rows[0]?.approved ?? 0) === 1;
}
