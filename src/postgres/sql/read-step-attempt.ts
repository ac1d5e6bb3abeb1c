/** A step's current attempt: whether an outcome not stored lost to another attempt or came after the step was settled otherwise. */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id, $2: the step id. */
export function readStepAttemptSql(connection: Connection): string {
  return `select attempt from ${table(connection, "steps")} where run_id = $1 and step_id = $2`;
}

/**
 * The step's attempt, `undefined` when the run has no such step.
 *
 * @example
 * const attempt = await readStepAttempt(pool, connection, runId, 3) // 2
 */
export async function readStepAttempt(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepId: number,
): Promise<number | undefined> {
  const found = await client.query(readStepAttemptSql(connection), [runId, stepId]);
  const attempt = found.rows[0]?.attempt;
  return attempt === undefined ? undefined : Number(attempt);
}
