/**
 * Changes to a run's steps in the database, each in one transaction with the run's row locked: a step
 * done (one prepared call of the PL/pgSQL function `settle_done`, which `migrate` makes from here), a
 * step failed, a run stopped, a run settled. What to change is decided by the rules of
 * `../run/schedule.ts`, the same ones `runPlan` follows (in SQL, through the states they accept).
 */
import type { StepFailure } from "../run/attempt.js";
import type { StoredStepError } from "./stored-error.js";
import { dependentsToSkip, isReady, isSettled, onStop, planGraph, runStatus, stopDetail, type PlanGraph, type RunStatus, type StepState, type StopReason } from "../run/schedule.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { integer, literal, table, type Connection } from "./db.js";
import type { PgPool, PgQueryable, PgQueryResult } from "./peers.js";
import { addStepJob, finishedChannel, notifyProgress, notifyRunFinished, notifyRunStopped, progressChannel } from "./queue.js";

/** A step's error as stored: its code and detail (the `StepError` is rebuilt from them), and where. */

interface RunSteps {
  readonly graph: PlanGraph;
  readonly states: Map<number, StepState>;
}

async function loadSteps(client: PgQueryable, connection: Connection, runId: string): Promise<RunSteps> {
  const found = await client.query(`select step_id, state, dependencies from ${table(connection, "steps")} where run_id = $1 order by ordinal`, [runId]);
  const states = new Map<number, StepState>();
  const steps = found.rows.map((row) => {
    const id = Number(row.step_id);
    states.set(id, row.state as StepState);
    return { id, dependencies: row.dependencies as number[] };
  });
  return { graph: planGraph(steps), states };
}

/** Every state a step can be in (the compiler checks that none is missing). */
const STATES = ["waiting", "ready", "running", "done", "failed", "skipped"] as const satisfies readonly StepState[];
const EVERY_STATE: Exclude<StepState, (typeof STATES)[number]> extends never ? true : never = true;
void EVERY_STATE;

/** The states for which a rule of ../run/schedule.ts holds, for SQL (the rule stays there; SQL only applies it). */
function statesWhere(rule: (state: StepState) => boolean): readonly StepState[] {
  return STATES.filter(rule);
}

/** A step may become ready from these states (`isReady`'s own state). */
const READY_FROM = statesWhere((state) => isReady(state, [], () => undefined));
/** A dependency in these states lets its dependent start (`isReady`'s dependency rule; `settle_done`'s counters take it to be `done` alone, a test pins it). */
export const LETS_START = statesWhere((state) => isReady("waiting", [0], () => state));
/** A step in these states is finished (`isSettled`). */
export const SETTLED = statesWhere(isSettled);

/** What a worker knows of a run without asking the database again (a submitted run never changes). */
export interface KnownRun {
  readonly graph: PlanGraph;
  readonly diagnostics: readonly Diagnostic[];
}

/** The SQL function that settles a step done (made by `migrate`). */
function settleDoneName(connection: Connection): string {
  return `"${connection.schema}".settle_done`;
}

/** The argument types of `settle_done` before steps counted their dependencies (`migrate` drops it). */
export const OLD_SETTLE_DONE_ARGS = "text, bigint, integer, json, bigint[], text[], text[], text[], text, text";

/**
 * The SQL function behind `settleDone`, for `migrate` (create or replace: idempotent). In PL/pgSQL so
 * that its plans are kept per connection, and each statement sees what committed before the run's lock
 * (READ COMMITTED takes a snapshot per statement). Its cost is the step's dependents, whatever the size
 * of the run: each step counts its dependencies not yet done (`remaining`) and each run its steps not
 * yet settled (`unsettled`). A dependency lets its dependent start only once done (`isReady`: checked
 * below), and a step is done once; the states a dependent may become ready from are the caller's.
 */
