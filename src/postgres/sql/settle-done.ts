/**
 * A step done, in one round trip: the PL/pgSQL function `settle_done` (made by `migrate`) stores the
 * result if this attempt still holds the step, makes ready and enqueues each dependent that may now
 * start, and ends the run when every step is settled.
 */
import { READY_FROM_STATES, runStatus, type RunStatus } from "../../run/schedule.js";
import { literal, table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob, finishedChannel, progressChannel } from "../queue.js";
import type { KnownRun } from "../known-runs.js";
import { suspendIfIdle } from "./await-approval.js";

/** The SQL function that settles a step done (made by `migrate`). */
function settleDoneName(connection: Connection): string {
  return `"${connection.schema}".settle_done`;
}

/** The argument types of earlier versions of `settle_done` (`migrate` drops them): before steps counted their dependencies, before runs were suspended. */
export const OLD_SETTLE_DONE_ARGS = ["text, bigint, integer, json, bigint[], text[], text[], text[], text, text", "text, bigint, integer, json, bigint[], text[], text, text"];

/**
 * The SQL function behind `settleDone`, for `migrate` (create or replace: idempotent). In PL/pgSQL so
 * that its plans are kept per connection, and each statement sees what committed before the run's lock
 * (READ COMMITTED takes a snapshot per statement). Its cost is the step's dependents, whatever the size
 * of the run: each step counts its dependencies not yet done (`remaining`) and each run its steps not
 * yet settled (`unsettled`). A dependency lets its dependent start only once done (`isReady`: checked
 * below), and a step is done once; the states a dependent may become ready from are the caller's.
 * A run whose steps may wait for approval (`p_suspended` not null) is suspended once none is left to run.
 */
export function settleDoneFunction(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${settleDoneName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[], p_ready_from text[], p_clean text, p_with_failures text, p_suspended text)
    returns boolean language plpgsql as $settle$
    declare
      v_watched boolean;
      v_ready bigint;
      v_unsettled integer;
    begin
      -- The run's lock: its steps change one transaction at a time.
      select watched into v_watched from ${runs} where id = p_run and status = 'running' for update;
      if not found then return false; end if;
      -- Stored once: only the attempt that holds the step writes.
      update ${steps} set state = 'done', has_result = true, result = p_result, error = null, ended_at = clock_timestamp()
      where run_id = p_run and step_id = p_step and attempt = p_attempt and state = 'running';
      if not found then return false; end if;
      with counted as (
             update ${steps} t set remaining = t.remaining - 1,
               state = case when t.remaining = 1 and t.state = any(p_ready_from) then 'ready' else t.state end
             where t.run_id = p_run and t.step_id = any(p_candidates)
             returning t.step_id, t.tool, t.state, t.remaining),
           jobs as (select ${addStepJob(connection, "p_run", "step_id", "tool")} from counted where remaining = 0 and state = 'ready')
      select count(*) into v_ready from jobs;
      update ${runs} set unsettled = unsettled - 1 where id = p_run returning unsettled into v_unsettled;
      if v_unsettled = 0 then
        update ${runs} set status = case when exists (select 1 from ${steps} f where f.run_id = p_run and f.state = 'failed') then p_with_failures else p_clean end,
          finished_at = clock_timestamp()
        where id = p_run;
        perform pg_notify(${literal(finishedChannel(connection))}, p_run);
      elsif v_ready = 0 then
        ${suspendIfIdle(connection)}
      end if;
      if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      return true;
    end
    $settle$`;
}

/**
 * A step done, in one round trip (one prepared call of the function above, one transaction): store
 * its result if this attempt still holds the step, make ready and enqueue each dependent the rules of
 * ../run/schedule.ts now let start (`isReady`), and end the run when every step is settled
 * (`isSettled`, `runStatus`). `false` when the result was not stored.
 *
 * @example
 * const stored = await settleDone(pool, connection, runId, 3, 1, '{"city":"Lisbon"}', known)
 */
export async function settleDone(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, result: string | null, known: KnownRun): Promise<boolean> {
  const found = await pool.query({
    name: `plan_refs.settle.${connection.schema}`,
    text: `select ${settleDoneName(connection)}($1, $2, $3, $4, $5, $6, $7, $8, $9) as stored`,
    values: [
      runId,
      stepId,
      attempt,
      result,
      known.graph.dependentsOf.get(stepId) ?? [],
      READY_FROM_STATES,
      // finalStatus counts the failed steps: none, or some (another branch failed without failFast).
      runStatus(undefined, 0, known.diagnostics),
      runStatus(undefined, 1, known.diagnostics),
      suspendedStatus(known),
    ],
  });
  return found.rows[0]?.stored === true;
}


/**
 * The status of a run whose steps wait for approval once nothing else can run, or `null` for a run
 * that has no tool needing approval (its settles never look for what is left to run).
 *
 * @example
 * suspendedStatus(known) // "suspended"
 */
export function suspendedStatus(known: KnownRun): RunStatus | null {
  return (known.approvalTools?.size ?? 0) === 0 ? null : runStatus(undefined, 0, known.diagnostics, 1);
}
