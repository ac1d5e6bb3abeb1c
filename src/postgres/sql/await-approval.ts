/**
 * A step whose tool needs approval, in one round trip: one prepared call of the PL/pgSQL function
 * `await_approval` (await-approval-function.ts).
 */
import type { Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import type { StepAttempt } from "../stored-states.js";
import { awaitApprovalName } from "./await-approval-function.js";

/** $1: the run id, $2: the step id, $3: the attempt, $4: the resolved arguments (JSON), $5: the run's status once nothing else can run. */
export function awaitApprovalSql(connection: Connection): string {
  return `select ${awaitApprovalName(connection)}($1, $2, $3, $4, $5) as stored`;
}

/** A step to wait for approval: which attempt, its resolved arguments (JSON), and its run's status once nothing else can run. */
export interface WaitingStep extends StepAttempt {
  readonly args: string;
  readonly suspended: string;
}

/**
 * The step waits for approval with `args` (its resolved arguments, JSON); `false` when this attempt no
 * longer holds the step (or its run stopped). `suspended`: the run's status once nothing else can run.
 *
 * @example
 * await awaitApproval(pool, connection, { runId, stepId: 3, attempt: 1, args: '{"to":"ops@example.com"}', suspended: "suspended" })
 */
export async function awaitApproval(
  pool: PgPool,
  connection: Connection,
  { runId, stepId, attempt, args, suspended }: WaitingStep,
): Promise<boolean> {
  const found = await pool.query({
    name: `plan_refs.await_approval.${connection.schema}`,
    text: awaitApprovalSql(connection),
    values: [runId, stepId, attempt, args, suspended],
  });
  return found.rows[0]?.stored === true;
}
