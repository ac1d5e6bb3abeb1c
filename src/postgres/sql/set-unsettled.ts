/** A run's count of steps not settled, set after a change that settled several at once. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id, $2: its count of steps not settled. */
export function setUnsettledSql(connection: Connection): string {
  return `update ${table(connection, "runs")} set unsettled = $2 where id = $1`;
}

/**
 * Set the run's count of steps not settled (after a change that settled several at once).
 *
 * @example
 * await setUnsettled(client, connection, runId, 0)
 */
export async function setUnsettled(client: PgQueryable, connection: Connection, runId: string, unsettled: number): Promise<void> {
  await client.query(setUnsettledSql(connection), [runId, unsettled]);
}
