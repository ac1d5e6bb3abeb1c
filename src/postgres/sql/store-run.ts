/**
 * A new run, its steps and the jobs of the steps that depend on nothing, in one statement (one round
 * trip, atomic on its own); nothing when the run id was stored before (so submitting is idempotent).
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { addStepJob, finishedChannel, stepJobOrder } from "../queue.js";
import type { StoredState } from "../stored-states.js";

/** One step as submitted: its arguments' snapshot as JSON text, and the steps it depends on. */
export interface NewStep {
  readonly id: number;
  readonly tool: string;
  readonly args: string;
  readonly dependencies: readonly number[];
}

/** What is stored of a new run. */
export interface NewRun {
  readonly runId: string;
  readonly status: string;
  /** The run's `StoredRunOptions`, as JSON text. */
  readonly options: string;
  readonly catalog: string | null;
  /** The linter's diagnostics, as JSON text. */
  readonly diagnostics: string;
  readonly stepsTotal: number;
  /** Whether the run is over as stored (invalid, or no steps): it is finished and announced at once. */
  readonly settled: boolean;
  /** Its steps (none for a settled run). */
  readonly steps: readonly NewStep[];
  readonly planHash: string;
  /** The plan's output as JSON text, or null. */
  readonly output: string | null;
}

/**
 * $1: the run id, $2: its status, $3: its options (JSON), $4: its catalog, $5: its diagnostics, $6: its
 * count of steps, $7: whether it is over as stored; its steps' ids ($8), places ($9), tools ($10),
 * arguments ($11), dependencies ($12) and states ($13); the ids ($14) and tools ($16) of those that depend
 * on nothing; $15: the finished channel, $17: the plan's hash, $18: its output (JSON).
 */
export function storeRunSql(connection: Connection): string {
  return `with run as (
       insert into ${table(connection, "runs")} (id, status, options, catalog, diagnostics, steps_total, unsettled, finished_at, plan_hash, output)
       values ($1, $2, $3, $4, $5, $6, cardinality($8::bigint[]), case when $7::boolean then clock_timestamp() end, $17, $18::json)
       on conflict (id) do nothing returning id),
     stored as (
       insert into ${table(connection, "steps")} (run_id, step_id, ordinal, tool, args, dependencies, remaining, state)
       select $1, s.step_id, s.ordinal, s.tool, s.args, s.dependencies, json_array_length(s.dependencies), s.state
       from unnest($8::bigint[], $9::integer[], $10::text[], $11::json[], $12::json[], $13::text[]) as s(step_id, ordinal, tool, args, dependencies, state)
       where exists (select 1 from run)),
     jobs as (
       select ${addStepJob(connection, "$1::text", "s.id", "s.tool", { optionsSql: "$3::json" })}
       from unnest($14::bigint[], $16::text[]) as s(id, tool) where exists (select 1 from run) ${stepJobOrder("s.tool", "s.id")}),
     told as (select pg_notify($15, $1) from run where $7::boolean)
     select (select count(*) from jobs) + (select count(*) from told) as n`;
}

/**
 * @example
 * await storeRun(client, connection, { runId, status: "running", options, catalog: null, diagnostics: "[]", stepsTotal: 2, settled: false, steps, planHash, output: null })
 */
export async function storeRun(client: PgQueryable, connection: Connection, run: NewRun): Promise<void> {
  const { steps } = run;
  const first = steps.filter((step) => step.dependencies.length === 0);
  await client.query(storeRunSql(connection), [
    run.runId,
    run.status,
    run.options,
    run.catalog,
    run.diagnostics,
    run.stepsTotal,
    run.settled,
    steps.map((step) => step.id),
    steps.map((_, i) => i),
    steps.map((step) => step.tool),
    steps.map((step) => step.args),
    steps.map((step) => JSON.stringify(step.dependencies)),
    steps.map((step): StoredState => (step.dependencies.length === 0 ? "ready" : "waiting")),
    first.map((step) => step.id),
    finishedChannel(connection),
    first.map((step) => step.tool),
    run.planHash,
    run.output,
  ]);
}
