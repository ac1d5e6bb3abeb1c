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
import { ownData } from "../shared/own-data.js";
import { handled } from "./callbacks.js";
import { resolveOutput } from "../step/plan-output.js";
import { isAwaitingApproval, type RunStatus, type StepState } from "../step/schedule.js";
import type { RunEvent, RunOptions, RunSettings } from "./run-options.js";
import { StepError } from "../step/step-error.js";
import type { StepRecord } from "./step-record.js";
import type { RunTrace } from "../step/tracing.js";
import type { PendingStep, RunReport, StepTiming } from "../step/report.js";

/** The report objects `RunLedger.report` made, whose getters are plan-refs' own (`reportField`). */
const LEDGER_MADE = new WeakSet<object>();

/**
 * A field of a run's report (or of its `timings`) read as own data, a getter never run (`undefined`
 * then, and where a Proxy's trap throws), as anything a caller hands in is read; but a report
 * `runPlan` made has fields made when first read (its `planHash`, `timings.steps`, `attempts`: getters
 * of plan-refs' own), and those are read.
 *
 * @example
 * reportField(reportField(report, "timings"), "steps") // the Map of step timings
 */
export function reportField(container: unknown, key: string): unknown {
  if (typeof container === "object" && container !== null && LEDGER_MADE.has(container)) return (container as Record<string, unknown>)[key];
  try {
    return ownData(container, key);
  } catch {
    return undefined; // a Proxy's trap threw: no such field
  }
}

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

  /**
   * The timing of every step that started (and so ended: by settling, or when the run stopped), by id;
   * `ids[slot]`: the id of the step in each slot, in plan order.
   */
  timings(ids: Float64Array): Map<number, StepTiming> {
    const timings = new Map<number, StepTiming>();
    const times = this.#times;
    for (let slot = 0; slot < ids.length; slot++) {
      const startMs = times[2 * slot]!;
      const endMs = times[2 * slot + 1]!;
      if (!Number.isNaN(endMs)) timings.set(ids[slot]!, { startMs, endMs, durationMs: endMs - startMs });
    }
    return timings;
  }
}

/**
 * What a report's step timings and tries are made from when they are first read: each slot's step id
 * and tries, and the run's times (nothing writes them once the run is over). Numbers in typed arrays:
 * a report kept unread holds no record of the run.
 */
class StepFacts {
  readonly #ids: Float64Array;
  readonly #attempts: Int32Array;
  #timings: Map<number, StepTiming> | undefined;
  #tries: Map<number, number> | undefined;

  readonly #times: StepTimes;

  constructor(records: readonly StepRecord[], times: StepTimes) {
    this.#times = times;
    this.#ids = new Float64Array(records.length);
    this.#attempts = new Int32Array(records.length);
    for (let slot = 0; slot < records.length; slot++) {
      const record = records[slot]!;
      this.#ids[slot] = record.id;
      this.#attempts[slot] = record.attempt;
    }
  }

  get timings(): Map<number, StepTiming> {
    return (this.#timings ??= this.#times.timings(this.#ids));
  }

  /** How many times each step that started was tried, in plan order. */
  get attempts(): Map<number, number> {
    if (this.#tries === undefined) {
      const tries = new Map<number, number>();
      for (let slot = 0; slot < this.#ids.length; slot++) if (this.#attempts[slot]! > 0) tries.set(this.#ids[slot]!, this.#attempts[slot]!);
      this.#tries = tries;
    }
    return this.#tries;
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
   * The plan's hash (`planHash`: made when first called), the steps' timings and their tries are made
   * when first read: most callers never read them, and on 10,000 steps they were a fifth of a run. They
   * are made from what no one changes once the run is over (`StepFacts`).
   */
  report(
    status: RunStatus,
    planHash: string | (() => string),
    records: readonly StepRecord[],
    output: Readonly<Record<string, unknown>> | RefError | undefined,
    language: NormalizedOptions,
  ): RunReport {
    this.trace?.end(status, records.length);
    const totalMs = this.now();
    if (this.pending.size > 0)
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        if (record.attempt === 0 && isAwaitingApproval(record.state)) this.times.end(record.slot, totalMs);
      }
    const facts = new StepFacts(records, this.times);
    const timings = {
      totalMs,
      get steps(): Map<number, StepTiming> {
        return facts.timings;
      },
    };
    LEDGER_MADE.add(timings);
    const report: RunReport = {
      runId: this.settings.runId,
      status,
      get planHash(): string {
        return typeof planHash === "string" ? planHash : planHash();
      },
      results: this.results,
      errors: this.errors,
      skipped: this.skipped,
      diagnostics: this.diagnostics,
      timings,
      get attempts(): Map<number, number> {
        return facts.attempts;
      },
      ...(this.#tries.size === 0 ? {} : { attemptTimes: this.#attemptTimes(timings.steps) }),
      ...(output === undefined || status === "invalid" ? {} : resolveOutput(output, this.lookup, this.errors, this.skipped, language)),
      pending: this.pending,
      reused: this.reused,
    };
    LEDGER_MADE.add(report);
    return report;
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
