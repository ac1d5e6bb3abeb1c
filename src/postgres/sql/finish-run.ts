/** A run's counters and end: its count of steps not settled, and its final status once every step is. */
import type { Diagnostic } from "../../shared/diagnostic.js";
import type { RunStatus } from "../../step/schedule.js";
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/**
 * Set the run's count of steps not settled (after a change that settled several at once).
 *
 * @example
 * await setUnsettled(client, connection, runId, 0)
 */
export async function setUnsettled(client: PgQueryable, connection: Connection, runId: string, unsettled: number): Promise<void> {
  await client.query(`update ${table(connection, "runs")} set unsettled = $2 where id = $1`, [runId, unsettled]);
}

/** The run's diagnostics (its final status depends on them). */
export async function readDiagnostics(client: PgQueryable, connection: Connection, runId: string): Promise<Diagnostic[]> {
  const found = await client.query(`select diagnostics from ${table(connection, "runs")} where id = $1`, [runId]);
  return (found.rows[0]?.diagnostics as Diagnostic[] | undefined) ?? [];
}

/** End the run with its final status. */
export async function finishRun(client: PgQueryable, connection: Connection, runId: string, status: RunStatus): Promise<void> {
  await client.query(`update ${table(connection, "runs")} set status = $2, finished_at = clock_timestamp() where id = $1`, [runId, status]);
}
