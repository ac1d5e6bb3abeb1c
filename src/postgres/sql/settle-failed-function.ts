/**
 * The PL/pgSQL function `settle_failed` (made by `migrate`; called by settle-failed.ts, in the caller's
 * transaction): it locks the run, stores the error (and a result that failed its output check) if this
 * attempt still holds the step, announces progress to a watcher, and gives every step's state as it
 * was before, from which the caller decides, by the rules of ../step/schedule.ts, whom the failure skips.
 */
import { literal, table, type Connection } from "../db.js";
import { progressChannel } from "../queue.js";
import { RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";

/** The function's name, in the run's schema. */
export function settleFailedName(connection: Connection): string {
  return `"${connection.schema}".settle_failed`;
}

/**
 * The SQL function behind `storeFailure`, for `migrate` (create or replace: idempotent). No row: not
 * stored (the run is not running, or another attempt holds the step). Each statement sees what
 * committed before the run's lock (READ COMMITTED takes a snapshot per statement).
 */
export function settleFailedFunctionSql(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${settleFailedName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_has_result boolean, p_result json, p_error json)
    returns table (o_step_id bigint, o_state text, o_dependencies json) language plpgsql as $settle$
    declare
      v_watched boolean;
    begin
      select r.watched into v_watched from ${runs} r where r.id = p_run and r.status = ${RUNNING_RUN_SQL} for update;
      if not found then return; end if;
      update ${steps} s set state = ${STATE_SQL.failed}, has_result = p_has_result, result = p_result, error = p_error, ended_at = clock_timestamp()
      where s.run_id = p_run and s.step_id = p_step and s.attempt = p_attempt and s.state = ${STATE_SQL.running};
      if not found then return; end if;
      if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      return query select s.step_id, s.state, s.dependencies from ${steps} s where s.run_id = p_run order by s.ordinal;
    end
    $settle$`;
}
