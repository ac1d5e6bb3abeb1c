/** A run's row locked for the transaction: every change to a run's steps takes it, so they happen one at a time. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id. */
export function lockRunSql(connection: Connection): string {
  return `select status, options from ${table(connection, "runs")} where id = $1 for update`;
}

/**
 * Lock a run's row for the transaction; its status and options, or `undefined` when there is no such run.
 *
 * @example
 * const run = await lockRun(client, connection, runId)
 */
export async function lockRun(
  client: PgQueryable,
  connection: Connection,
  runId: string,
): Promise<{ status: string; options: unknown } | undefined> {
  const found = await client.query(lockRunSql(connection), [runId]);
  return found.rows[0] as { status: string; options: unknown } | undefined;
}
