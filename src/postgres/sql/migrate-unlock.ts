/** The advisory lock of `migrate` (migrate-lock.ts) given up. */
import type { PgQueryable } from "../peers.js";
import { MIGRATE_LOCK } from "./migrate-lock.js";

/** $1: the lock id. */
export const migrateUnlockSql = "select pg_advisory_unlock($1)";

/**
 * Give the lock up.
 *
 * @example
 * await migrateUnlock(client)
 */
export async function migrateUnlock(client: PgQueryable): Promise<void> {
  await client.query(migrateUnlockSql, [MIGRATE_LOCK]);
}
