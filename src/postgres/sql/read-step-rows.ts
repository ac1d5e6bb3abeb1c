/**
 * A run's steps as stored, for `getRun` and `waitForRun`. Times are milliseconds since the run was
 * created, as PostgreSQL measures them (one clock for every worker).
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { STATE_SQL } from "../stored-states.js";
import { SINCE } from "./read-run.js";
import { PAST_DEADLINE } from "./recover-dead-workers.js";

/** $1: the run id. */
export function readStepRowsSql(connection: Connection): string {
  return `select s.step_id, s.tool, s.state, s.attempt, s.approval_args, s.blocked_by, s.has_result, s.result, s.result is null as no_result, s.error, ${SINCE("s.started_at")} as start_ms, ${SINCE("s.ended_at")} as end_ms, ${SINCE("s.retry_at")} as retry_ms, extract(epoch from (s.retry_at - clock_timestamp())) * 1000 as retry_in_ms, s.ordinal,
            s.state = ${STATE_SQL.ready} and not exists (select 1 from ${table(connection, "workers")} w where s.tool = any(w.tools) and not (${PAST_DEADLINE("w")})) as unserved
     from ${table(connection, "steps")} s join ${table(connection, "runs")} r on r.id = s.run_id
     where s.run_id = $1 order by s.ended_at nulls last, s.ordinal`;
}

/**
 * Every step of the run with its state, result, error and times, settled ones in the order they ended
 * (then plan order); `unserved` says that a ready step's tool is on no live worker, `retry_in_ms` how
 * long a retrying step still waits by the database's clock.
 *
 * @example
 * const rows = await readStepRows(client, connection, runId)
 */
export async function readStepRows(client: PgQueryable, connection: Connection, runId: string): Promise<Record<string, unknown>[]> {
  const steps = await client.query(readStepRowsSql(connection), [runId]);
  return steps.rows;
}
