/**
 * The worker's own settings (what `runPlan` has no use for): its concurrency, bounded by the connections
 * PostgreSQL gives, its recovery window and grace period, read with the shared readers of
 * src/step/settings.ts (so a value `runPlan` refuses a worker refuses too) by `startWorker`
 * (`readWorkerSettings`) and by `plan-refs worker`'s flags (`boundedSetting`).
 */
import {
  DEFAULT_CONCURRENCY,
  MAX_TIMEOUT_MS,
  OPTION_MESSAGES,
  readBounded,
  readCallback,
  readDuration,
  readFlag,
  readOption,
  readSignal,
  readToolConcurrency,
  type RefuseOption,
  type SettingBounds,
} from "../step/settings.js";
import { ownData } from "../shared/own-data.js";
import { PostgresError } from "./errors.js";

/**
 * The default `recoveryMs`: a worker silent for 30 s is taken for dead.
 *
 * @example
 * await startWorker({ tools, recoveryMs: DEFAULT_RECOVERY_MS / 3 }) // steps of a dead worker resume after 10 s
 */
export const DEFAULT_RECOVERY_MS = 30_000;

/** The default `graceMs`: running steps may go on for 5 s when a worker stops. */
export const DEFAULT_GRACE_MS = 5_000;

/** How long after `graceMs` a stopping worker kills its runner if stopping has not finished. */
export const FORCE_STOP_MARGIN_MS = 5_000;

/** The bounds of a worker's own integer settings (what its connections and heartbeat allow). */
export interface WorkerBounds {
  readonly concurrency: SettingBounds;
  readonly recoveryMs: SettingBounds;
  readonly graceMs: SettingBounds;
}

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

/** A worker's options, read once and checked. */
export interface WorkerSettings<F, E> {
  /** The tools by name (own data properties that are functions). */
  readonly tools: Map<string, F>;
  readonly concurrency: number;
  readonly recoveryMs: number;
  /** `undefined`: no limit (absent, or `Infinity`). */
  readonly timeoutMs: number | undefined;
  readonly graceMs: number;
  /** When a stopping worker kills its runner: `graceMs` and a margin, never past what a timer can wait. */
  readonly forceStopMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: E) => void) | undefined;
  readonly validateInputs: boolean;
  /** Calls at once by tool name in this worker (`undefined`: only `concurrency` limits a tool). */
  readonly toolConcurrency: ReadonlyMap<string, number> | undefined;
}

/**
 * `startWorker`'s options, with the same readers (and so the same accepted values) as `runPlan`'s, and
 * the worker's own `bounds` on its concurrency, recovery window and grace period; `refuse` builds the
 * worker's error class.
 *
 * @example
 * readWorkerSettings({ tools: { echo: (args) => args }, recoveryMs: 10_000 }, (message) => new PostgresError("invalid-options", `startWorker: ${message}`), WORKER_LIMITS)
 */
export function readWorkerSettings<F, E>(options: object, refuse: RefuseOption, bounds: WorkerBounds): WorkerSettings<F, E> {
  const tools = readOption(options, "tools");
  if (typeof tools !== "object" || tools === null) throw refuse(OPTION_MESSAGES.tools("tools"));
  const map = new Map<string, F>();
  for (const name of Object.keys(tools)) {
    const fn = ownData(tools, name);
    if (typeof fn === "function") map.set(name, fn as F);
  }
  const graceMs = readBounded(readOption(options, "graceMs"), "graceMs", bounds.graceMs, DEFAULT_GRACE_MS, refuse);
  return {
    tools: map,
    concurrency: readBounded(readOption(options, "concurrency"), "concurrency", bounds.concurrency, DEFAULT_CONCURRENCY, refuse),
    recoveryMs: readBounded(readOption(options, "recoveryMs"), "recoveryMs", bounds.recoveryMs, DEFAULT_RECOVERY_MS, refuse),
    timeoutMs: readDuration(readOption(options, "timeoutMs"), "timeoutMs", true, undefined, refuse),
    graceMs,
    forceStopMs: Math.min(graceMs + FORCE_STOP_MARGIN_MS, MAX_TIMEOUT_MS),
    signal: readSignal(readOption(options, "signal"), "signal", refuse),
    onEvent: readCallback<(event: E) => void>(readOption(options, "onEvent"), "onEvent", refuse),
    validateInputs: readFlag(readOption(options, "validateInputs")),
    toolConcurrency: readToolConcurrency(readOption(options, "toolConcurrency"), "toolConcurrency", refuse, bounds.concurrency),
  };
}
