/** Steps skipped: those a failure blocks (each with the step that blocked it, in the order of the skip walk), or those a stopped run never started. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/**
 * Skip steps blocked by a failure; their end times keep the walk's order (a microsecond apart).
 *
 * @example
 * await skipBlocked(client, connection, runId, [{ id: 4, blockedBy: 3 }])
 */
export async function skipBlocked(client: PgQueryable, connection: Connection, runId: string, skipped: readonly { readonly id: number; readonly blockedBy: number }[]): Promise<void> {
  if (skipped.length === 0) return;
  await client.query(
    `update ${table(connection, "steps")} as t set state = 'skipped', blocked_by = s.blocked_by, ended_at = clock_timestamp() + s.n * interval '1 microsecond'
     from unnest($2::bigint[], $3::bigint[], $4::integer[]) as s(step_id, blocked_by, n)
     where t.run_id = $1 and t.step_id = s.step_id`,
    [runId, skipped.map((step) => step.id), skipped.map((step) => step.blockedBy), skipped.map((_, i) => i)],
  );
}

/** Skip the steps of a stopped run that never started. */
export async function skipUnstarted(client: PgQueryable, connection: Connection, runId: string, stepIds: readonly number[]): Promise<void> {
  if (stepIds.length === 0) return;
  await client.query(`update ${table(connection, "steps")} set state = 'skipped', ended_at = clock_timestamp() where run_id = $1 and step_id = any($2::bigint[])`, [runId, stepIds]);
}
