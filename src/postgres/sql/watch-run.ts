/** Following a run: its notifications, and the flag that makes workers announce its steps' progress. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/**
 * Listen on a channel of this database's plan-refs schema (a name plan-refs made, quoted as an identifier).
 *
 * @example
 * await listenOn(client, finishedChannel(connection))
 */
export async function listenOn(client: PgQueryable, channel: string): Promise<void> {
  await client.query(`listen "${channel.replaceAll('"', '""')}"`);
}

/**
 * Mark the run as followed: workers announce its steps only while someone does.
 *
 * @example
 * await watchRun(client, connection, runId)
 */
export async function watchRun(client: PgQueryable, connection: Connection, runId: string): Promise<void> {
  await client.query(`update ${table(connection, "runs")} set watched = true where id = $1 and not watched`, [runId]);
}
