/**
 * The last migration of the database's graphile-worker schema. graphile-worker has no public function
 * for it; its `migrations` table is what its own migrate reads.
 */
import type { PgQueryable } from "../peers.js";

/** No parameters. */
export const graphileSchemaMigrationSql = "select max(id) as id from graphile_worker.migrations";

/**
 * The last migration's id (`undefined`: none yet; a database graphile-worker never migrated fails, as
 * `not-migrated` from the callers).
 *
 * @example
 * graphileSchemaProblem(await graphileSchemaMigration(pool))
 */
export async function graphileSchemaMigration(client: PgQueryable): Promise<number | undefined> {
  const found = await client.query(graphileSchemaMigrationSql);
  const id = found.rows[0]?.id;
  return id === null || id === undefined ? undefined : Number(id);
}
