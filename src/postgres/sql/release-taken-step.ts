/**
 * A step a settle took for this worker (it has no job: see sql/settle-done.ts), given back by a worker
 * that stops: if this attempt still holds it, it is ready again, with a job available at once. The job
 * this worker holds is another step's, done, and left to end.
 */
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob } from "../queue.js";
import { STATE_SQL } from "../stored-states.js";

/**
 * SQL, the common table expression `step`: the step ready again if this attempt still holds it
 * (`runIdSql`, `stepIdSql`, `attemptSql`: the statement's parameters), returning its tool.
 */
export function readyAgain(connection: Connection, runIdSql: string, stepIdSql: string, attemptSql: string): string {
  return `step as (
       update ${table(connection, "steps")} set state = ${STATE_SQL.ready}, worker = null
       where run_id = ${runIdSql} and step_id = ${stepIdSql} and attempt = ${attemptSql} and state = ${STATE_SQL.running} returning tool)`;
}

/** $1: the run id, $2: the step id, $3: the attempt. */
export function releaseTakenStepSql(connection: Connection): string {
  return `with ${readyAgain(connection, "$1", "$2", "$3")}
     select ${addStepJob(connection, "$1::text", "$2::bigint", "step.tool")} from step`;
}

/**
 * Release a step a settle took for this worker: ready again, with a job.
 *
 * @example
 * await releaseTakenStep(pool, connection, { runId, stepId, attempt })
 */
export async function releaseTakenStep(
  pool: PgPool,
  connection: Connection,
  step: { readonly runId: string; readonly stepId: number; readonly attempt: number },
): Promise<void> {
  await pool.query(releaseTakenStepSql(connection), [step.runId, step.stepId, step.attempt]);
}
