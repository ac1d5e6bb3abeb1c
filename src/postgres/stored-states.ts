/**
 * The states a step has in the database: those of ../step/schedule.ts, and `retrying`, a step whose
 * failed try waits for its next one (its job waits in graphile-worker with `run_at`, so a worker that
 * dies meanwhile loses nothing). For the rules of schedule.ts a retrying step is in flight, like a
 * running one: it is not settled, and a stop ends it (with the error of its last try, as in runPlan).
 */
import { ACTIVE_STATES, AWAITING_STATES, STEP_STATES, type RunStatus, type StepState } from "../step/schedule.js";
import { literal } from "./db.js";

/** A step whose failed try waits to be tried again. */
export const RETRYING = "retrying";

/** The state of a step that waits for a person's approval, as stored. */
export const AWAITING_APPROVAL = AWAITING_STATES[0];

/** A step's state as stored. */
export type StoredState = StepState | typeof RETRYING;

/** Every state a step may have in the database: schedule.ts's `STEP_STATES`, and `RETRYING`. */
export const STORED_STATES: readonly StoredState[] = [...STEP_STATES, RETRYING];

/**
 * Each stored state as an SQL literal, for the statements and PL/pgSQL functions of sql/ that write or
 * compare a step's state (`set state = ${STATE_SQL.done}`): built from `STORED_STATES`, so no statement
 * spells a state of its own (test/postgres/sql-states.test.ts reads every statement for one). These are
 * our own constants, never input: interpolating them into statement text, DDL included, is safe (and
 * `literal` quotes them all the same).
 */
export const STATE_SQL = Object.freeze(Object.fromEntries(STORED_STATES.map((state) => [state, literal(state)]))) as {
  readonly [S in StoredState]: string;
};

/**
 * States as an SQL list, for `in (…)` in a statement text (a PL/pgSQL body, an index's predicate), where
 * no parameter can be: our own constants, as `STATE_SQL`.
 *
 * @example
 * `state in (${statesSql(SETTLED_STATES)})` // state in ('done', 'failed', 'skipped')
 */
export function statesSql(states: readonly StoredState[]): string {
  return states.map((state) => STATE_SQL[state]).join(", ");
}

/** A stored run's status while it goes on (its final ones are schedule.ts's `RunStatus`). */
export const RUNNING_RUN = "running";

/** A stored run's status: `RUNNING_RUN`, or a final one. */
export type StoredRunStatus = RunStatus | typeof RUNNING_RUN;

/** `RUNNING_RUN` as an SQL literal, for the statements that look for running runs or make a run running again. */
export const RUNNING_RUN_SQL = literal(RUNNING_RUN);

/**
 * Which attempt of which step a write is for: only the attempt that holds the step (its stored
 * `attempt`, while the step runs) writes its outcome.
 */
export interface StepAttempt {
  readonly runId: string;
  readonly stepId: number;
  readonly attempt: number;
}

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
