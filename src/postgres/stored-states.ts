/**
 * The states a step has in the database: those of ../step/schedule.ts, and `retrying`, a step whose
 * failed try waits for its next one (its job waits in graphile-worker with `run_at`, so a worker that
 * dies meanwhile loses nothing). For the rules of schedule.ts a retrying step is in flight, like a
 * running one: it is not settled, and a stop ends it (with the error of its last try, as in runPlan).
 */
import { ACTIVE_STATES, type StepState } from "../step/schedule.js";

/** A step whose failed try waits to be tried again. */
export const RETRYING = "retrying";

/** A step's state as stored. */
export type StoredState = StepState | typeof RETRYING;

/** The states a worker claims a step from: still to run, or waiting to be tried again. */
export const CLAIMABLE_STATES: readonly StoredState[] = [...ACTIVE_STATES, RETRYING];

/**
 * The state the rules of schedule.ts see for a stored state.
 *
 * @example
 * ruleState("retrying") // "running"
 */
export function ruleState(state: StoredState): StepState {
  return state === RETRYING ? "running" : state;
}
