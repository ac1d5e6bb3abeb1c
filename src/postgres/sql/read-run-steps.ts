/** Every step of a run with its state and dependencies, in plan order (for the rules of ../step/schedule.ts). */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { ruleState, type StoredState } from "../stored-states.js";
import type { RunStepRow } from "./settle-failed.js";

/** $1: the run id. */
export function readRunStepsSql(connection: Connection): string {
  return `select step_id, state, dependencies from ${table(connection, "steps")} where run_id = $1 order by ordinal`;
}

/**
 * @example
 * const steps = await readRunSteps(client, connection, runId)
 */
export async function readRunSteps(client: PgQueryable, connection: Connection, runId: string): Promise<RunStepRow[]> {
  const found = await client.query(readRunStepsSql(connection), [runId]);
  return found.rows.map((row) => ({
    id: Number(row.step_id),
    state: ruleState(row.state as StoredState),
    dependencies: row.dependencies as number[],
  }));
}
