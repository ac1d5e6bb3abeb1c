/** Record the schema's version and the oldest worker version it serves: `migrate`'s last statement. */
import type { PgQueryable } from "../peers.js";

/** $1: the version; $2: the oldest worker version served. */
export function recordSchemaVersionSql(recordTable: string): string {
  return `insert into ${recordTable} (version, oldest_worker) values ($1, $2)
     on conflict (one) do update set version = excluded.version, oldest_worker = excluded.oldest_worker, migrated_at = clock_timestamp()`;
}

/**
 * @example
 * await recordVersion(client, '"plan_refs"."schema_version"', 4, 3)
 */
export async function recordVersion(client: PgQueryable, recordTable: string, version: number, oldestWorker: number): Promise<void> {
  await client.query(recordSchemaVersionSql(recordTable), [version, oldestWorker]);
}
