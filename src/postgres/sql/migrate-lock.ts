/** The advisory lock `migrate` holds while it migrates, so that several processes take turns (advisory locks are per database). */
import type { PgQueryable } from "../peers.js";

/** A lock id of plan-refs' migrations (any constant). */
export const MIGRATE_LOCK = 7_214_503_111;

/** $1: the lock id. */
export const migrateLockSql = "select pg_advisory_lock($1)";

/**
 * Wait for the lock, and take it.
 *
 * @example
 * await migrateLock(client)
 */
export async function migrateLock(client: PgQueryable): Promise<void> {
  await client.query(migrateLockSql, [MIGRATE_LOCK]);
}
