/**
 * What `runPlan` keeps of each step while a run goes: its record (snapshot, place in the graph, state,
 * timer and lazily made signal), the context its tool receives, and the run's index of records by id.
 */
import {
  clearAttemptTimer,
  idempotencyKey,
  type AttemptOwner,
  type AttemptStep,
  type StepFailure,
  type ToolContext,
  type ToolFunction,
} from "../step/attempt.js";
import type { StepState } from "../step/schedule.js";
import type { TraceSpan, TracedStep } from "../step/tracing.js";

/** One step of a run: its snapshot, its place in the graph, and its state. */
export class StepRecord implements AttemptStep<StepRecord>, TracedStep {
  /** The states of both executors (`awaiting-approval`: its tool not called, it is in `report.pending`). */
  state: StepState = "waiting";
  /** Dependencies not done yet. */
  pending = 0;
  /** Steps waiting on this one (released when it completes, fails or is skipped). */
  dependents: StepRecord[] | undefined = undefined;
  /** The tool's function, looked up once (set when the step can run). */
  fn: ToolFunction | undefined = undefined;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** What few steps need (a signal read, an abort, a retry, arguments that cannot be resolved): made on first use. */
  #rare: RareStepState | undefined = undefined;
  /** Tries started (1 on the first). */
  attempt = 0;
  /** `args` holds the resolved arguments (kept from the approval question for the try, and for every try of a step that may be tried again). */
  resolved = false;
  /** The span of the try that runs, in a traced run. */
  span: TraceSpan | undefined = undefined;

  readonly id: number;
  readonly tool: string;
  /** The snapshot of the step's arguments (never the caller's object), then its resolved copy; let go once a try has it. */
  args: Record<string, unknown> | undefined;

  /**
   * `step`: its id, tool and the snapshot of its arguments (read from the step the run adds: no object
   * is made for the call).
   */
  constructor(
    step: { readonly id: number; readonly tool: string; readonly args: Readonly<Record<string, unknown>> },
    /** Where its start and end times are kept in the run's `#times` (numbers there cost no allocation). */
    readonly slot: number,
    /** How many placeholders are resolved into the snapshot, or `THROUGH_RESOLVE_REFS` (see `PreparedStep`). */
    readonly placeholders: number,
    readonly dependencies: readonly number[],
    /** The run, until its report is returned: a tool that settles later (or never) holds only this record. */
    public owner: AttemptOwner<StepRecord> | undefined,
  ) {
    this.id = step.id;
    this.tool = step.tool;
    this.args = step.args;
  }
  /** Made when the tool first reads `context.signal` (most never do, and a controller is costly). */
  get controller(): AbortController | undefined {
    return this.#rare?.controller;
  }

