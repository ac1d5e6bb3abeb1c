/**
 * A person denies a step waiting for approval (its run's row locked by the caller): it fails with its
 * error, its tool never called (the caller then skips what depends on it). One statement, changing
 * nothing unless the step still waits.
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import type { StoredStepError } from "../stored-error.js";
import { AWAITING_APPROVAL, STATE_SQL } from "../stored-states.js";

/** $1: the run id, $2: the step id, $3: the state of a step waiting for approval, $4: the error (JSON). */
export function denyStepSql(connection: Connection): string {
  return `update ${table(connection, "steps")} set state = ${STATE_SQL.failed}, error = $4, ended_at = clock_timestamp() where run_id = $1 and step_id = $2 and state = $3 returning 1`;
}

/**
 * Deny: the step fails with `error` (its tool never called). Whether the step was denied.
 *
 * @example
 * await denyWaiting(client, connection, runId, 3, { code: "denied", detail: "its approval was denied: too expensive" }) // true
 */
export async function denyWaiting(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepId: number,
  error: StoredStepError,
): Promise<boolean> {
  const found = await client.query(denyStepSql(connection), [runId, stepId, AWAITING_APPROVAL, JSON.stringify(error)]);
  return found.rowCount === 1;
}
