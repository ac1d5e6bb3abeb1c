/** The jobs of workers taken for dead released (graphile-worker's `force_unlock_workers`): their steps are taken again, by any worker. */
import type { PgPool } from "../peers.js";

/** $1: the workers' ids. */
export const unlockWorkersSql = "select graphile_worker.force_unlock_workers($1::text[])";

/**
 * Release the jobs of workers taken for dead.
 *
 * @example
 * await unlockWorkers(pool, ["worker-1"])
 */
export async function unlockWorkers(pool: PgPool, workerIds: readonly string[]): Promise<void> {
  await pool.query(unlockWorkersSql, [workerIds]);
}