  set controller(controller: AbortController | undefined) {
    if (controller !== undefined || this.#rare !== undefined) StepRecord.#rareOf(this).controller = controller;
  }

  /** Set when the step is aborted before its tool read the signal: the signal is made aborted. */
  get abortReason(): { readonly reason: unknown } | undefined {
    return this.#rare?.abortReason;
  }

  set abortReason(abortReason: { readonly reason: unknown } | undefined) {
    if (abortReason !== undefined || this.#rare !== undefined) StepRecord.#rareOf(this).abortReason = abortReason;
  }

  /** While the step waits to be tried again: what its last try failed with (its error if the wait is cancelled). */
  get retryFailure(): StepFailure | undefined {
    return this.#rare?.retryFailure;
  }

  set retryFailure(retryFailure: StepFailure | undefined) {
    if (retryFailure !== undefined || this.#rare !== undefined) StepRecord.#rareOf(this).retryFailure = retryFailure;
  }

  /** When its last try ended (the step's end if the wait is cancelled). */
  get retryEndMs(): number {
    return this.#rare?.retryEndMs ?? 0;
  }

  set retryEndMs(retryEndMs: number) {
    StepRecord.#rareOf(this).retryEndMs = retryEndMs;
  }

  /** What resolving the arguments threw when the step was asked about (its try fails with it). */
  get unresolved(): { readonly error: unknown } | undefined {
    return this.#rare?.unresolved;
  }

  set unresolved(unresolved: { readonly error: unknown } | undefined) {
    if (unresolved !== undefined || this.#rare !== undefined) StepRecord.#rareOf(this).unresolved = unresolved;
  }

  // Static: a private instance method would give every record one more field (its class brand).
  static #rareOf(record: StepRecord): RareStepState {
    return (record.#rare ??= new RareStepState());
  }
}

/**
 * The part of a step's state that few steps need, out of `StepRecord` (each field there costs 8 bytes
 * on every step of every run: on 10,000 steps these took 0.4 MB the collector had to trace).
 */
class RareStepState {
  controller: AbortController | undefined = undefined;
  abortReason: { readonly reason: unknown } | undefined = undefined;
  retryFailure: StepFailure | undefined = undefined;
  retryEndMs = 0;
  unresolved: { readonly error: unknown } | undefined = undefined;
}

/** The steps waiting on a record, handed over once (the skip walk of `schedule.ts` visits each blocker once). */
export function takeDependents(record: StepRecord): StepRecord[] | undefined {
  const dependents = record.dependents;
  record.dependents = undefined;
  return dependents;
}

/** Abort a step's signal, or remember the reason for when the tool first reads it. */
export function abortStep(record: StepRecord, reason: unknown): void {
  if (record.controller !== undefined) record.controller.abort(reason);
  else record.abortReason ??= { reason };
}

/** The step's signal, made on first use (already aborted if the step was). */
function signalOf(record: StepRecord): AbortSignal {
  if (record.controller === undefined) {
    record.controller = new AbortController();
    if (record.abortReason !== undefined) record.controller.abort(record.abortReason.reason);
  }
  return record.controller.signal;
}

/** The abort reason of a signal first read after its try was over. */
const STALE_TRY = "this try of the step is over";

/** What a tool gets as its context: the signal is made only if the tool reads it. */
export class StepContext implements ToolContext {
  readonly stepId: number;
  readonly attempt: number;
  readonly #record: StepRecord;
  readonly #runId: string;
  #signal: AbortSignal | undefined;

  constructor(record: StepRecord, runId: string) {
    this.stepId = record.id;
    this.attempt = record.attempt;
    this.#record = record;
    this.#runId = runId;
  }

  /** Made when read (most tools never do). */
  get idempotencyKey(): string {
    return idempotencyKey(this.#runId, this.stepId);
  }

  get signal(): AbortSignal {
    // Kept once read: a later try of the step has a signal of its own. A try that ended before its
    // tool first read the signal sees it aborted.
    if (this.#signal === undefined)
      this.#signal = this.attempt === this.#record.attempt ? signalOf(this.#record) : AbortSignal.abort(STALE_TRY);
    return this.#signal;
  }
}

/** Ids below this are kept in an array (a plan's ids are usually 0 or 1 to n); larger ones in a Map. */
const DENSE_IDS = 1 << 20;

/** The run's step records by id, and in the order they were added (a Map costs ten times more to fill). */
export class StepIndex {
  readonly list: StepRecord[] = [];
  readonly #dense: (StepRecord | undefined)[] = [];
  #sparse: Map<number, StepRecord> | undefined;

  get size(): number {
    return this.list.length;
  }

  get(id: number): StepRecord | undefined {
    return id < DENSE_IDS ? this.#dense[id] : this.#sparse?.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, record: StepRecord): void {
    if (id < DENSE_IDS) this.#dense[id] = record;
    else (this.#sparse ??= new Map()).set(id, record);
    this.list.push(record);
  }

  /** Let go of the run: timers cleared, and no record holds the run or another record any more. */
  release(): void {
    for (const record of this.list) {
      clearAttemptTimer(record);
      record.owner = undefined;
      record.dependents = undefined;
    }
  }
}
