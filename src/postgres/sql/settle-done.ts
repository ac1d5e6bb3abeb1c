/**
 * A step done, in one round trip: the PL/pgSQL function `settle_done` (made by `migrate`) stores the
 * result if this attempt still holds the step, makes ready and enqueues each dependent that may now
 * start (or claims one of them for the settling worker), and ends the run when every step is settled.
 */
import { READY_FROM_STATES, runStatus, type RunStatus } from "../../step/schedule.js";
import { literal, table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import { addStepJob, finishedChannel, progressChannel } from "../queue.js";
import type { KnownRun } from "../known-runs.js";
import { suspendIfIdle } from "./await-approval.js";

/** The SQL function that settles a step done (made by `migrate`). */
function settleDoneName(connection: Connection): string {
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
 * `settle_done`'s versions: the current one (`settleDoneFunction`, with `p_worker` and `p_take`), the
 * previous release's (before a settle took the next step: `PREVIOUS_SETTLE_DONE_ARGS`, kept as
 * `previousSettleDoneFunction`), and the older ones dropped: before steps counted their dependencies,
 * before runs were suspended.
 */
export const DROPPED_SETTLE_DONE_ARGS = [
  "text, bigint, integer, json, bigint[], text[], text[], text[], text, text",
  "text, bigint, integer, json, bigint[], text[], text, text",
];

/** The argument types of the previous release's `settle_done` (deprecated; a thin wrapper over the current one). */
export const PREVIOUS_SETTLE_DONE_ARGS = "text, bigint, integer, json, bigint[], text[], text, text, text";

/**
 * The previous release's `settle_done` (nine arguments, returning whether the result was stored), for
 * its workers still running while a fleet is upgraded: the current function with no worker to take a
 * dependent (`p_take` null: every dependent made ready is queued, as that release did).
 */
export function previousSettleDoneFunction(connection: Connection): string {
  return `create or replace function ${settleDoneName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[], p_ready_from text[], p_clean text, p_with_failures text, p_suspended text)
    returns boolean language sql as $previous$
      select stored from ${settleDoneName(connection)}(p_run, p_step, p_attempt, p_result, p_candidates, p_ready_from, p_clean, p_with_failures, p_suspended, null::text, null::text[])
    $previous$`;
}

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
export function settleDoneFunction(connection: Connection): string {
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
      select watched into v_watched from ${runs} where id = p_run and status = 'running' for update;
      if not found then return; end if;
      -- Stored once: only the attempt that holds the step writes.
      update ${steps} set state = 'done', has_result = true, result = p_result, error = null, ended_at = clock_timestamp()
      where run_id = p_run and step_id = p_step and attempt = p_attempt and state = 'running';
      if found then
        with counted as (
               update ${steps} t set remaining = t.remaining - 1,
                 state = case when t.remaining = 1 and t.state = any(p_ready_from) then 'ready' else t.state end
               where t.run_id = p_run and t.step_id = any(p_candidates)
               returning t.step_id, t.tool, t.state, t.remaining),
             taken as (select c.step_id from counted c where c.remaining = 0 and c.state = 'ready' and c.tool = any(p_take) order by c.step_id limit 1),
             jobs as (select ${addStepJob(connection, "p_run", "c.step_id", "c.tool")} from counted c
                      where c.remaining = 0 and c.state = 'ready' and c.step_id is distinct from (select step_id from taken))
        select (select step_id from taken), (select count(*) from jobs) into v_taken, v_ready;
        if v_taken is not null then
          update ${steps} set state = 'running', attempt = attempt + 1, started_at = clock_timestamp(), worker = p_worker, retry_at = null
          where run_id = p_run and step_id = v_taken;
        end if;
        update ${runs} set unsettled = unsettled - 1 where id = p_run returning unsettled into v_unsettled;
        if v_unsettled = 0 then
          update ${runs} set status = case when exists (select 1 from ${steps} f where f.run_id = p_run and f.state = 'failed') then p_with_failures else p_clean end,
            finished_at = clock_timestamp()
          where id = p_run;
          perform pg_notify(${literal(finishedChannel(connection))}, p_run);
        elsif v_ready = 0 and v_taken is null then
          ${suspendIfIdle(connection)}
        end if;
        if v_watched then perform pg_notify(${literal(progressChannel(connection))}, p_run); end if;
      elsif p_take is not null and exists (select 1 from ${steps} where run_id = p_run and step_id = p_step and attempt = p_attempt and state = 'done') then
        select min(t.step_id) into v_taken from ${steps} t
        where t.run_id = p_run and t.step_id = any(p_candidates) and t.state = 'running' and t.worker = p_worker
          and not exists (select 1 from graphile_worker.jobs j where j.key = p_run || ':' || t.step_id::text);
      else
        return;
      end if;
      stored := true;
      if v_taken is not null then
        select json_build_object('tool', n.tool, 'args', n.args, 'attempt', n.attempt, 'approved', n.approved,
                 'results', (select json_agg(json_build_array(d.step_id, d.result, d.result is null)) from ${steps} d
                             where d.run_id = p_run and d.step_id = any(array(select json_array_elements_text(n.dependencies)::bigint)) and d.state = 'done'),
                 'stepId', n.step_id)
        into next from ${steps} n where n.run_id = p_run and n.step_id = v_taken;
      end if;
    end
    $settle$`;
}

/** Who may take a dependent the settle makes ready (`settleDone`'s `p_worker`, `p_take`). */
export interface Take {
  readonly workerId: string;
  /** The tools the worker may run at once: it has them, and the run neither serialises them nor waits for approval of them. */
  readonly tools: readonly string[];
}

/** A dependent taken by the settle: the claim's columns (see sql/claim.ts), with its id. */
export type TakenRow = Readonly<Record<string, unknown>> & { readonly stepId: number };

/**
 * A step done, in one round trip (one prepared call of the function above, one transaction): store
 * its result if this attempt still holds the step, make ready and enqueue each dependent the rules of
 * ../run/schedule.ts now let start (`isReady`), and end the run when every step is settled
 * (`isSettled`, `runStatus`). `stored: false` when the result was not stored; with `take`, `next` is
 * the dependent the worker claimed instead of queueing it.
 *
 * @example
 * const { stored, next } = await settleDone(pool, connection, runId, 3, 1, '{"city":"Lisbon"}', known, { workerId, tools: ["geocode"] })
 */
export async function settleDone(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, result: string | null, known: KnownRun, take?: Take): Promise<{ stored: boolean; next: TakenRow | undefined }> {
  const found = await pool.query({
    name: `plan_refs.settle.${connection.schema}`,
    text: `select stored, next from ${settleDoneName(connection)}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
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
      take?.workerId ?? null,
      take === undefined || take.tools.length === 0 ? null : take.tools,
    ],
  });
  const row = found.rows[0];
  const next = row?.next as TakenRow | null | undefined;
  return { stored: row?.stored === true, next: next ?? undefined };
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
