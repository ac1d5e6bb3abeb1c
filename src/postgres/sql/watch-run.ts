/** Following a run: the flag that makes workers announce its steps' progress. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id. */
export function watchRunSql(connection: Connection): string {
  return `update ${table(connection, "runs")} set watched = true where id = $1 and not watched`;
}

/**
 * Mark the run as followed: workers announce its steps only while someone does.
 *
 * @example
 * await watchRun(client, connection, runId)
 */
export async function watchRun(client: PgQueryable, connection: Connection, runId: string): Promise<void> {
  await client.query(watchRunSql(connection), [runId]);
}
