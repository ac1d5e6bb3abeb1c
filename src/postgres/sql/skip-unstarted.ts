/** The steps of a stopped run that never started, skipped. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { STATE_SQL } from "../stored-states.js";

/** $1: the run id, $2: the steps' ids. */
export function skipUnstartedSql(connection: Connection): string {
  return `update ${table(connection, "steps")} set state = ${STATE_SQL.skipped}, ended_at = clock_timestamp() where run_id = $1 and step_id = any($2::bigint[])`;
}

/**
 * Skip the steps of a stopped run that never started.
 *
 * @example
 * await skipUnstarted(client, connection, runId, [4, 5])
 */
export async function skipUnstarted(client: PgQueryable, connection: Connection, runId: string, stepIds: readonly number[]): Promise<void> {
  if (stepIds.length === 0) return;
  await client.query(skipUnstartedSql(connection), [runId, stepIds]);
}
