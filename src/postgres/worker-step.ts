/**
 * One step as a worker runs it, on the attempt both executors share (src/step/attempt.ts): the step's
 * record (`WorkerStep`) and the worker's side of the attempt (`WORKER_ATTEMPT`), which resolves the
 * arguments against the results the claim read, gives the tool its context, checks the result (it must
 * be storable as JSON, and match its output schema when the run asks) and hands the outcome over as
 * what is stored (`TryOutcome`, a `SettleOutcome`).
 */
import { resolveRefs } from "../resolve/resolve-refs.js";
import {
  attempt,
  checkOutput,
  endAttempt,
  idempotencyKey,
  keepsResult,
  outputSchemaOf,
  STEP_FAILURES,
  type AttemptOwner,
  type AttemptStep,
  type StepFailure,
  type ToolContext,
} from "../step/attempt.js";
import type { StepTrace } from "./step-trace.js";
import { inputFailure } from "../step/validate-input.js";
import { asksApproval } from "../step/gated.js";
import type { KnownRunInfo } from "./known-runs.js";
import { storedError } from "./stored-error.js";
import { toStorableJSON } from "../step/storable.js";
import type { SettleOutcome } from "./transitions.js";

/** How a worker's try ended: what is stored, and on a failure the attempt's own (what `afterTry` and a retry policy read). */
export type TryOutcome = Extract<SettleOutcome, { ok: true }> | FailedTry;

/** A try that failed: its stored error and, when the failure keeps it, its result; `failure` is never stored. */
export type FailedTry = Extract<SettleOutcome, { ok: false }> & { readonly failure: StepFailure };

/** What a tool run by a PostgreSQL worker receives besides its arguments. */
export interface WorkerToolContext extends ToolContext {
  /** The run the step belongs to. */
  readonly runId: string;
  /** 1 on the first try; more when the step runs again (a retry, or its worker died or was stopped before it finished). */
  readonly attempt: number;
  /** `runId:stepId`, the same on every try of the step: a key for a side effect that must happen once. */
  readonly idempotencyKey: string;
}

/** A tool as a worker calls it: `runPlan`'s tools fit (they ignore what they do not read). */
export type WorkerToolFunction = (args: Record<string, unknown>, context: WorkerToolContext) => unknown;

/** What the claim gave a worker for one try of one step. */
export interface ClaimedStep {
  readonly runId: string;
  readonly stepId: number;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly attempt: number;
  /** A person approved the step (it waited for approval): it runs without asking again. */
  readonly approved?: boolean;
  /** The results of the step's dependencies (`undefined`: the tool returned nothing). */
  readonly results: Map<number, unknown>;
  readonly known: KnownRunInfo;
}

/** A claimed step's arguments resolved against the results the claim read, with the run's language options. */
function resolveClaimed(claimed: ClaimedStep): Record<string, unknown> {
  return resolveRefs(claimed.args, claimed.results, claimed.known.language);
}

/** The abort of a step whose run was stopped or whose worker is stopping. */
const ABORTED = STEP_FAILURES.aborted("aborted with the run");

/** One try of one step on this worker. */
class WorkerStep implements AttemptStep<WorkerStep> {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  owner: AttemptOwner<WorkerStep> | undefined = WORKER_ATTEMPT;
  /** The result as JSON text, once checked storable. */
  text: string | null = null;
  done = false;
  readonly onAbort = (): void => endAttempt(this, ABORTED);

  constructor(
    readonly claimed: ClaimedStep,
    readonly signal: AbortSignal,
    readonly abort: (reason: unknown) => void,
    readonly validateInputs: boolean,
    readonly settle: (outcome: TryOutcome) => void,
    /** The try's span, when the run was submitted inside a trace. */
    readonly trace: StepTrace | undefined,
  ) {}

  get id(): number {
    return this.claimed.stepId;
  }

  get tool(): string {
    return this.claimed.tool;
  }

  get attempt(): number {
    return this.claimed.attempt;
  }
}

