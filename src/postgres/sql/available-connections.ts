/** How many connections the server allows in all (what a worker's concurrency must fit in). */
import type { PgQueryable } from "../peers.js";

/** No parameters. */
export const availableConnectionsSql =
  "select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int as available";

/**
 * `max_connections` less those kept for superusers (`NaN` if the server did not say).
 *
 * @example
 * const available = await availableConnections(pool) // 97
 */
export async function availableConnections(client: PgQueryable): Promise<number> {
  const found = await client.query(availableConnectionsSql);
  return Number(found.rows[0]?.available);
}