export function settleDoneFunction(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `create or replace function ${settleDoneName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[], p_ready_from text[], p_clean text, p_with_failures text)
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
 */
async function settleDone(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, result: string | null, known: KnownRun): Promise<boolean> {
  const found = await pool.query({
    name: `plan_refs.settle.${connection.schema}`,
    text: `select ${settleDoneName(connection)}($1, $2, $3, $4, $5, $6, $7, $8) as stored`,
    values: [
      runId,
      stepId,
      attempt,
      result,
      known.graph.dependentsOf.get(stepId) ?? [],
      READY_FROM,
      // finalStatus counts the failed steps: none, or some (another branch failed without failFast).
      runStatus(undefined, 0, known.diagnostics),
      runStatus(undefined, 1, known.diagnostics),
    ],
  });
  return found.rows[0]?.stored === true;
}

/** What a step's attempt came to. */
export type StepOutcome =
  | { readonly ok: true; readonly result: string | null }
  /** `failure`: the attempt's own, with what the tool threw (never stored; a retry policy reads it). */
  | { readonly ok: false; readonly error: StoredStepError; readonly result?: string | null; readonly failure?: StepFailure };

/** What became of an outcome: stored; not stored as another attempt holds the step; not stored as the step or its run was settled otherwise (stopped). */
export type Settled = "stored" | "lost" | "moot";

/**
 * Store a step's outcome (once: only the attempt that holds the step writes), then enqueue the
 * dependents it makes ready, or skip those a failure blocks (and stop the run with `failFast`).
 */
export async function settleStep(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, outcome: StepOutcome, failFast: boolean, known: KnownRun): Promise<Settled> {
  const stored = outcome.ok ? await settleDone(pool, connection, runId, stepId, attempt, outcome.result, known) : await settleFailed(pool, connection, runId, stepId, attempt, outcome, failFast);
  if (stored) return "stored";
  const found = await pool.query(`select attempt from ${table(connection, "steps")} where run_id = $1 and step_id = $2`, [runId, stepId]);
  const now = found.rows[0]?.attempt;
  return now !== undefined && Number(now) !== attempt ? "lost" : "moot";
}

/** A step failed: its error (and a result that failed validation) stored, its dependents skipped, the run stopped with `failFast`, or ended. */
async function settleFailed(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, outcome: Extract<StepOutcome, { ok: false }>, failFast: boolean): Promise<boolean> {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const result = outcome.result ?? null;
  const hasResult = outcome.result !== undefined;
  const run = literal(runId);
  const client = await pool.connect();
  let open = false;
  try {
    // One round trip (a simple query): begin, lock the run (its steps change one transaction at a time;
    // the next statement's snapshot, taken after the lock, sees every change committed before), store
    // the outcome if this attempt still holds the step, announce progress, and read every step's state
    // as it was before.
    open = true;
    const replies = (await client.query(
      `begin;
       select 1 from ${runs} where id = ${run} for update;
       with run as (select diagnostics, watched from ${runs} where id = ${run} and status = 'running'),
            stored as (
              update ${steps} set state = 'failed', has_result = ${hasResult ? "true" : "false"},
                result = ${hasResult && result !== null ? `${literal(result)}::json` : "null"}, error = ${literal(JSON.stringify(outcome.error))}::json, ended_at = clock_timestamp()
              where run_id = ${run} and step_id = ${integer(stepId)} and attempt = ${integer(attempt)} and state = 'running' and exists (select 1 from run)
              returning 1),
            told as (select pg_notify(${literal(progressChannel(connection))}, ${run}) from stored, run where run.watched)
       select (select count(*) from stored) + (select count(*) from told) as stored, s.step_id, s.state, s.dependencies
       from ${steps} s where s.run_id = ${run} order by s.ordinal`,
    )) as unknown as PgQueryResult[];
    const found = replies[replies.length - 1]!;
    if (Number(found.rows[0]?.stored ?? 0) === 0) {
      await client.query("commit");
      open = false;
      return false;
    }
    const states = new Map<number, StepState>();
    const graph = planGraph(
      found.rows.map((row) => {
        const id = Number(row.step_id);
        states.set(id, row.state as StepState);
        return { id, dependencies: row.dependencies as number[] };
      }),
    );
    const skipped = dependentsToSkip(graph, stepId, states);
    await skip(client, connection, runId, skipped);
    for (const { id } of skipped) states.set(id, "skipped");
    states.set(stepId, "failed");
    if (failFast) await stopSteps(client, connection, runId, "failed", states);
    else {
      await recount(client, connection, runId, states);
      await settleIfDone(client, connection, runId, states, undefined);
    }
    await client.query("commit");
    open = false;
    return true;
  } catch (error) {
    if (open) await client.query("rollback").catch(() => undefined);
    client.release(true);
    throw error;
  } finally {
    if (!open) client.release();
  }
}

/** The run's final status once every step is settled, else `undefined`. */
function finalStatus(states: ReadonlyMap<number, StepState>, stopped: StopReason | undefined, diagnostics: readonly Diagnostic[]): RunStatus | undefined {
  let failures = 0;
  for (const state of states.values()) {
    if (!isSettled(state)) return undefined;
    if (state === "failed") failures++;
  }
  return runStatus(stopped, failures, diagnostics);
}

async function skip(client: PgQueryable, connection: Connection, runId: string, skipped: readonly { id: number; blockedBy: number }[]): Promise<void> {
  if (skipped.length === 0) return;
  await client.query(
    `update ${table(connection, "steps")} as t set state = 'skipped', blocked_by = s.blocked_by, ended_at = clock_timestamp() + s.n * interval '1 microsecond'
     from unnest($2::bigint[], $3::bigint[], $4::integer[]) as s(step_id, blocked_by, n)
     where t.run_id = $1 and t.step_id = s.step_id`,
    [runId, skipped.map((step) => step.id), skipped.map((step) => step.blockedBy), skipped.map((_, i) => i)],
  );
}

/**
 * Stop a run (its row locked): running steps fail with code `aborted`, steps not started are skipped,
 * the run gets its final status, and workers are told (they abort the running steps' signals).
 */
export async function stopSteps(client: PgQueryable, connection: Connection, runId: string, reason: StopReason, states?: Map<number, StepState>): Promise<void> {
  const current = states ?? (await loadSteps(client, connection, runId)).states;
  const aborted: number[] = [];
  const skipped: number[] = [];
  for (const [id, state] of current) {
    const action = onStop(state);
    if (action === "abort") aborted.push(id);
    else if (action === "skip") skipped.push(id);
  }
  const steps = table(connection, "steps");
  if (aborted.length > 0) {
    await client.query(`update ${steps} set state = 'failed', error = $3, ended_at = clock_timestamp() where run_id = $1 and step_id = any($2::bigint[])`, [
      runId,
      aborted,
      JSON.stringify({ code: "aborted", detail: stopDetail(reason) } satisfies StoredStepError),
    ]);
  }
  if (skipped.length > 0) {
    await client.query(`update ${steps} set state = 'skipped', ended_at = clock_timestamp() where run_id = $1 and step_id = any($2::bigint[])`, [runId, skipped]);
  }
  for (const id of aborted) current.set(id, "failed");
  for (const id of skipped) current.set(id, "skipped");
  await recount(client, connection, runId, current);
  await notifyRunStopped(client, connection, runId);
  await notifyProgress(client, connection, runId);
  await settleIfDone(client, connection, runId, current, reason);
}

/** The run's count of steps not settled, after a change that settled several at once. */
async function recount(client: PgQueryable, connection: Connection, runId: string, states: ReadonlyMap<number, StepState>): Promise<void> {
  let unsettled = 0;
  for (const state of states.values()) if (!isSettled(state)) unsettled++;
  await client.query(`update ${table(connection, "runs")} set unsettled = $2 where id = $1`, [runId, unsettled]);
}

/** When every step is settled: the run's final status, and the announcement. */
async function settleIfDone(client: PgQueryable, connection: Connection, runId: string, states: ReadonlyMap<number, StepState>, stopped: StopReason | undefined): Promise<void> {
  if (![...states.values()].every(isSettled)) return;
  const runs = table(connection, "runs");
  const diagnostics = (await client.query(`select diagnostics from ${runs} where id = $1`, [runId])).rows[0]?.diagnostics as Diagnostic[] | undefined;
  const status = finalStatus(states, stopped, diagnostics ?? [])!;
  await client.query(`update ${runs} set status = $2, finished_at = clock_timestamp() where id = $1`, [runId, status]);
  await notifyRunFinished(client, connection, runId);
}
