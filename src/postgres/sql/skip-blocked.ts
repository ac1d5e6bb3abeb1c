/** Steps a failure blocks, skipped, each with the step that blocked it, in the order of the skip walk. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { STATE_SQL } from "../stored-states.js";

/** $1: the run id, $2: the skipped steps' ids, $3: the steps that blocked them, $4: their places in the walk. */
export function skipBlockedSql(connection: Connection): string {
  return `update ${table(connection, "steps")} as t set state = ${STATE_SQL.skipped}, blocked_by = s.blocked_by, ended_at = clock_timestamp() + s.n * interval '1 microsecond'
     from unnest($2::bigint[], $3::bigint[], $4::integer[]) as s(step_id, blocked_by, n)
     where t.run_id = $1 and t.step_id = s.step_id`;
}

/**
 * Skip steps blocked by a failure; their end times keep the walk's order (a microsecond apart).
 *
 * @example
 * await skipBlocked(client, connection, runId, [{ id: 4, blockedBy: 3 }])
 */
export async function skipBlocked(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  skipped: readonly { readonly id: number; readonly blockedBy: number }[],
): Promise<void> {
  if (skipped.length === 0) return;
  await client.query(skipBlockedSql(connection), [
    runId,
    skipped.map((step) => step.id),
    skipped.map((step) => step.blockedBy),
    skipped.map((_, i) => i),
  ]);
}
