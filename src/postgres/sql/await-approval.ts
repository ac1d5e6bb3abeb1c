/**
 * A step whose tool needs approval, in one round trip: the PL/pgSQL function `await_approval` (made
 * by `migrate`) locks the run, and if this attempt still holds the step, stores its resolved arguments
 * and marks it `awaiting-approval` (its tool not called: the claim's try is given back), then
 * suspends the run when no step is left to run.
 */
import { AWAITING_STATES } from "../../step/schedule.js";
import { literal, table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { finishedChannel, progressChannel } from "../queue.js";
import { CLAIMABLE_STATES } from "../stored-states.js";

/** The state of a step that waits for a person's approval, as stored. */
export const AWAITING_APPROVAL = AWAITING_STATES[0];

function awaitApprovalName(connection: Connection): string {
  return `"${connection.schema}".await_approval`;
}

/**
 * PL/pgSQL, in a function with the parameters `p_run` (its row locked) and `p_suspended` (the status
 * of a run whose steps wait for approval, or null when none can): when no step of the run is left to
 * run (ready, running, retrying), only steps waiting for approval and what waits on them are left,
 * so the run becomes `p_suspended` and is announced as finished (`waitForRun` returns).
 */
export function suspendIfIdle(connection: Connection): string {
  return `if p_suspended is not null and not exists (select 1 from ${table(connection, "steps")} a where a.run_id = p_run and a.state in (${CLAIMABLE_STATES.map(literal).join(", ")})) then
        update ${table(connection, "runs")} set status = p_suspended, finished_at = clock_timestamp() where id = p_run;
        perform pg_notify(${literal(finishedChannel(connection))}, p_run);
      end if;`;
}

/** The SQL function behind `awaitApproval`, for `migrate` (create or replace: idempotent). */
export function awaitApprovalFunction(connection: Connection): string {
  return `create or replace function ${awaitApprovalName(connection)}(p_run text, p_step bigint, p_attempt integer, p_args json, p_suspended text)
    returns boolean language plpgsql as $await$
    declare
      v_watched boolean;
    begin
      select r.watched into v_watched from ${table(connection, "runs")} r where r.id = p_run and r.status = 'running' for update;
      if not found then return false; end if;
      update ${table(connection, "steps")} s set state = ${literal(AWAITING_APPROVAL)}, approval_args = p_args, attempt = s.attempt - 1, worker = null
      where s.run_id = p_run and s.step_id = p_step and s.attempt = p_attempt and s.state = 'running';
      if not found then return false; end if;
      ${suspendIfIdle(connection)}
      if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      return true;
    end
    $await$`;
}

/**
 * The step waits for approval with `args` (its resolved arguments, JSON); `false` when this attempt no
 * longer holds the step (or its run stopped). `suspended`: the run's status once nothing else can run.
 *
 * @example
 * await awaitApproval(pool, connection, runId, 3, 1, '{"to":"ops@example.com"}', "suspended")
 */
export async function awaitApproval(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, args: string, suspended: string): Promise<boolean> {
  const found = await pool.query({
    name: `plan_refs.await_approval.${connection.schema}`,
    text: `select ${awaitApprovalName(connection)}($1, $2, $3, $4, $5) as stored`,
    values: [runId, stepId, attempt, args, suspended],
  });
  return found.rows[0]?.stored === true;
}
