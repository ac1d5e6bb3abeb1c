/** A stopping worker's row removed from the workers table (nobody need wait for its deadline). */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";

/** $1: the worker id. */
export function removeWorkerSql(connection: Connection): string {
  return `delete from ${table(connection, "workers")} where id = $1`;
}

/**
 * Remove a stopping worker's row.
 *
 * @example
 * await removeWorker(pool, connection, worker.id)
 */
export async function removeWorker(pool: PgPool, connection: Connection, workerId: string): Promise<void> {
  await pool.query(removeWorkerSql(connection), [workerId]);
}
