/**
 * The bounds of a worker's numeric settings, one home for `startWorker` and `plan-refs worker`: each is
 * an integer in its range, refused with one line naming the range otherwise. Timers never exceed
 * `MAX_TIMEOUT_MS` (Node would fire a longer one after 1 ms).
 */
import { MAX_TIMEOUT_MS } from "../run/run-plan.js";
import { quoted } from "../shared/text.js";
import { PostgresError } from "./errors.js";

/** After `graceMs`, how long a stopping worker waits for graphile-worker before killing it. */
export const FORCE_AFTER_GRACE_MS = 5_000;

/**
 * The range of each numeric worker setting. `recoveryMs` at least 1 s: a worker beats every quarter of
 * it, and a shorter window would have it taken for dead between two beats of a busy process.
 *
 * @example
 * WORKER_LIMITS.concurrency.max // 256
 */
export const WORKER_LIMITS = Object.freeze({
  concurrency: Object.freeze({ min: 1, max: 256 }),
  recoveryMs: Object.freeze({ min: 1_000, max: MAX_TIMEOUT_MS }),
  graceMs: Object.freeze({ min: 1, max: MAX_TIMEOUT_MS - FORCE_AFTER_GRACE_MS }),
  timeoutMs: Object.freeze({ min: 1, max: MAX_TIMEOUT_MS }),
});

export type WorkerLimit = keyof typeof WORKER_LIMITS;

/** `value` if it is an integer within the setting's range, else `invalid-options` naming `label` (`startWorker: recoveryMs`, `--recovery-ms`). */
export function boundedSetting(value: unknown, setting: WorkerLimit, label: string): number {
  const { min, max } = WORKER_LIMITS[setting];
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const shown = typeof value === "number" ? String(value) : typeof value === "string" ? quoted(value, 20) : typeof value;
    throw new PostgresError("invalid-options", `${label} must be an integer from ${min} to ${max}, not ${shown}`);
  }
  return value;
}

/** The connections a worker of this concurrency holds at most: graphile-worker's pool (one per running job and 2 more), plan-refs' pool, the listener. */
export function connectionsNeeded(concurrency: number, poolSize: number): number {
  return concurrency + 2 + poolSize + 1;
}
