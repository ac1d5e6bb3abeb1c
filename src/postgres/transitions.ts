/**
 * Changes to a run's steps in the database, each inside the caller's transaction with the run's row
 * locked (`lockRun`): a step finished, a run stopped, a run settled. What to change is decided by the
 * rules of `../run/schedule.ts`, the same ones `runPlan` follows.
 */
import { dependentsToSkip, isSettled, onStop, planGraph, runStatus, stopDetail, unblockedBy, type PlanGraph, type RunStatus, type StepState, type StopReason } from "../run/schedule.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { integer, literal, table, type Connection } from "./db.js";
import type { PgPool, PgQueryable, PgQueryResult } from "./peers.js";
import { finishedChannel, notifyProgress, notifyRunFinished, notifyRunStopped, progressChannel, stepTask } from "./queue.js";

/** A step's error as stored: its code and detail (the `StepError` is rebuilt from them), and where. */
export interface StoredStepError {
  readonly code: string;
  readonly detail: string;
  readonly ref?: string;
  readonly arg?: string;
}

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

/** What a step's attempt came to. */
export type StepOutcome = { readonly ok: true; readonly result: string | null } | { readonly ok: false; readonly error: StoredStepError; readonly result?: string | null };

/**
 * Store a step's outcome (once: only the attempt that holds the step writes), then enqueue the
 * dependents it makes ready, or skip those a failure blocks (and stop the run with `failFast`).
 * `false` when the outcome was not stored (the run stopped, or another attempt took the step).
 */
export async function settleStep(pool: PgPool, connection: Connection, runId: string, stepId: number, attempt: number, outcome: StepOutcome, failFast: boolean): Promise<boolean> {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const result = outcome.ok ? outcome.result : (outcome.result ?? null);
  const hasResult = outcome.ok || outcome.result !== undefined;
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
       with run as (select diagnostics from ${runs} where id = ${run} and status = 'running'),
            stored as (
              update ${steps} set state = '${outcome.ok ? "done" : "failed"}', has_result = ${hasResult ? "true" : "false"},
                result = ${hasResult && result !== null ? `${literal(result)}::json` : "null"}, error = ${outcome.ok ? "null" : `${literal(JSON.stringify(outcome.error))}::json`}, ended_at = clock_timestamp()
              where run_id = ${run} and step_id = ${integer(stepId)} and attempt = ${integer(attempt)} and state = 'running' and exists (select 1 from run)
              returning 1),
            told as (select pg_notify(${literal(progressChannel(connection))}, ${run}) from stored)
       select (select count(*) from stored) + (select count(*) from told) as stored, (select diagnostics from run) as diagnostics, s.step_id, s.state, s.dependencies
       from ${steps} s where s.run_id = ${run} order by s.ordinal`,
    )) as unknown as PgQueryResult[];
    const found = replies[replies.length - 1]!;
    if (Number(found.rows[0]?.stored ?? 0) === 0) {
      await client.query("commit");
      open = false;
      return false;
    }
    const diagnostics = (found.rows[0]!.diagnostics ?? []) as Diagnostic[];
    const states = new Map<number, StepState>();
    const graph = planGraph(
      found.rows.map((row) => {
        const id = Number(row.step_id);
        states.set(id, row.state as StepState);
        return { id, dependencies: row.dependencies as number[] };
      }),
    );
    if (outcome.ok) {
      const ready = unblockedBy(graph, stepId, states);
      for (const id of ready) states.set(id, "ready");
      states.set(stepId, "done");
      const status = finalStatus(states, undefined, diagnostics);
      // One round trip: the steps made ready, their jobs, the run's end when this was its last step, commit.
      const ids = `'{${ready.map(integer).join(",")}}'::bigint[]`;
      await client.query(
        ready.length === 0 && status === undefined
          ? "commit"
          : `with ready as (update ${steps} set state = 'ready' where run_id = ${run} and step_id = any(${ids}) and state = 'waiting' returning step_id),
                  jobs as (select graphile_worker.add_job(${literal(stepTask(connection))}, json_build_object('runId', ${run}::text, 'stepId', step_id), job_key := ${run} || ':' || step_id::text, job_key_mode := 'unsafe_dedupe', max_attempts := 25) from ready),
                  ended as (update ${runs} set status = ${status === undefined ? "null" : literal(status)}, finished_at = clock_timestamp() where id = ${run} and ${status === undefined ? "false" : "true"} returning id),
                  told as (select pg_notify(${literal(finishedChannel(connection))}, ${run}) from ended)
             select (select count(*) from jobs) + (select count(*) from told) as n;
             commit`,
      );
      open = false;
      return true;
    }
    const skipped = dependentsToSkip(graph, stepId, states);
    await skip(client, connection, runId, skipped);
    for (const { id } of skipped) states.set(id, "skipped");
    states.set(stepId, "failed");
    if (failFast) await stopSteps(client, connection, runId, "failed", states);
    else await settleIfDone(client, connection, runId, states, undefined);
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
  await notifyRunStopped(client, connection, runId);
  await notifyProgress(client, connection, runId);
  await settleIfDone(client, connection, runId, current, reason);
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
