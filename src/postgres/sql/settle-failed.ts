/**
 * A step failed, first part, in the caller's transaction: the PL/pgSQL function `settle_failed` (made
 * by `migrate`) locks the run, stores the error (and a result that failed its output check) if this
 * attempt still holds the step, announces progress to a watcher, and gives every step's state as it
 * was before, from which the caller decides, by the rules of ../run/schedule.ts, whom the failure skips.
 */
import { literal, table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { progressChannel } from "../queue.js";
import type { StoredStepError } from "../stored-error.js";
import type { StepState } from "../../step/schedule.js";
import { ruleState, type StoredState } from "../stored-states.js";

function settleFailedName(connection: Connection): string {
  return `"${connection.schema}".settle_failed`;
}

/**
 * The SQL function behind `storeFailure`, for `migrate` (create or replace: idempotent). No row: not
 * stored (the run is not running, or another attempt holds the step). Each statement sees what
 * committed before the run's lock (READ COMMITTED takes a snapshot per statement).
 */
export function settleFailedFunction(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${settleFailedName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_has_result boolean, p_result json, p_error json)
    returns table (o_step_id bigint, o_state text, o_dependencies json) language plpgsql as $settle$
    declare
      v_watched boolean;
    begin
      select r.watched into v_watched from ${runs} r where r.id = p_run and r.status = 'running' for update;
      if not found then return; end if;
      update ${steps} s set state = 'failed', has_result = p_has_result, result = p_result, error = p_error, ended_at = clock_timestamp()
      where s.run_id = p_run and s.step_id = p_step and s.attempt = p_attempt and s.state = 'running';
      if not found then return; end if;
      if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      return query select s.step_id, s.state, s.dependencies from ${steps} s where s.run_id = p_run order by s.ordinal;
    end
    $settle$`;
}

/** A step of the failed step's run, as it was before the failure was stored (its state as the rules see it). */
export interface RunStepRow {
  readonly id: number;
  readonly state: StepState;
  readonly dependencies: number[];
}

/**
 * Store the failure (one prepared call); the run's steps as they were, or `undefined` when it was not stored.
 *
 * @example
 * const steps = await storeFailure(client, connection, runId, 3, 1, { code: "timeout", detail: "timed out after 50 ms" }, undefined)
 */
export async function storeFailure(client: PgQueryable, connection: Connection, runId: string, stepId: number, attempt: number, error: StoredStepError, result: string | null | undefined): Promise<RunStepRow[] | undefined> {
  const found = await client.query({
    name: `plan_refs.settle_failed.${connection.schema}`,
    text: `select o_step_id, o_state, o_dependencies from ${settleFailedName(connection)}($1, $2, $3, $4, $5, $6)`,
    values: [runId, stepId, attempt, result !== undefined, result ?? null, JSON.stringify(error)],
  });
  if (found.rows.length === 0) return undefined;
  return found.rows.map((row) => ({ id: Number(row.o_step_id), state: ruleState(row.o_state as StoredState), dependencies: row.o_dependencies as number[] }));
}
