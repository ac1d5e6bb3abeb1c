/** A run's end: its final status once every step is settled (or what is left waits for approval). */
import type { RunStatus } from "../../step/schedule.js";
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id, $2: its final status. */
export function finishRunSql(connection: Connection): string {
  return `update ${table(connection, "runs")} set status = $2, finished_at = clock_timestamp() where id = $1`;
}

/**
 * End the run with its final status.
 *
 * @example
 * await finishRun(client, connection, runId, "ok")
 */
export async function finishRun(client: PgQueryable, connection: Connection, runId: string, status: RunStatus): Promise<void> {
  await client.query(finishRunSql(connection), [runId, status]);
}
