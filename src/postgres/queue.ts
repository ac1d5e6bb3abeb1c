/**
 * Enqueueing steps (graphile-worker jobs, added from SQL inside the caller's transaction) and the
 * notifications plan-refs sends: a run finished, a run was stopped.
 */
import { literal, table, type Connection } from "./db.js";
import type { PgQueryable } from "./peers.js";
import { notify } from "./sql/notify.js";

/**
 * The prefix of graphile-worker's task names of plan-refs steps (one per schema, so two schemas never
 * share jobs); alone, the task of jobs queued before steps were routed by tool.
 */
export function stepTask(connection: Connection): string {
  return `${connection.schema}.step`;
}

/**
 * The task of a step whose tool is `tool`: a worker registers one per tool it has, so it takes only
 * the steps it can run (graphile-worker fetches jobs of the tasks a worker knows).
 */
export function toolTask(connection: Connection, tool: string): string {
  return `${stepTask(connection)}/${tool}`;
}

/** The channel where finished runs are announced (payload: the run id). */
export function finishedChannel(connection: Connection): string {
  return `${connection.schema}_finished`;
}

/** The channel where stopped runs are announced to workers (payload: the run id). */
export function stoppedChannel(connection: Connection): string {
  return `${connection.schema}_stopped`;
}

/** The channel where a run's progress is announced (a step started or settled; payload: the run id). */
export function progressChannel(connection: Connection): string {
  return `${connection.schema}_progress`;
}

/** Announce a run's progress (in the caller's transaction). */
export async function notifyProgress(client: PgQueryable, connection: Connection, runId: string): Promise<void> {
  await notify(client, progressChannel(connection), runId);
}

/**
 * The SQL call that adds a step's job (graphile-worker's `add_job`, in the caller's transaction), given
 * SQL expressions of the run id (text), the step id and its tool (the task is the tool's, `toolTask`).
 * A job key per step: a step is never queued twice. With `runAtSql` (a retry, at its time) the job
 * replaces the step's job: one that is running (the failed try's) is let go, keyless, and completes.
 * The job's flag is its task (`toolFlag`): a worker at its `toolConcurrency` limit skips the tool's jobs by it.
 * Its queue is the tool's serial queue when the run names the tool in `serialTools` (`serialQueue`);
 * `optionsSql` is the run's stored options, by default read from its row (a statement that inserts the
 * row passes them: its own insert is not visible to it).
 */
export function addStepJob(
  connection: Connection,
  runIdSql: string,
  stepIdSql: string,
  toolSql: string,
  { runAtSql, optionsSql }: { readonly runAtSql?: string; readonly optionsSql?: string } = {},
): string {
  const when = runAtSql === undefined ? "job_key_mode := 'unsafe_dedupe'" : `run_at := ${runAtSql}, job_key_mode := 'replace'`;
  const task = `${literal(`${stepTask(connection)}/`)} || ${toolSql}`;
  const options = optionsSql ?? `(select q.options from ${table(connection, "runs")} q where q.id = ${runIdSql})`;
  return `graphile_worker.add_job(${task}, json_build_object('runId', ${runIdSql}, 'stepId', ${stepIdSql}), job_key := ${runIdSql} || ':' || ${stepIdSql}::text, ${when}, max_attempts := 25, flags := array[${task}], queue_name := ${serialQueue(connection, options, toolSql)})`;
}

/**
 * The one order in which jobs of steps are queued, by tool: graphile-worker's `add_job` inserts a
 * tool's task row (and its serial queue's row) the first time any transaction queues a job of it, and
 * a second transaction inserting the same new row waits for the first to end, so two transactions
 * that create the same new tasks in opposite orders deadlock (PostgreSQL's 40P01, while a tool is new
 * to the database). A transaction queues all its steps in one statement, and each statement that
 * queues several (storing a run, settling a step, a redrive, the requeued orphans) orders them by
 * this: the task's name in byte order (`collate "C"`, whatever the database's collation; every task
 * shares the prefix), then `thenSql`. PostgreSQL evaluates a volatile call of a select list after its
 * `order by` (SELECT's documentation), so the jobs are added, and their tasks created, in this order.
 *
 * @example
 * `select ${addStepJob(connection, "$1::text", "s.id", "s.tool")} from steps s ${stepJobOrder("s.tool", "s.id")}`
 */
export function stepJobOrder(toolSql: string, ...thenSql: readonly string[]): string {
  return `order by ${[`${toolSql} collate "C"`, ...thenSql].join(", ")}`;
}

/**
 * `stepJobOrder` in JavaScript, for task names given to graphile-worker (a worker registers its tasks
 * in one statement, in the order of its task list): UTF-8 byte order, as `collate "C"` in a UTF8 database.
 *
 * @example
 * ["b", "a"].sort(byTaskOrder) // ["a", "b"]
 */
export function byTaskOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * The SQL of a step job's queue: for a tool the run names in `serialTools`, the tool's own named queue
 * (graphile-worker runs one job of a queue at a time, whichever worker takes it), shared by every run
 * that names the tool; else null (no queue).
 */
function serialQueue(connection: Connection, optionsSql: string, toolSql: string): string {
  return `case when coalesce((${optionsSql})::jsonb -> 'serialTools', '[]'::jsonb) ? ${toolSql} then ${literal(`${connection.schema}.serial/`)} || ${toolSql} end`;
}

/** The job flag of a tool's steps (its task's name): what a worker skips while the tool is at its limit. */
export const toolFlag = toolTask;

/** The tool of a job's task (`undefined`: a job queued before steps were routed by tool, or not a step's). */
export function toolOfTask(connection: Connection, task: string): string | undefined {
  const prefix = `${stepTask(connection)}/`;
  return task.startsWith(prefix) ? task.slice(prefix.length) : undefined;
}

/** Announce that a run finished (in the caller's transaction). */
export async function notifyRunFinished(client: PgQueryable, connection: Connection, runId: string): Promise<void> {
  await notify(client, finishedChannel(connection), runId);
}

/** Tell the workers that a run was stopped (in the caller's transaction). */
export async function notifyRunStopped(client: PgQueryable, connection: Connection, runId: string): Promise<void> {
  await notify(client, stoppedChannel(connection), runId);
}
