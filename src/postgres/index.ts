/**
 * `plan-refs/postgres`: plans run by many worker processes, on many machines, durably, on PostgreSQL
 * with graphile-worker: one job per step, results stored in PostgreSQL, and a step's dependents
 * enqueued in the transaction that stores its result. `pg` and `graphile-worker` are optional peer
 * dependencies, loaded on first use (a call without them fails with the install command).
 */
export { migrate } from "./migrate.js";
export { submitPlan, type SubmitOptions, type SubmitRunOptions } from "./submit.js";
export {
  DEFAULT_RECOVERY_MS,
  startWorker,
  type Worker,
  type WorkerEvent,
  type WorkerOptions,
  type WorkerToolContext,
  type WorkerToolFunction,
} from "./worker.js";
export { redriveRun, type Redrive } from "./redrive.js";
export { approveStep, denyStep } from "./approval.js";
export { cancelRun, getRun, waitForRun, type RunSnapshot, type StepSnapshot, type WaitOptions } from "./runs.js";
export type { StepState } from "../step/schedule.js";
export { DEFAULT_SCHEMA, type ConnectionOptions } from "./db.js";
export { WORKER_LIMITS } from "./worker-settings.js";
export { POSTGRES_INSTALL, PostgresError, type PostgresErrorCode } from "./errors.js";
