/**
 * The worker's own bounds (what `runPlan` has no use for): its concurrency, bounded by the connections
 * PostgreSQL gives, its recovery window and grace period. They are read by the shared readers
 * (`readWorkerSettings`, `readBounded` in src/run/settings.ts), by `startWorker` and by `plan-refs worker`'s flags.
 */
import { FORCE_STOP_MARGIN_MS, MAX_TIMEOUT_MS, readBounded, type WorkerBounds } from "../run/settings.js";
import { PostgresError } from "./errors.js";

/**
 * The range of each integer worker setting. `recoveryMs` at least 1 s: a worker beats every quarter of
 * it, and a shorter window would have it taken for dead between two beats of a busy process. `graceMs`
 * leaves room for the force-stop margin after it, within what a timer can wait.
 *
 * @example
 * WORKER_LIMITS.concurrency.max // 256
 */
export const WORKER_LIMITS: WorkerBounds = Object.freeze({
  concurrency: Object.freeze({ min: 1, max: 256 }),
  recoveryMs: Object.freeze({ min: 1_000, max: MAX_TIMEOUT_MS }),
  graceMs: Object.freeze({ min: 1, max: MAX_TIMEOUT_MS - FORCE_STOP_MARGIN_MS }),
});

export type WorkerLimit = keyof typeof WORKER_LIMITS;

/** A command-line flag's value within the setting's range (`--recovery-ms`), else `invalid-options` naming the flag. */
export function boundedSetting(value: unknown, setting: WorkerLimit, flag: string): number {
  return readBounded(value, setting, WORKER_LIMITS[setting], 0, (message) => new PostgresError("invalid-options", message), flag);
}

/** The connections a worker of this concurrency holds at most: graphile-worker's pool (one per running job and 2 more), plan-refs' pool, the listener. */
export function connectionsNeeded(concurrency: number, poolSize: number): number {
  return concurrency + 2 + poolSize + 1;
}
