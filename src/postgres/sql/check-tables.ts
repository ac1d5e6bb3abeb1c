/** Whether plan-refs' tables are there: a statement that fails (`not-migrated`) on a database `migrate` never ran on. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** No parameters; no rows. */
export function checkTablesSql(connection: Connection): string {
  return `select 1 from ${table(connection, "workers")} limit 0`;
}

/**
 * Throw when the tables are not there (a clear error rather than failing jobs).
 *
 * @example
 * await checkTables(pool, connection)
 */
export async function checkTables(client: PgQueryable, connection: Connection): Promise<void> {
  await client.query(checkTablesSql(connection));
}
