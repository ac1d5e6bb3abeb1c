/**
 * `runPlan`'s side of each try of a step, the owner that `attempt` reports to (src/step/attempt.ts):
 * the step's arguments, resolved once into a copy of its snapshot; the context its tool gets; the input and
 * output checks; and, when a try fails and its tool's retry policy says so, the wait before the next
 * try (a timer on the record, holding no concurrency slot), as `afterTry` decides. What an outcome
 * does to the run is the scheduler's (run-plan.ts).
 */
import { clearAttemptTimer, type AttemptOwner, type StepFailure, type ToolContext } from "../step/attempt.js";
import type { RunLanguage } from "../step/prepare.js";
import { afterTry, type AfterTry } from "../step/after-try.js";
import type { RunLedger } from "./run-report.js";
import type { RunTools } from "./run-tools.js";
import { retryPolicyOf } from "../step/settings.js";
import { type RunSettings } from "./run-options.js";
import { StepContext, type StepRecord } from "./step-record.js";
import type { RunTrace } from "../step/tracing.js";
import { checksInputs, inputFailure } from "../step/validate-input.js";

/** What the tries need of the scheduler they belong to. */
export interface TriesScheduler {
  /** The run stopped or is over: a failed try is not tried again, and a wait that ends does nothing. */
  readonly stopped: boolean;
  /** How a try ended (`AttemptOwner.ended`). */
  ended(record: StepRecord, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void;
  /** A step's wait is over: it is ready again, in turn with the other ready steps. */
  readyAgain(record: StepRecord): void;
  /** An error of plan-refs' own in a timer or a promise job: the run ends. */
  fatal(error: unknown): void;
}

/** The tries of one run's steps. */
export class StepTries<S extends TriesScheduler = TriesScheduler> implements AttemptOwner<StepRecord> {
  /** Steps waiting to be tried again. */
  waiting = 0;
  /** Whether each try's arguments are checked (`validateInputs`), decided once per run, not per try. */
  readonly #checksInputs: boolean;

  constructor(
    readonly scheduler: S,
    readonly settings: RunSettings,
    readonly language: RunLanguage,
    readonly tools: RunTools,
    readonly ledger: RunLedger,
    readonly trace: RunTrace | undefined,
  ) {
    this.#checksInputs = checksInputs(settings.validateInputs, false);
  }

  isRunning(record: StepRecord): boolean {
    return record.state === "running" && record.retryFailure === undefined;
  }

  /**
   * The step's arguments, its placeholders resolved into a copy of its snapshot (kept as linted, for
   * the plan's hash), once: the results it reads do not change between its approval and its tries.
   * What resolving threw is thrown again.
   */
  #resolved(record: StepRecord): Record<string, unknown> {
    if (record.unresolved !== undefined) throw record.unresolved.error;
    if (!record.resolved) {
      record.args = this.language.resolve(record.args!, record.placeholders, this.ledger.lookup);
      record.resolved = true;
    }
    return record.args!;
  }

  /**
   * The resolved arguments of a step asked about before its first try, or `undefined` when they cannot
   * be resolved: the error is kept, and its try fails with it without calling the tool (a copy
   * resolved in place may be half resolved, so it is never resolved again).
   */
  resolvedForApproval(record: StepRecord): Record<string, unknown> | undefined {
    try {
      return this.#resolved(record);
    } catch (error) {
      record.unresolved = { error };
      record.args = undefined;
      return undefined;
    }
  }

  resolveArgs(record: StepRecord): Record<string, unknown> {
    // A step that may be tried again keeps its resolved arguments and gives each try a copy of their
    // top level (a tool may set or delete its arguments), so every try gets the arguments the plan
    // gave; nested values are shared (a deep copy per step tripled the run's time).
    let args = this.#resolved(record);
    const policy = retryPolicyOf(this.settings, record.tool);
    if (policy === undefined || policy.attempts <= 1)
      record.args = undefined; // let go of the arguments once resolved
    else args = { ...args };
    if (record.span !== undefined) this.trace!.arguments(record, args);
    return args;
  }

  contextOf(record: StepRecord): ToolContext {
    return new StepContext(record, this.settings.runId);
  }

  checkInput(record: StepRecord, args: Record<string, unknown>): StepFailure | undefined {
    return this.#checksInputs ? inputFailure(true, this.tools.catalog, record.tool, args) : undefined;
  }

  checkResult(record: StepRecord, value: unknown): StepFailure | undefined {
    return this.settings.validateOutputs ? this.tools.checkOutput(record.tool, value) : undefined;
  }

  ended(record: StepRecord, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void {
    this.scheduler.ended(record, value, failure, later, abortReason);
  }

  /**
   * What becomes of the step after a try (`afterTry`, the rule the workers apply too; a stopped run
   * tries nothing again): when it is tried again, it waits here, told as a `step-retry` event.
   */
  afterTry(record: StepRecord, failure: StepFailure | undefined, endMs: number): AfterTry {
    const after = afterTry(
      failure,
      failure === undefined || this.scheduler.stopped ? undefined : retryPolicyOf(this.settings, record.tool),
      record.attempt,
    );
    if (after.next === "retry") {
      record.retryFailure = after.failure;
      record.retryEndMs = endMs;
      this.waiting++;
      record.timer = setTimeout(retryNow, after.delayMs, record);
      this.ledger.markRetrying(record, after.failure, after.attempts, after.delayMs, endMs);
    }
    return after;
  }

  /** A step's wait is over. */
  wake(record: StepRecord): void {
    record.timer = undefined;
    if (record.retryFailure === undefined || this.scheduler.stopped) return;
    record.retryFailure = undefined;
    this.waiting--;
    // A fresh signal for the next try: the failed one's was aborted (a timeout) after the failure was recorded.
    record.controller = undefined;
    record.abortReason = undefined;
    this.scheduler.readyAgain(record);
  }

  /** A stop cancels a step's wait: what its last try failed with is its failure. */
  cancel(record: StepRecord): StepFailure {
    clearAttemptTimer(record);
    this.waiting--;
    return record.retryFailure!;
  }
}

/**
 * Reach a run's tries through a step's record from a timer or a promise job (nothing may escape
 * them: what `act` throws ends the run); a run that let go of the record is over.
 */
export function reachTries<S extends TriesScheduler>(record: StepRecord, act: (tries: StepTries<S>) => void): void {
  const tries = record.owner as StepTries<S> | undefined;
  if (tries === undefined) return;
  try {
    act(tries);
  } catch (error) {
    tries.scheduler.fatal(error);
  }
}

/** A retry timer's callback. */
function retryNow(record: StepRecord): void {
  reachTries(record, (tries) => tries.wake(record));
}
