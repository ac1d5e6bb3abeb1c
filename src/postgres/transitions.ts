/**
 * Changes to a run's steps in the database, each in one transaction with the run's row locked: a step
 * done (`settle_done`, see sql/settle-done.ts), a step failed (`settle_failed`, then the steps its
 * failure skips), a run stopped, a run settled. What to change is decided by the rules of
 * `../step/schedule.ts`, the same ones `runPlan` follows; the SQL of each operation is in `sql/`,
 * with parameters only.
 */
import type { StepFailure } from "../step/attempt.js";
import {
  dependentsToSkip,
  endedStatus,
  isSettled,
  onStop,
  scheduleGraph,
  stopDetail,
  type ScheduleGraph,
  type StepState,
  type StopReason,
} from "../step/schedule.js";
import type { KnownRun } from "./known-runs.js";
import { inTransaction, retryingConflicts, type Connection } from "./db.js";
import type { PgPool, PgQueryable } from "./peers.js";
import { notifyProgress, notifyRunFinished, notifyRunStopped } from "./queue.js";
import { abortSteps } from "./sql/abort-steps.js";
import { finishRun } from "./sql/finish-run.js";
import { readDiagnostics } from "./sql/read-diagnostics.js";
import { readRunSteps } from "./sql/read-run-steps.js";
import { readStepAttempt } from "./sql/read-step-attempt.js";
import { retryStep, type RetriedStep } from "./sql/retry-step.js";
import { settleDone, type Take, type TakenRow } from "./sql/settle-done.js";
import { storeFailure, type RunStepRow } from "./sql/settle-failed.js";
import { setUnsettled } from "./sql/set-unsettled.js";
import { skipBlocked } from "./sql/skip-blocked.js";
import { skipUnstarted } from "./sql/skip-unstarted.js";
import type { StoredStepError } from "./stored-error.js";
import type { StepAttempt } from "./stored-states.js";

/** What a step's attempt came to. */
export type SettleOutcome =
  | { readonly ok: true; readonly result: string | null }
  /** `failure`: the attempt's own, with what the tool threw (never stored; a retry policy reads it). */
  | { readonly ok: false; readonly error: StoredStepError; readonly result?: string | null; readonly failure?: StepFailure };

/** What became of an outcome: stored; not stored as another attempt holds the step; not stored as the step or its run was settled otherwise (stopped). */
export type Settled = "stored" | "lost" | "moot";

/** What became of an outcome, and the dependent the settle took for the worker (`take`), if any. */
export interface SettleResult {
  readonly settled: Settled;
  readonly next?: TakenRow;
}

/** An attempt's outcome to store: which attempt, the outcome, whether a failure stops the run (`failFast`), the run as the worker knows it, and who may take a dependent. */
export interface AttemptOutcome extends StepAttempt {
  readonly outcome: SettleOutcome;
  readonly failFast: boolean;
  readonly known: KnownRun;
  readonly take?: Take | undefined;
}

/**
 * Store a step's outcome (once: only the attempt that holds the step writes), then enqueue the
 * dependents it makes ready (with `take`, claiming one of them for the worker instead), or skip those
 * a failure blocks (and stop the run with `failFast`).
 *
 * @example
 * const { settled, next } = await settleStep(pool, connection, { runId, stepId: 3, attempt: 1, outcome: { ok: true, result: "{}" }, failFast: false, known, take })
 */
export async function settleStep(pool: PgPool, connection: Connection, step: AttemptOutcome): Promise<SettleResult> {
  const { runId, stepId, attempt, outcome } = step;
  if (outcome.ok) {
    // One statement, its own transaction: a try PostgreSQL rolled back (a deadlock) changed nothing, and is made again.
    const { stored, next } = await retryingConflicts(() =>
      settleDone(pool, connection, { runId, stepId, attempt, result: outcome.result, known: step.known, take: step.take }),
    );
    return stored
      ? next === undefined
        ? { settled: "stored" }
        : { settled: "stored", next }
      : { settled: await whyNotStored(pool, connection, step) };
  }
  const stored = await settleFailed(pool, connection, step, outcome, step.failFast);
  return { settled: stored ? "stored" : await whyNotStored(pool, connection, step) };
}

