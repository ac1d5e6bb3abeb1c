/**
 * Claim a step for one try, in one prepared statement: mark it running (a new attempt) if its run is
 * running and it is still to run, announce it to a watcher, and read what the try needs (its tool,
 * arguments, the results of its dependencies; the run's options, catalog, diagnostics and graph the
 * first time this worker sees the run).
 */
import { table, type Connection } from "../db.js";
import type { KnownRunInfo, KnownRuns } from "../known-runs.js";
import type { PgPool } from "../peers.js";
import { progressChannel } from "../queue.js";
import { CLAIMABLE_STATES, RUNNING_RUN_SQL, STATE_SQL } from "../stored-states.js";
import type { ClaimedStep } from "../worker-step.js";

/**
 * $1: the run id, $2: the step id, $3: the worker id, $4: the progress channel, $5: whether to read the
 * run's options, catalog, diagnostics and graph, $6: the states a step is claimed from.
 */
// The dependencies' results are read by key (`= any(array(…))`): written `in (select …)`, PostgreSQL
// planned a scan of all the run's steps for each claim, so a run's claims cost its size squared.
export function claimSql(connection: Connection): string {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  return `with run as (select watched, case when $5 then options end as options, case when $5 then catalog end as catalog, case when $5 then diagnostics end as diagnostics
                      from ${runs} where id = $1 and status = ${RUNNING_RUN_SQL}),
        marked as (
          update ${steps} set state = ${STATE_SQL.running}, attempt = attempt + 1, started_at = case when state = ${STATE_SQL.retrying} then started_at else clock_timestamp() end, worker = $3, retry_at = null
          where run_id = $1 and step_id = $2 and state = any($6::text[]) and exists (select 1 from run)
          returning tool, args, dependencies, attempt, approved),
        told as (select pg_notify($4, $1) from marked, run where run.watched)
   select m.tool, m.args, m.attempt, m.approved, r.options, r.catalog, r.diagnostics, (select count(*) from told) as told,
          case when $5 then (select json_agg(json_build_array(g.step_id, g.dependencies) order by g.ordinal) from ${steps} g where g.run_id = $1) end as graph,
          (select json_agg(json_build_array(d.step_id, d.result, d.result is null)) from ${steps} d
           where d.run_id = $1 and d.step_id = any(array(select json_array_elements_text(m.dependencies)::bigint)) and d.state = ${STATE_SQL.done}) as results
   from marked m, run r`;
}

/**
 * The claimed step, or `undefined` when it is not to run (settled, or its run stopped). `runs` keeps
 * what the worker knows of each run.
 *
 * @example
 * const claimed = await claimStep(pool, connection, worker.id, runs, runId, 3)
 */
export async function claimStep(
  pool: PgPool,
  connection: Connection,
  workerId: string,
  runs: KnownRuns,
  runId: string,
  stepId: number,
): Promise<ClaimedStep | undefined> {
  const known = runs.get(runId);
  const found = await pool.query({
    name: `plan_refs.claim.${connection.schema}`,
    text: claimSql(connection),
    values: [runId, stepId, workerId, progressChannel(connection), known === undefined, CLAIMABLE_STATES],
  });
  const row = found.rows[0];
  return row === undefined ? undefined : claimedStep(runId, stepId, row, known ?? runs.add(runId, row));
}

/**
 * A claimed step from the claim's columns (`tool`, `args`, `attempt`, `approved`, `results`), here or
 * as a settle that took the step returns them (sql/settle-done.ts).
 *
 * @example
 * const next = claimedStep(runId, taken.stepId, taken, known)
 */
export function claimedStep(runId: string, stepId: number, row: Readonly<Record<string, unknown>>, known: KnownRunInfo): ClaimedStep {
  const results = new Map<number, unknown>();
  // The third item: no result text (the tool returned undefined), as opposed to a JSON null.
  for (const [id, value, none] of (row.results ?? []) as [number, unknown, boolean][]) results.set(Number(id), none ? undefined : value);
  return {
    runId,
    stepId,
    tool: String(row.tool),
    args: row.args as Record<string, unknown>,
    attempt: Number(row.attempt),
    approved: row.approved === true,
    results,
    known,
  };
}
