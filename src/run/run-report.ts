/**
 * `runPlan`'s report (its shape, `RunReport`, is both executors': src/step/report.ts): the
 * ledger that records it while the run goes, and the step times it is made from, kept by slot in one
 * typed array (a number there costs no allocation; a timing object is made per step only when the
 * report is made).
 */
import type { Diagnostic } from "../shared/diagnostic.js";
import type { RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import type { StepFailure } from "../step/attempt.js";
import { handled } from "./callbacks.js";
import { resolveOutput } from "../step/plan-output.js";
import { isAwaitingApproval, type RunStatus, type StepState } from "../step/schedule.js";
import type { RunEvent, RunOptions, RunSettings } from "./run-options.js";
import { StepError } from "../step/step-error.js";
import type { StepRecord } from "./step-record.js";
import type { RunTrace } from "../step/tracing.js";
import type { PendingStep, RunReport, StepTiming } from "../step/report.js";

/** Start and end of each step by its slot (2 × slot, 2 × slot + 1), in ms since scheduling began; NaN until set. */
export class StepTimes {
  #times = new Float64Array(0);

  /** Room for the times of at least `slots` steps. */
  reserve(slots: number): void {
    if (2 * slots <= this.#times.length) return;
    const times = new Float64Array(Math.max(2 * slots, 2 * this.#times.length, 16)).fill(Number.NaN);
    times.set(this.#times);
    this.#times = times;
  }

  start(slot: number, ms: number): void {
    this.#times[2 * slot] = ms;
  }

  end(slot: number, ms: number): void {
    this.#times[2 * slot + 1] = ms;
  }

  startOf(slot: number): number {
    return this.#times[2 * slot]!;
  }

  /** The timing of every step that started (and so ended: by settling, or when the run stopped), in the order given. */
  timings(steps: readonly { readonly id: number; readonly slot: number }[]): Map<number, StepTiming> {
    const timings = new Map<number, StepTiming>();
    const times = this.#times;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const startMs = times[2 * step.slot]!;
      const endMs = times[2 * step.slot + 1]!;
      if (!Number.isNaN(endMs)) timings.set(step.id, { startMs, endMs, durationMs: endMs - startMs });
    }
    return timings;
  }
}

/**
 * What a run records of its steps while it goes, and tells as it records it (the `onEvent` events,
 * the span events): results, errors, skipped, waiting and reused steps, each step's times; and the
 * report made of them. The one place a step is marked done, failed, skipped, pending or reused.
 */
export class RunLedger {
  readonly results = new Map<number, unknown>();
  /**
   * What references resolve against: the results, and in a session the earlier plans' kept results
   * too (those are no results of this run: the report leaves them out).
   */
  readonly lookup: Map<number, unknown>;
  readonly errors = new Map<number, StepError>();
  readonly skipped: number[] = [];
  readonly diagnostics: Diagnostic[] = [];
  /** Steps waiting for approval, in the order their turn came. */
  readonly pending = new Map<number, PendingStep>();
  /** Steps whose result came from the previous report (a resume). */
  readonly reused: number[] = [];
  /** The tries of each retried step: start and end (NaN until it ends) of each. */
  readonly #tries = new Map<number, { startMs: number; endMs: number }[]>();
  /** Each step's start and end (a timing object per step is made only for the report). */
  readonly times = new StepTimes();
  /** Steps in state `waiting` (when none is left at the end, there is nothing to fail as stuck). */
  waiting = 0;
  /** When scheduling began: lint and schema compilation happen before it. */
  #started = performance.now();

  constructor(
    readonly settings: RunSettings,
    /** The caller's options object: only `this` for `onEvent`, never read again. */
    readonly options: RunOptions,
    /** The run's spans, when it is traced. */
    readonly trace: RunTrace | undefined,
    /** Results of earlier plans of the run's session, by step id. */
    earlier?: ReadonlyMap<number, unknown>,
  ) {
    this.lookup = earlier === undefined || earlier.size === 0 ? this.results : new Map(earlier);
  }

  /** A step's result: in the report, and for the references that follow. */
  setResult(id: number, value: unknown): void {
    this.results.set(id, value);
    if (this.lookup !== this.results) this.lookup.set(id, value);
  }

  /** Scheduling begins: step times count from now. */
  startClock(): void {
    this.#started = performance.now();
  }

  now(): number {
    return performance.now() - this.#started;
  }

  /** Change a step's state, counting the steps that wait. */
  setState(record: StepRecord, state: StepState): void {
    if (record.state === "waiting") this.waiting--;
    record.state = state;
  }

  /** A try begins: its time is the step's start on the first try, told as `step-start`. */
  markStarted(record: StepRecord): void {
    const startMs = this.now();
    if (record.attempt === 1) this.times.start(record.slot, startMs);
    else this.#tries.get(record.id)?.push({ startMs, endMs: Number.NaN });
    if (this.settings.onEvent !== undefined) this.emit({ type: "step-start", stepId: record.id, tool: record.tool, startMs });
  }

  markDone(record: StepRecord, endMs: number): void {
    record.state = "done";
    if (this.settings.onEvent !== undefined) {
      const startMs = this.times.startOf(record.slot);
      this.emit({ type: "step-done", stepId: record.id, tool: record.tool, startMs, endMs, durationMs: endMs - startMs });
    }
  }

  /** The one way a step becomes failed: its error kept and told; one that ran has `endMs` (its start is recorded). */
  markFailed(record: StepRecord, failure: StepFailure, endMs?: number): void {
    this.setState(record, "failed");
    const error = new StepError(failure.code, record.id, record.tool, failure.detail, failure.cause);
    this.errors.set(record.id, error);
    if (this.trace !== undefined && record.attempt === 0) this.trace.event("plan_refs.step.failed", record, { "error.type": failure.code });
    if (this.settings.onEvent !== undefined) {
      const end = endMs ?? this.now();
      const start = endMs === undefined ? end : this.times.startOf(record.slot);
      this.emit({ type: "step-failed", stepId: record.id, tool: record.tool, error, startMs: start, endMs: end, durationMs: end - start });
    }
  }

  /** The one way a step becomes skipped: blocked by a step (told as an event), or `undefined` when the run stopped first. */
  markSkipped(record: StepRecord, blockedBy: number | undefined): void {
    this.setState(record, "skipped");
    this.skipped.push(record.id);
    if (this.trace !== undefined)
      this.trace.event("plan_refs.step.skipped", record, blockedBy === undefined ? {} : { "plan_refs.step.blocked_by": blockedBy });
    if (blockedBy !== undefined && this.settings.onEvent !== undefined)
      this.emit({ type: "step-skipped", stepId: record.id, tool: record.tool, blockedBy, atMs: this.now() });
  }

  /** The step waits for approval with its resolved arguments: what a person has to approve. */
  markAwaitingApproval(record: StepRecord, args: Record<string, unknown>): void {
    record.state = "awaiting-approval";
    this.pending.set(record.id, { tool: record.tool, args });
    if (this.settings.onEvent !== undefined)
      this.emit({ type: "step-awaiting-approval", stepId: record.id, tool: record.tool, args, atMs: this.now() });
  }

  /** A resumed step: done with the previous run's result, its tool not called. */
  markReused(record: StepRecord, result: unknown): void {
    this.setState(record, "done");
    this.setResult(record.id, result);
    this.reused.push(record.id);
  }

  /** A try failed and the step is tried again after `delayMs` (of the policy's `attempts` tries). */
  markRetrying(record: StepRecord, failure: StepFailure, attempts: number, delayMs: number, atMs: number): void {
    const tries = this.#tries.get(record.id);
    if (tries === undefined) this.#tries.set(record.id, [{ startMs: this.times.startOf(record.slot), endMs: atMs }]);
    else tries[tries.length - 1]!.endMs = atMs;
    if (this.settings.onEvent === undefined) return;
    const error = new StepError(failure.code, record.id, record.tool, failure.detail, failure.cause);
    this.emit({ type: "step-retry", stepId: record.id, tool: record.tool, attempt: record.attempt, attempts, delayMs, error, atMs });
  }

  emit(event: RunEvent): void {
    try {
      handled(this.settings.onEvent!.call(this.options, event));
    } catch {
      // A broken progress listener must not break the run.
    }
  }

  /**
   * The report: results, errors, skipped steps and diagnostics as they are, the timing of every step
   * that started (in plan order; a pending step's is the time it waited), and the plan's output.
   */
  report(
    status: RunStatus,
    planHash: string,
    records: readonly StepRecord[],
    output: Readonly<Record<string, unknown>> | RefError | undefined,
    language: NormalizedOptions,
  ): RunReport {
    this.trace?.end(status, records.length);
    const attempts = new Map<number, number>();
    const now = this.now();
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.attempt > 0) attempts.set(record.id, record.attempt);
      else if (isAwaitingApproval(record.state)) this.times.end(record.slot, now);
    }
    const timings = this.times.timings(records);
    return {
      runId: this.settings.runId,
      status,
      planHash,
      results: this.results,
      errors: this.errors,
      skipped: this.skipped,
      diagnostics: this.diagnostics,
      timings: { totalMs: this.now(), steps: timings },
      attempts,
      ...(this.#tries.size === 0 ? {} : { attemptTimes: this.#attemptTimes(timings) }),
      ...(output === undefined || status === "invalid" ? {} : resolveOutput(output, this.lookup, this.errors, this.skipped, language)),
      pending: this.pending,
      reused: this.reused,
    };
  }

  /** Each retried step's tries, the last ending with the step (or, if it never ended, where it stood). */
  #attemptTimes(timings: ReadonlyMap<number, StepTiming>): Map<number, readonly StepTiming[]> {
    const all = new Map<number, readonly StepTiming[]>();
    for (const [id, tries] of this.#tries) {
      const stepEnd = timings.get(id)?.endMs;
      all.set(
        id,
        tries.map(({ startMs, endMs }) => {
          const end = Number.isNaN(endMs) ? (stepEnd ?? startMs) : endMs;
          return { startMs, endMs: end, durationMs: end - startMs };
        }),
      );
    }
    return all;
  }
}