/**
 * A failed try to be tried again after `delayMs`: its step `retrying`, its job queued for then (once:
 * only the attempt that holds the step does it).
 *
 * @example
 * await retryLater(pool, connection, { runId, stepId: 3, attempt: 1, error: { code: "tool-error", detail: "the tool threw: down" }, delayMs: 1_000 })
 */
export async function retryLater(pool: PgPool, connection: Connection, step: RetriedStep): Promise<Settled> {
  return (await retryingConflicts(() => retryStep(pool, connection, step))) ? "stored" : await whyNotStored(pool, connection, step);
}

/** An outcome not stored: another attempt holds the step (`lost`), or the step or its run was settled otherwise (`moot`). */
async function whyNotStored(pool: PgPool, connection: Connection, { runId, stepId, attempt }: StepAttempt): Promise<Settled> {
  const now = await readStepAttempt(pool, connection, runId, stepId);
  return now !== undefined && now !== attempt ? "lost" : "moot";
}

/** The states and graph of a run's steps. */
function statesOf(rows: readonly RunStepRow[]): { graph: ScheduleGraph; states: Map<number, StepState> } {
  const states = new Map<number, StepState>();
  for (const row of rows) states.set(row.id, row.state);
  return { graph: scheduleGraph(rows), states };
}

/** A step failed: its error (and a result that failed validation) stored, its dependents skipped, the run stopped with `failFast`, or ended. */
async function settleFailed(
  pool: PgPool,
  connection: Connection,
  { runId, stepId, attempt }: StepAttempt,
  outcome: Extract<SettleOutcome, { ok: false }>,
  failFast: boolean,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const rows = await storeFailure(client, connection, { runId, stepId, attempt, error: outcome.error, result: outcome.result });
    if (rows !== undefined) await afterFailure(client, connection, runId, stepId, rows, failFast);
    return rows !== undefined;
  });
}

/**
 * After a step's failure is stored (the run's row locked; `rows`: every step as it was before): the
 * steps it blocks skipped, then the run stopped with `failFast`, or its count and status brought up to date.
 */
export async function afterFailure(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  stepId: number,
  rows: readonly RunStepRow[],
  failFast: boolean,
): Promise<void> {
  const { graph, states } = statesOf(rows);
  const skipped = dependentsToSkip(graph, stepId, states);
  await skipBlocked(client, connection, runId, skipped);
  for (const { id } of skipped) states.set(id, "skipped");
  states.set(stepId, "failed");
  if (failFast) return stopSteps(client, connection, runId, "failed", states);
  await recount(client, connection, runId, states);
  await settleIfDone(client, connection, runId, states, undefined);
}

/**
 * Stop a run (its row locked): running steps fail with code `aborted`, steps not started are skipped,
 * the run gets its final status, and workers are told (they abort the running steps' signals).
 */
export async function stopSteps(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  reason: StopReason,
  states?: Map<number, StepState>,
): Promise<void> {
  const current = states ?? statesOf(await readRunSteps(client, connection, runId)).states;
  const aborted: number[] = [];
  const skipped: number[] = [];
  for (const [id, state] of current) {
    const action = onStop(state);
    if (action === "abort") aborted.push(id);
    else if (action === "skip") skipped.push(id);
  }
  await abortSteps(client, connection, runId, aborted, { code: "aborted", detail: stopDetail(reason) });
  await skipUnstarted(client, connection, runId, skipped);
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
  await setUnsettled(client, connection, runId, unsettled);
}

/** When nothing more can happen by itself (every step settled, or what is left waits for approval): the run's status, and the announcement. */
async function settleIfDone(
  client: PgQueryable,
  connection: Connection,
  runId: string,
  states: ReadonlyMap<number, StepState>,
  stopped: StopReason | undefined,
): Promise<void> {
  if (endedStatus(states.values(), stopped, []) === undefined) return;
  const status = endedStatus(states.values(), stopped, await readDiagnostics(client, connection, runId))!;
  await finishRun(client, connection, runId, status);
  await notifyRunFinished(client, connection, runId);
}