/** The worker's side of an attempt: everything it needs is on the step. */
const WORKER_ATTEMPT: AttemptOwner<WorkerStep> = {
  isRunning: (step) => !step.done,
  resolveArgs: (step) => resolveClaimed(step.claimed),
  contextOf: (step): WorkerToolContext => {
    const { runId, stepId, attempt: tryNumber } = step.claimed;
    return { stepId, runId, attempt: tryNumber, idempotencyKey: idempotencyKey(runId, stepId), signal: step.signal };
  },
  checkInput: (step, args) => inputFailure(step.validateInputs, step.claimed.known.catalog, step.tool, args),
  checkResult: (step, value) => {
    const text = toStorableJSON(value);
    if (!text.ok) return STEP_FAILURES.unserializable(text.reason);
    step.text = text.text;
    const { options, catalog } = step.claimed.known;
    return options.validateOutputs && catalog !== null ? checkOutput(outputSchemaOf(catalog, step.tool), value) : undefined;
  },
  ended: (step, value, failure, _later, abortReason) => {
    if (step.done) return;
    step.done = true;
    step.trace?.ended(failure);
    step.owner = undefined;
    step.signal.removeEventListener("abort", step.onAbort);
    step.settle(outcomeOf(step, failure));
    if (abortReason !== undefined) step.abort(abortReason);
  },
};

function outcomeOf(step: WorkerStep, failure: StepFailure | undefined): TryOutcome {
  if (failure === undefined) return { ok: true, result: step.text };
  return { ok: false, error: storedError(failure), ...(keepsResult(failure) ? { result: step.text } : {}), failure };
}

/**
 * Whether a claimed step waits for a person's approval instead of running (`asksApproval`: its tool is
 * one the run names in `approvalTools`, or `fn`, the worker's function of it, is marked with
 * `requireApproval`; and it was not approved), and then its arguments resolved against the
 * results the claim read, as JSON: what is stored for the person to approve (runPlan's
 * `report.pending`). `undefined`: the step runs now, also when its arguments cannot be resolved (its
 * attempt then fails it, `unresolved-args`, without calling the tool).
 *
 * @example
 * const waiting = approvalArgs(claimed, tools.get(claimed.tool)) // '{"to":"ops@example.com"}'
 */
export function approvalArgs(claimed: ClaimedStep, fn?: unknown): string | undefined {
  if (claimed.approved === true || !asksApproval(claimed.known.approvalTools, claimed.tool, fn)) return undefined;
  let args: Record<string, unknown>;
  try {
    args = resolveClaimed(claimed);
  } catch {
    return undefined;
  }
  // Values read from stored JSON (and `undefined`, a tool that returned nothing): JSON holds them.
  return JSON.stringify(args);
}

/** How a claimed step is tried (`runClaimedStep`). */
export interface ClaimedTry {
  /** The step's tool; `undefined`: this worker has no such tool. */
  readonly fn: WorkerToolFunction | undefined;
  /** The worker's tools, for the unknown tool's did-you-mean. */
  readonly toolNames: Iterable<string>;
  /** The try's limit; `undefined`: no limit. */
  readonly timeoutMs: number | undefined;
  /** Aborts the try (the run stopped, the worker stopping). */
  readonly controller: AbortController;
  readonly validateInputs: boolean;
  /** The try's span, active while the tool runs. */
  readonly trace?: StepTrace | undefined;
}

/**
 * One try of a claimed step. Never rejects.
 *
 * @example
 * const outcome = await runClaimedStep(claimed, { fn: tools.get(claimed.tool), toolNames: tools.keys(), timeoutMs: 60_000, controller: new AbortController(), validateInputs: false })
 */
export function runClaimedStep(
  claimed: ClaimedStep,
  { fn, toolNames, timeoutMs, controller, validateInputs, trace }: ClaimedTry,
): Promise<TryOutcome> {
  if (fn === undefined) {
    const failure = STEP_FAILURES.unknownTool(claimed.tool, " on this worker", toolNames);
    trace?.ended(failure);
    return Promise.resolve({ ok: false, error: storedError(failure), failure });
  }
  return new Promise<TryOutcome>((settle) => {
    const step = new WorkerStep(claimed, controller.signal, (reason) => controller.abort(reason), validateInputs, settle, trace);
    if (controller.signal.aborted) return WORKER_ATTEMPT.ended(step, undefined, ABORTED, false);
    controller.signal.addEventListener("abort", step.onAbort, { once: true });
    if (trace === undefined)
      attempt(step, fn as (args: Record<string, unknown>, context: ToolContext) => unknown, WORKER_ATTEMPT, timeoutMs);
    else trace.within(attempt, step, fn as (args: Record<string, unknown>, context: ToolContext) => unknown, WORKER_ATTEMPT, timeoutMs);
  });
}
