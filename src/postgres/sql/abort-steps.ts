/**
 * The running steps of a stopped run fail with code `aborted` (their workers are told separately, and
 * abort their signals); one waiting to be tried again fails with its last try's error, as in runPlan.
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import type { StoredStepError } from "../stored-error.js";
import { RETRYING, STATE_SQL } from "../stored-states.js";

/** $1: the run id, $2: the steps' ids, $3: the error (JSON), $4: the state whose step keeps the error of its last try. */
export function abortStepsSql(connection: Connection): string {
  return `update ${table(connection, "steps")} set state = ${STATE_SQL.failed}, error = case when state = $4 then error else $3 end, ended_at = clock_timestamp() where run_id = $1 and step_id = any($2::bigint[])`;
}

/**
 * @example
 * await abortSteps(client, connection, runId, [2, 5], { code: "aborted", detail: "aborted with the run" })
 */
export async function abortSteps(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepIds: readonly number[],
  error: StoredStepError,
): Promise<void> {
  if (stepIds.length === 0) return;
  await client.query(abortStepsSql(connection), [runId, stepIds, JSON.stringify(error), RETRYING]);
}
