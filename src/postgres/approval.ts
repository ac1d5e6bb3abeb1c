/**
 * A person's decision on a step waiting for approval (state `awaiting-approval`: its tool needs
 * approval, so the worker whose turn it was stored its resolved arguments and did not call it):
 * `approveStep` queues it to run, `denyStep` fails it `denied`. Each in one transaction with the run
 * locked, as the AI SDK's tool-approval responses and Step Functions' `SendTaskSuccess` /
 * `SendTaskFailure` decide a waiting call.
 */
import { STEP_FAILURES } from "../step/attempt.js";
import { runStatus } from "../step/schedule.js";
import { ownData } from "../shared/own-data.js";
import { databaseError, inTransaction, poolFor, readConnection, type Connection, type ConnectionOptions } from "./db.js";
import { PostgresError } from "./errors.js";
import type { PgQueryable } from "./peers.js";
import { notifyProgress } from "./queue.js";
import { lockRun } from "./sql/lock-run.js";
import { approveWaiting } from "./sql/approve-step.js";
import { denyWaiting } from "./sql/deny-step.js";
import { readRunSteps } from "./sql/read-run-steps.js";
import { stepState } from "./sql/read-step-state.js";
import { AWAITING_APPROVAL, RUNNING_RUN } from "./stored-states.js";
import { storedError } from "./stored-error.js";
import { afterFailure } from "./transitions.js";
import { cutText } from "../shared/text.js";

/** The statuses of a run whose waiting steps can be decided: it has not ended (a stop keeps them waiting, undecidable). */
const DECIDABLE = new Set<string>([RUNNING_RUN, runStatus(undefined, 0, [], 1)]);

/** Longest denial reason kept (the rest is cut, as the message shows it). */
const MAX_REASON = 500;

/**
 * Approve a step that waits for approval: it is queued and runs on a worker without asking again (a
 * suspended run is running again until it ends or is suspended again: `waitForRun`). Rejects, changing
 * nothing, with `unknown-run`, `unknown-step`, or `not-awaiting-approval` for a step that does not
 * wait (also one approved a moment ago: approving twice runs it once) or whose run was stopped.
 *
 * @example
 * const report = await waitForRun(runId, { connectionString }); // status "suspended"
 * report.pending // Map { 3 => { tool: "send-email", args: { to: "ops@example.com" } } }
 * await approveStep(runId, 3, { connectionString });
 * (await waitForRun(runId, { connectionString })).status // "ok"
 */
export async function approveStep(runId: string, stepId: number, options: ConnectionOptions = {}): Promise<void> {
  const connection = readConnection(options, "approveStep");
  readDecision(runId, stepId, "approveStep");
  await decide(connection, runId, stepId, (client) => approveWaiting(client, connection, runId, stepId, runStatus(undefined, 0, [], 1)));
}

/**
 * Deny a step that waits for approval: it fails with `StepError` `denied` and the reason (its tool is
 * never called), the steps that depend on it are skipped, and the run's status is recomputed (`failFast`
 * stops it; else it ends once nothing else can run, or stays suspended while other steps wait). Rejects
 * as `approveStep` does, changing nothing.
 *
 * @example
 * await denyStep(runId, 3, "too expensive", { connectionString });
 * (await waitForRun(runId, { connectionString })).errors.get(3)?.code // "denied"
 */
export async function denyStep(runId: string, stepId: number, reason: string, options: ConnectionOptions = {}): Promise<void> {
  const connection = readConnection(options, "denyStep");
  readDecision(runId, stepId, "denyStep");
  if (typeof reason !== "string") throw new PostgresError("invalid-options", "denyStep: the reason must be a string");
  const error = storedError(STEP_FAILURES.denied(cutText(reason, MAX_REASON)));
  await decide(connection, runId, stepId, async (client, failFast) => {
    if (!(await denyWaiting(client, connection, runId, stepId, error))) return false;
    await afterFailure(client, connection, runId, stepId, await readRunSteps(client, connection, runId), failFast);
    await notifyProgress(client, connection, runId);
    return true;
  });
}

function readDecision(runId: unknown, stepId: unknown, what: string): void {
  if (typeof runId !== "string" || runId === "")
    throw new PostgresError("invalid-options", `${what}: the run id must be a non-empty string`);
  if (typeof stepId !== "number" || !Number.isSafeInteger(stepId))
    throw new PostgresError("invalid-options", `${what}: the step id must be an integer`);
}

/** Lock the run, check that the step waits for approval in a run that has not ended, and apply `change`. */
async function decide(
  connection: Connection,
  runId: string,
  stepId: number,
  change: (client: PgQueryable, failFast: boolean) => Promise<boolean>,
): Promise<void> {
  const shown = JSON.stringify(cutText(runId, 200));
  const pool = await poolFor(connection);
  try {
    await inTransaction(pool, async (client) => {
      const run = await lockRun(client, connection, runId);
      if (run === undefined) throw new PostgresError("unknown-run", `no run ${shown} in ${connection.where}`);
      const state = await stepState(client, connection, runId, stepId);
      if (state === undefined) throw new PostgresError("unknown-step", `run ${shown} has no step ${stepId}; nothing was changed`);
      if (state !== AWAITING_APPROVAL)
        throw new PostgresError(
          "not-awaiting-approval",
          `step ${stepId} of run ${shown} does not wait for approval (it is ${state}${state === "waiting" ? ": its turn has not come" : ""}); nothing was changed`,
        );
      if (!DECIDABLE.has(run.status))
        throw new PostgresError(
          "not-awaiting-approval",
          `run ${shown} is ${run.status}: its steps no longer run (redriveRun asks for approval again); nothing was changed`,
        );
      if (!(await change(client, ownData(run.options, "failFast") === true)))
        throw new PostgresError("not-awaiting-approval", `step ${stepId} of run ${shown} was decided meanwhile; nothing was changed`);
    });
  } catch (error) {
    throw databaseError(error, connection);
  }
}
