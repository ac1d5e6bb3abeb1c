/**
 * `redriveRun`: a finished run that failed or was aborted goes on from where it stopped, as Step
 * Functions' `RedriveExecution` does: the same run id, the results of the steps that succeeded kept
 * (those steps are never called again), the failed, aborted and skipped steps queued again.
 */
import { databaseError, inTransaction, poolFor, readConnection, type ConnectionOptions } from "./db.js";
import { PostgresError } from "./errors.js";
import { RUNNING_RUN } from "./stored-states.js";
import { lockRun } from "./sql/lock-run.js";
import { redriveSteps } from "./sql/redrive-steps.js";
import { cutText } from "../shared/text.js";

/** What a redrive did. */
export interface Redrive {
  readonly runId: string;
  /** Steps to run again (failed, aborted, skipped): the run is `running` again. */
  readonly steps: number;
  /** Of those, the ones queued at once (their dependencies are done); the others wait for them. */
  readonly queued: number;
}

/** The statuses a run can be redriven from. */
const REDRIVABLE = new Set(["failed", "aborted"]);

/**
 * Redrive a finished run: the steps that failed, were aborted or skipped run again (on the workers,
 * under the run's own options), the steps that succeeded keep their results and are not called
 * again; the run is `running` until it finishes again (`waitForRun`). In one transaction with the
 * run locked: a run that is still running (also one redriven a moment ago), that succeeded or that
 * is `invalid` is refused (`PostgresError` `not-redrivable`) and nothing changes; an unknown id is
 * `unknown-run`.
 *
 * @example
 * const report = await waitForRun(runId);            // status "failed": a service was down
 * await redriveRun(runId, { connectionString });     // { runId, steps: 2, queued: 1 }
 * (await waitForRun(runId)).status                    // "ok"
 */
export async function redriveRun(runId: string, options: ConnectionOptions = {}): Promise<Redrive> {
  const connection = readConnection(options, "redriveRun");
  if (typeof runId !== "string" || runId === "")
    throw new PostgresError("invalid-options", "redriveRun: the run id must be a non-empty string");
  const shown = JSON.stringify(cutText(runId, 200));
  const pool = await poolFor(connection);
  try {
    return await inTransaction(pool, async (client) => {
      const run = await lockRun(client, connection, runId);
      if (run === undefined) throw new PostgresError("unknown-run", `no run ${shown} in ${connection.where}`);
      if (!REDRIVABLE.has(run.status)) throw new PostgresError("not-redrivable", refusal(shown, run.status));
      const { reset, queued } = await redriveSteps(client, connection, runId);
      return { runId, steps: reset, queued };
    });
  } catch (error) {
    throw databaseError(error, connection);
  }
}

function refusal(run: string, status: string): string {
  const why =
    status === RUNNING_RUN
      ? "is still running (or was redriven already): redrive it once it has failed or been aborted"
      : status === "ok"
        ? "succeeded: every step has its result, there is nothing to run again"
        : status === "suspended"
          ? "is suspended: steps wait for approval; approve or deny them (approveStep, denyStep, plan-refs approve)"
          : status === "invalid"
            ? "is invalid (lint errors): nothing ran; fix the plan and submit it again"
            : `is ${JSON.stringify(status)}`;
  return `run ${run} ${why}; nothing was changed`;
}
