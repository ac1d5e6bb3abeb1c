/**
 * The rules of a run, in one place: which steps can start, whom a failure skips, what stopping a run
 * (an abort, or `failFast` after a failure) does to each step, and a run's final status. `runPlan`
 * (one process) and the PostgreSQL workers of `plan-refs/postgres` (many processes, the states in the
 * database) both decide with these functions, so the two executors cannot drift apart. Pure functions:
 * they read states through the accessors they are given and change nothing themselves.
 */
import type { Diagnostic } from "../shared/diagnostic.js";

/**
 * Where a step is in a run. `awaiting-approval`: its turn came and it needs a person's approval (its
 * tool not called; the PostgreSQL workers store it so, `runPlan` keeps it in `report.pending`).
 */
export type StepState = "waiting" | "ready" | "running" | "done" | "failed" | "skipped" | "awaiting-approval";

/**
 * The state lists of the rules below, for the PostgreSQL workers' SQL (which applies the rules to
 * states in the database): each is the list of states its predicate holds for, and a test checks
 * that each list and its predicate agree.
 */
export const STEP_STATES = [
  "waiting",
  "ready",
  "running",
  "done",
  "failed",
  "skipped",
  "awaiting-approval",
] as const satisfies readonly StepState[];
// A state added to StepState and not to STEP_STATES fails the typecheck.
const EVERY_STATE: Exclude<StepState, (typeof STEP_STATES)[number]> extends never ? true : never = true;
void EVERY_STATE;
/** The states `isSettled` holds for. */
export const SETTLED_STATES = ["done", "failed", "skipped"] as const satisfies readonly StepState[];
/** The state a step becomes ready from (`isReady`'s own state). */
export const READY_FROM_STATES = ["waiting"] as const satisfies readonly StepState[];
/** The states of a dependency that let its dependent start (`isReady`'s dependency rule). */
export const LETS_START_STATES = ["done"] as const satisfies readonly StepState[];
/** The states of a step still to be run by a worker: queued, or running (run again if its worker dies). */
export const ACTIVE_STATES = ["ready", "running"] as const satisfies readonly StepState[];
/** The states `isAwaitingApproval` holds for: not settled, not active, kept by a stop. */
export const AWAITING_STATES = ["awaiting-approval"] as const satisfies readonly StepState[];

/**
 * The names of step events, one list for both executors: `runPlan`'s `RunEvent` (its `onEvent`) and
 * the workers' `WorkerEvent` name each event from here, and the typecheck fails on a name outside it.
 * A step that waits for a person is `step-awaiting-approval` in both, as its state is `awaiting-approval`.
 * Only the workers have `step-released`, `step-lost` and `workers-recovered`; only `runPlan` has
 * `step-skipped` (a worker's skips happen in the database, in the settle).
 */
export const STEP_EVENT_TYPES = [
  "step-start",
  "step-done",
  "step-failed",
  "step-skipped",
  "step-retry",
  "step-awaiting-approval",
  "step-released",
  "step-lost",
  "workers-recovered",
] as const;

/** The name of a step event (`STEP_EVENT_TYPES`). */
export type StepEventType = (typeof STEP_EVENT_TYPES)[number];

/** A run's final status (`invalid`: lint errors, nothing ran; `suspended`: steps wait for approval). */
export type RunStatus = "ok" | "failed" | "aborted" | "invalid" | "suspended";

/** Why a run stopped early: its signal (or `cancelRun`), or a failure with `failFast`. */
export type StopReason = "aborted" | "failed";

/** The detail of the `aborted` error of a step that was running when the run stopped. */
export function stopDetail(reason: StopReason): string {
  return reason === "aborted" ? "aborted with the run" : "aborted because another step failed (failFast)";
}

/**
 * What stopping a run does to a step in this state: a running step fails (`abort`: code `aborted`,
 * its signal aborted), a step that has not started is skipped, a finished one stays as it is, and so
 * does one waiting for approval.
 *
 * @example
 * onStop("running") // "abort"
 */
export function onStop(state: StepState): "abort" | "skip" | "keep" {
  if (state === "running") return "abort";
  if (state === "waiting" || state === "ready") return "skip";
  return "keep";
}

/**
 * Whether a step waits for a person's approval: nothing happens to it (nor to what waits on it) until
 * someone approves or denies it, and a stop keeps it waiting (the report still says what to approve).
 */
export function isAwaitingApproval(state: StepState): boolean {
  return state === "awaiting-approval";
}

/**
 * A run's status once nothing more can happen in it by itself, or `undefined` while it goes on: a step
 * is ready or running, or one waits and nothing waits for approval (so what it waits on still runs).
 * Steps waiting for approval, and those waiting on them, do not keep a run going: it is `suspended`
 * (or, when it was stopped, `aborted` or `failed` with them still waiting).
 *
 * @example
 * endedStatus(["done", "awaiting-approval", "waiting"], undefined, []) // "suspended"
 */
