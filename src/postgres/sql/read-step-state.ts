/** One step's state, for a decision that needs it (a person's approval, whose refusal says why). */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import type { StoredState } from "../stored-states.js";

/** $1: the run id, $2: the step id. */
export function readStepStateSql(connection: Connection): string {
  return `select state from ${table(connection, "steps")} where run_id = $1 and step_id = $2`;
}

/**
 * A step's state, `undefined` when the run has no such step.
 *
 * @example
 * const state = await stepState(client, connection, runId, 3) // "awaiting-approval"
 */
export async function stepState(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepId: number,
): Promise<StoredState | undefined> {
  const found = await client.query(readStepStateSql(connection), [runId, stepId]);
  return found.rows[0]?.state as StoredState | undefined;
}
