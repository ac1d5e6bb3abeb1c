/**
 * The PL/pgSQL function `retry_step` (made by `migrate`; called by retry-step.ts): it locks the run,
 * and if this attempt still holds the step, keeps the try's error, marks it `retrying` with its next
 * time, and queues its job again for that time with graphile-worker's `run_at` (the job now running
 * is let go: `add_job` in `replace` mode gives the key to the new one).
 */
import { literal, table, type Connection } from "../db.js";
import { addStepJob, progressChannel } from "../queue.js";
import { RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";

/** The function's name, in the run's schema. */
export function retryStepName(connection: Connection): string {
  return `"${connection.schema}".retry_step`;
}

/** The SQL function behind `retryStep`, for `migrate` (create or replace: idempotent). */
export function retryStepFunctionSql(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${retryStepName(connection)}(p_run text, p_step bigint, p_attempt integer, p_error json, p_delay_ms double precision)
    returns boolean language plpgsql as $retry$
    declare
      v_watched boolean;
      v_tool text;
      v_at timestamptz;
    begin
      select r.watched into v_watched from ${runs} r where r.id = p_run and r.status = ${RUNNING_RUN_SQL} for update;
      if not found then return false; end if;
      update ${steps} s set state = ${STATE_SQL.retrying}, error = p_error, worker = null, ended_at = clock_timestamp(),
        retry_at = clock_timestamp() + p_delay_ms * interval '1 millisecond'
      where s.run_id = p_run and s.step_id = p_step and s.attempt = p_attempt and s.state = ${STATE_SQL.running}
      returning s.tool, s.retry_at into v_tool, v_at;
      if not found then return false; end if;
      perform ${addStepJob(connection, "p_run", "p_step", "v_tool", { runAtSql: "v_at" })};
      if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      return true;
    end
    $retry$`;
}
