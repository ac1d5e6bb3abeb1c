/** Whether the schema's version record is there (a database `migrate` of this release or later ran on). */
import type { PgQueryable } from "../peers.js";

/** $1: the record table's qualified name. */
export const schemaVersionPresentSql = "select to_regclass($1) is not null as present";

/**
 * @example
 * await schemaVersionPresent(pool, '"plan_refs"."schema_version"') // true
 */
export async function schemaVersionPresent(client: PgQueryable, recordTable: string): Promise<boolean> {
  const present = await client.query(schemaVersionPresentSql, [recordTable]);
  return present.rows[0]?.present === true;
}
