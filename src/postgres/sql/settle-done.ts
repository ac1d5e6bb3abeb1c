/**
 * A step done, in one round trip: one prepared call of the PL/pgSQL function `settle_done`
 * (settle-done-function.ts), which stores the result if this attempt still holds the step, makes ready
 * and enqueues each dependent that may now start (or claims one of them for the settling worker), and
 * ends the run when every step is settled.
 */
import { READY_FROM_STATES, runStatus, type RunStatus } from "../../step/schedule.js";
import type { Connection } from "../db.js";
import type { PgPool } from "../peers.js";
import type { KnownRun } from "../known-runs.js";
import type { StepAttempt } from "../stored-states.js";
import { settleDoneName } from "./settle-done-function.js";

/**
 * $1: the run id, $2: the step id, $3: the attempt, $4: the result (JSON), $5: its dependents, $6: the
 * states a dependent becomes ready from, $7, $8: the run's status when it ends without and with failures,
 * $9: its status once only steps waiting for approval are left, $10: the settling worker, $11: the tools it may take.
 */
export function settleDoneSql(connection: Connection): string {
  return `select stored, next from ${settleDoneName(connection)}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
}

/** Who may take a dependent the settle makes ready (`settleDone`'s `p_worker`, `p_take`). */
export interface Take {
  readonly workerId: string;
  /** The tools the worker may run at once: it has them, and the run neither serialises them nor waits for approval of them. */
  readonly tools: readonly string[];
}

/** A step done: which attempt, its result (JSON text, or null: the tool returned nothing), its run as the worker knows it, and who may take a dependent. */
export interface DoneStep extends StepAttempt {
  readonly result: string | null;
  readonly known: KnownRun;
  readonly take?: Take | undefined;
}

/** A dependent taken by the settle: the claim's columns (see sql/claim.ts), with its id. */
export type TakenRow = Readonly<Record<string, unknown>> & { readonly stepId: number };

/**
 * A step done, in one round trip (one prepared call of `settle_done`, one transaction): store
 * its result if this attempt still holds the step, make ready and enqueue each dependent the rules of
 * ../step/schedule.ts now let start (`isReady`), and end the run when every step is settled
 * (`isSettled`, `runStatus`). `stored: false` when the result was not stored; with `take`, `next` is
 * the dependent the worker claimed instead of queueing it.
 *
 * @example
 * const { stored, next } = await settleDone(pool, connection, { runId, stepId: 3, attempt: 1, result: '{"city":"Lisbon"}', known, take: { workerId, tools: ["geocode"] } })
 */
export async function settleDone(
  pool: PgPool,
  connection: Connection,
  { runId, stepId, attempt, result, known, take }: DoneStep,
): Promise<{ stored: boolean; next: TakenRow | undefined }> {
  const found = await pool.query({
    name: `plan_refs.settle.${connection.schema}`,
    text: settleDoneSql(connection),
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
