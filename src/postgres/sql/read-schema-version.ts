/** The schema version `migrate` recorded and the oldest worker version it still serves. */
import type { PgQueryable } from "../peers.js";

/** No parameters; one row at most. */
export function readSchemaVersionSql(recordTable: string): string {
  return `select version, oldest_worker from ${recordTable}`;
}

/**
 * @example
 * await readRecordedSchema(pool, '"plan_refs"."schema_version"') // { version: 4, oldestWorker: 3 }
 */
export async function readRecordedSchema(
  client: PgQueryable,
  recordTable: string,
): Promise<{ readonly version: number; readonly oldestWorker: number } | undefined> {
  const found = await client.query(readSchemaVersionSql(recordTable));
  const row = found.rows[0];
  return row === undefined ? undefined : { version: Number(row.version), oldestWorker: Number(row.oldest_worker) };
}