export function endedStatus(
  states: Iterable<StepState>,
  stopped: StopReason | undefined,
  diagnostics: readonly Diagnostic[],
): RunStatus | undefined {
  let failures = 0;
  let pending = 0;
  let waiting = 0;
  for (const state of states) {
    if (state === "failed") failures++;
    else if (isAwaitingApproval(state)) pending++;
    else if (state === "waiting") waiting++;
    else if (!isSettled(state)) return undefined;
  }
  if (waiting > 0 && pending === 0) return undefined;
  return runStatus(stopped, failures, diagnostics, pending);
}

/** Whether a step in this state is finished (nothing more will happen to it). */
export function isSettled(state: StepState): boolean {
  return state === "done" || state === "failed" || state === "skipped";
}

/**
 * Skip, transitively and breadth first, every step still waiting on `from` (which failed or was
 * skipped). `dependentsOf` lists the steps that depend on a step; `skip(step, blockedBy)` skips one
 * step if it is still waiting and says whether it did (a step is skipped once, even in a diamond).
 * No recursion: a chain of any length is fine.
 */
export function skipDependents<T>(
  from: T,
  dependentsOf: (step: T) => readonly T[] | undefined,
  skip: (step: T, blockedBy: T) => boolean,
): void {
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const blocker = queue[i]!;
    const dependents = dependentsOf(blocker);
    if (dependents === undefined) continue;
    for (let j = 0; j < dependents.length; j++) {
      const dependent = dependents[j]!;
      if (skip(dependent, blocker)) queue.push(dependent);
    }
  }
}

/**
 * A step becomes ready when it waits and every step it depends on is done. (The PostgreSQL workers
 * apply it in SQL, to the states for which this function says yes: see src/postgres/transitions.ts.)
 */
export function isReady(state: StepState, dependencies: readonly number[], stateOf: (id: number) => StepState | undefined): boolean {
  if (state !== "waiting") return false;
  for (let i = 0; i < dependencies.length; i++) if (stateOf(dependencies[i]!) !== "done") return false;
  return true;
}

/**
 * The final status: `aborted` when the run's signal stopped it, else `suspended` when steps wait for
 * approval (`pending`) and the run was not stopped, else `failed` when a step failed or a diagnostic
 * is an error, else `ok`.
 *
 * @example
 * runStatus(undefined, 0, []) // "ok"
 * runStatus(undefined, 1, [], 2) // "suspended": a failure does not end a run that waits for approval
 */
export function runStatus(stopped: StopReason | undefined, failures: number, diagnostics: readonly Diagnostic[], pending = 0): RunStatus {
  if (stopped === "aborted") return "aborted";
  if (pending > 0 && stopped === undefined) return "suspended";
  return failures > 0 || diagnostics.some((diagnostic) => diagnostic.severity === "error") ? "failed" : "ok";
}

/** One step of a plan graph: its id and the ids of the steps it references. */
export interface GraphStep {
  readonly id: number;
  readonly dependencies: readonly number[];
}

/** A whole plan's graph, for an executor that keeps states outside (the PostgreSQL workers). */
export interface ScheduleGraph {
  /** Step ids in plan order. */
  readonly order: readonly number[];
  readonly dependenciesOf: ReadonlyMap<number, readonly number[]>;
  readonly dependentsOf: ReadonlyMap<number, readonly number[]>;
}

/**
 * The graph of a plan's steps (dependents in plan order).
 *
 * @example
 * scheduleGraph([{ id: 1, dependencies: [] }, { id: 2, dependencies: [1] }]).dependentsOf.get(1) // [2]
 */
export function scheduleGraph(steps: readonly GraphStep[]): ScheduleGraph {
  const order: number[] = [];
  const dependenciesOf = new Map<number, readonly number[]>();
  const dependentsOf = new Map<number, number[]>();
  for (const step of steps) {
    order.push(step.id);
    dependenciesOf.set(step.id, step.dependencies);
    for (const dependency of step.dependencies) {
      const list = dependentsOf.get(dependency);
      if (list === undefined) dependentsOf.set(dependency, [step.id]);
      else if (!list.includes(step.id)) list.push(step.id);
    }
  }
  return { order, dependenciesOf, dependentsOf };
}

/** The steps a failure (or a skip) of `from` skips, each with the step that blocked it, breadth first. */
export function dependentsToSkip(
  graph: ScheduleGraph,
  from: number,
  states: ReadonlyMap<number, StepState>,
): { readonly id: number; readonly blockedBy: number }[] {
  const skipped: { id: number; blockedBy: number }[] = [];
  const seen = new Set<number>();
  skipDependents(
    from,
    (id) => graph.dependentsOf.get(id),
    (id, blockedBy) => {
      if (states.get(id) !== "waiting" || seen.has(id)) return false;
      seen.add(id);
      skipped.push({ id, blockedBy });
      return true;
    },
  );
  return skipped;
}
