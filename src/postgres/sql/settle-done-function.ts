/**
 * The PL/pgSQL function `settle_done` (made by `migrate`; called by settle-done.ts): it stores the
 * result if this attempt still holds the step, makes ready and enqueues each dependent that may now
 * start (or claims one of them for the settling worker), and ends the run when every step is settled.
 */
import { literal, table, type Connection } from "../db.js";
import { addStepJob, finishedChannel, progressChannel, stepJobOrder } from "../queue.js";
import { RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";
import { suspendIfIdle } from "./await-approval-function.js";

/** The SQL function that settles a step done (made by `migrate`). */
export function settleDoneName(connection: Connection): string {
  return `"${connection.schema}".settle_done`;
}

/**
 * The versioned database functions (`migrate` makes them; workers call them by signature). A fleet is
 * upgraded one worker at a time after `migrate`, so `migrate` never drops or changes a signature the
 * previous release's workers call: a new signature is added beside it, and the previous one stays as
 * a thin wrapper over the new until a later release drops it (listed in `DROPPED_SETTLE_DONE_ARGS`).
 * Only `settle_done` has changed signature so far; `settle_failed`, `retry_step` and `await_approval`
 * have their first one, and tables only gain columns (with defaults older workers never need to set).
 *
 * `settle_done`'s versions: the current one (`settleDoneFunctionSql`, with `p_worker` and `p_take`),
 * the previous release's (before a settle took the next step: `PREVIOUS_SETTLE_DONE_ARGS`, kept as
 * `previousSettleDoneFunctionSql`, both in previous-settle-done-function.ts), and the older ones
 * dropped: before steps counted their dependencies, before runs were suspended.
 */
export const DROPPED_SETTLE_DONE_ARGS = [
  "text, bigint, integer, json, bigint[], text[], text[], text[], text, text",
  "text, bigint, integer, json, bigint[], text[], text, text",
];

/**
 * The SQL function behind `settleDone`, for `migrate` (create or replace: idempotent). In PL/pgSQL so
 * that its plans are kept per connection, and each statement sees what committed before the run's lock
 * (READ COMMITTED takes a snapshot per statement). Its cost is the step's dependents, whatever the size
 * of the run: each step counts its dependencies not yet done (`remaining`) and each run its steps not
 * yet settled (`unsettled`). A dependency lets its dependent start only once done (`isReady`: checked
 * below), and a step is done once; the states a dependent may become ready from are the caller's.
 * A run whose steps may wait for approval (`p_suspended` not null) is suspended once none is left to run.
 *
 * With `p_take` (the tools the settling worker may run at once) one dependent made ready whose tool is
 * among them is not queued: it is claimed for `p_worker` in the same transaction and returned as
 * `next` (what a claim reads), so a chain runs on without a trip through the queue. A taken step has no
 * job while it runs; if its worker dies, it is an orphan like any running step of a dead worker. A
 * call again after its answer was lost (the connection broke) finds the step done by this attempt:
 * stored, and `next` is the dependent it took then (running on `p_worker`, with no job).
 */
export function settleDoneFunctionSql(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${settleDoneName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[], p_ready_from text[], p_clean text, p_with_failures text, p_suspended text,
      p_worker text, p_take text[], out stored boolean, out next json)
    language plpgsql as $settle$
    declare
      v_watched boolean;
      v_ready bigint;
      v_taken bigint;
      v_unsettled integer;
    begin
      stored := false;
      -- The run's lock: its steps change one transaction at a time.
      select watched into v_watched from ${runs} where id = p_run and status = ${RUNNING_RUN_SQL} for update;
      if not found then return; end if;
      -- Stored once: only the attempt that holds the step writes.
      update ${steps} set state = ${STATE_SQL.done}, has_result = true, result = p_result, error = null, ended_at = clock_timestamp()
      where run_id = p_run and step_id = p_step and attempt = p_attempt and state = ${STATE_SQL.running};
      if found then
        with counted as (
               update ${steps} t set remaining = t.remaining - 1,
                 state = case when t.remaining = 1 and t.state = any(p_ready_from) then ${STATE_SQL.ready} else t.state end
               where t.run_id = p_run and t.step_id = any(p_candidates)
               returning t.step_id, t.tool, t.state, t.remaining),
             taken as (select c.step_id from counted c where c.remaining = 0 and c.state = ${STATE_SQL.ready} and c.tool = any(p_take) order by c.step_id limit 1),
             jobs as (select ${addStepJob(connection, "p_run", "c.step_id", "c.tool")} from counted c
                      where c.remaining = 0 and c.state = ${STATE_SQL.ready} and c.step_id is distinct from (select step_id from taken)
                      ${stepJobOrder("c.tool", "c.step_id")})
        select (select step_id from taken), (select count(*) from jobs) into v_taken, v_ready;
        if v_taken is not null then
          update ${steps} set state = ${STATE_SQL.running}, attempt = attempt + 1, started_at = clock_timestamp(), worker = p_worker, retry_at = null
          where run_id = p_run and step_id = v_taken;
        end if;
        update ${runs} set unsettled = unsettled - 1 where id = p_run returning unsettled into v_unsettled;
        if v_unsettled = 0 then
          update ${runs} set status = case when exists (select 1 from ${steps} f where f.run_id = p_run and f.state = ${STATE_SQL.failed}) then p_with_failures else p_clean end,
            finished_at = clock_timestamp()
          where id = p_run;
          perform pg_notify(${literal(finishedChannel(connection))}, p_run);
        elsif v_ready = 0 and v_taken is null then
          ${suspendIfIdle(connection)}
        end if;
        if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      elsif p_take is not null and exists (select 1 from ${steps} where run_id = p_run and step_id = p_step and attempt = p_attempt and state = ${STATE_SQL.done}) then
        select min(t.step_id) into v_taken from ${steps} t
        where t.run_id = p_run and t.step_id = any(p_candidates) and t.state = ${STATE_SQL.running} and t.worker = p_worker
          and not exists (select 1 from graphile_worker.jobs j where j.key = p_run || ':' || t.step_id::text);
      else
        return;
      end if;
      stored := true;
      if v_taken is not null then
        select json_build_object('tool', n.tool, 'args', n.args, 'attempt', n.attempt, 'approved', n.approved,
                 'results', (select json_agg(json_build_array(d.step_id, d.result, d.result is null)) from ${steps} d
                             where d.run_id = p_run and d.step_id = any(array(select json_array_elements_text(n.dependencies)::bigint)) and d.state = ${STATE_SQL.done}),
                 'stepId', n.step_id)
        into next from ${steps} n where n.run_id = p_run and n.step_id = v_taken;
      end if;
    end
    $settle$`;
}
