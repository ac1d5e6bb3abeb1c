/**
 * The executor: runs a plan's tool calls in dependency order, independent steps at the same time (at
 * most `concurrency`), resolving each step's arguments with the same evaluator as `resolveRefs`. A
 * failure skips only the steps that depend on it; every result produced is kept in the report.
 *
 * What a run guarantees (SECURITY.md, "Executor guarantees"): options and tool functions are read once,
 * at the start; each step's tool and arguments are snapshotted when the step is read, so the run does
 * exactly what was linted; whatever the caller's objects or the tools throw ends up in a `StepError` or
 * in the rejection of `runPlan`'s promise, never in an unhandled rejection; every listener and timer a
 * run adds is removed by the time its report is returned; an abort, a `failFast` stop or a timeout
 * that stops the run returns the report at once, also while a streamed plan is stalled.
 */
import type { LocatedStep } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, RefError, withoutStack } from "../shared/errors.js";
import { ApprovalGate, checkApproved, checkResume, heldByApproval, type GatedRun, type ResumeState } from "./approval.js";
import { attempt, clearAttemptTimer, STEP_FAILURES, type StepFailure, type ToolFunction } from "../step/attempt.js";
import { listen } from "./callbacks.js";
import { RunLanguage, type PreparedStep } from "../step/prepare.js";
import { RunLedger } from "./run-report.js";
import type { RunReport } from "../step/report.js";
import { RunTools } from "./run-tools.js";
import { onStop, runStatus, skipDependents, stopDetail, type StopReason } from "../step/schedule.js";
import { tryTimeoutMs } from "../step/settings.js";
import { readRunSettings, type RunOptions, type RunSettings, type ToolFunctions } from "./run-options.js";
import { abortStep, StepIndex, StepRecord, takeDependents } from "./step-record.js";
import { StepTries } from "./step-tries.js";
import { isStream, StreamIntake } from "./streamed-intake.js";
import { ToolLimits } from "./tool-limits.js";
import { startRunTrace, type RunTrace } from "../step/tracing.js";
import { readWholePlan, type WholePlan } from "./whole-plan.js";

export type { ToolContext, ToolFunction } from "../step/attempt.js";
export type { PendingStep, RunReport, StepTiming } from "../step/report.js";
export { MAX_TIMEOUT_MS } from "../step/settings.js";
export { type ApprovalRequest, type RunEvent, type RunOptions, type ToolFunctions } from "./run-options.js";
export { MAX_CONTENT_LENGTH, type Tracer } from "../step/tracing.js";

/**
 * Run a plan: an object with `steps` (or an array of steps), or an `AsyncIterable` of steps as a
 * planner streams them. The plan is linted first; with lint errors no tool is called. Options that
 * cannot be read, or a tools object that cannot be read before the first step, reject the promise
 * with a `RefError` (`invalid-options`, `access`); everything that goes wrong later is a `StepError`
 * in the report.
 *
 * @example
 * const report = await runPlan(
 *   { steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }, { id: 2, tool: "weather", args: { at: "$1" } }] },
 *   { geocode: ({ city }) => ({ lat: 48.85, lon: 2.35 }), weather: ({ at }) => "sunny" },
 * );
 * report.status // "ok"; report.results.get(2) // "sunny"
 */
export async function runPlan(plan: unknown, tools: ToolFunctions, options: RunOptions = {}): Promise<RunReport> {
  return runResumable(plan, tools, options, undefined);
}

/**
 * `runPlan`, or with `resume` a whole plan's resume (`resumePlan`): the previous results and approvals
 * are applied as its steps are added. `trace`: a run span this run's steps go under (and that it ends
 * as one of its holders, `RunTrace.share`) instead of a new one.
 */
export async function runResumable(
  plan: unknown,
  tools: ToolFunctions,
  options: RunOptions,
  resume: ResumeState | undefined,
  runId?: string,
  trace?: RunTrace,
): Promise<RunReport> {
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "runPlan options must be an object");
  let run: Run | undefined;
  try {
    const settings = readRunSettings(options);
    run = new Run(tools, runId === undefined ? settings : { ...settings, runId }, options, resume, trace);
    if (isStream(plan)) {
      if (resume !== undefined) throw new RefError("invalid-options", "resumePlan needs the whole plan, not a stream of steps");
      if (run.settings.session !== undefined)
        throw new RefError("invalid-options", "a plan run in a session must be whole, not a stream of steps");
      return await run.streamed(plan);
    }
    return await run.whole(plan);
  } catch (error) {
    // Options, tools or a plan that cannot be read (a throwing getter or Proxy trap): a RefError, never a raw one.
    const refError = asRefError(error, "the plan, tools or options of runPlan");
    (run?.trace ?? trace)?.end(refError.code, 0, refError.message);
    throw refError;
  } finally {
    run?.cleanup();
  }
}

class Run implements GatedRun {
  readonly ledger: RunLedger;
  readonly #records = new StepIndex();
  /** Steps waiting on a step id that has not arrived yet (a later step, or one still to be streamed). */
  readonly #waitingOn = new Map<number, StepRecord[]>();
  /** Ready steps, in order; those before `#readyHead` have started (no O(n) `shift`). */
  readonly #ready: StepRecord[] = [];
  #readyHead = 0;
  #running = 0;
  readonly #tries: StepTries<Run>;
  /** The tools with a limit of calls at once (`toolConcurrency`), if any. */
  readonly #limits: ToolLimits | undefined;
  #pumping = false;
  #streamOpen = false;
  #stopped: StopReason | undefined;
  #finished = false;
  /** An error of plan-refs' own making while running (a bug): the run ends and runPlan rejects with it. */
  #fatal: RefError | undefined;
  readonly #done: Promise<void>;
  #resolveDone: () => void = () => undefined;
  /** A streamed plan's intake (woken when the run stops while it waits for the planner). */
  #intake: StreamIntake | undefined;
  /** The run's language options, and how its steps' arguments are snapshotted and resolved with them. */
  readonly #language = new RunLanguage();
  /** A whole plan as read, from reading it until its steps are added. */
  #read: WholePlan | undefined;
  /** The run's copy of the plan's `output` (or why it could not be read), resolved when the run ends. */
  #output: Readonly<Record<string, unknown>> | RefError | undefined;
  #tools: RunTools;
  readonly #gate: ApprovalGate;
  /** In a session: the earlier plans' steps whose results it keeps (references to them wait for nothing). */
  #earlierIds: ReadonlySet<number> | undefined;
  /** The run's spans, when it is traced (`undefined`: one branch per step, nothing else). */
  readonly trace: RunTrace | undefined;
  /** The limit of each try (`tryTimeoutMs`: the run's own; `runPlan` has no default). */
  readonly #timeoutMs: number | undefined;
  /** Removes the run's abort listener from the caller's signal, while it listens. */
  #unlisten: (() => void) | undefined;
  readonly #onAbort = (): void => {
    try {
      this.#stop("aborted");
    } catch (error) {
      this.fatal(error);
    }
  };

  constructor(
    tools: ToolFunctions,
    readonly settings: RunSettings,
    options: RunOptions,
    readonly resume: ResumeState | undefined,
    trace: RunTrace | undefined,
  ) {
    this.#tools = new RunTools(tools, settings.catalog);
    this.#timeoutMs = tryTimeoutMs(settings.timeoutMs, undefined);
    this.trace = trace ?? startRunTrace(settings.trace, settings.runId);
    if (this.trace !== undefined && settings.session !== undefined) this.trace.earlierSpans = settings.session.spans();
    this.ledger = new RunLedger(settings, options, this.trace, settings.session?.results());
    this.#gate = new ApprovalGate(settings, options, resume, (name) => {
      try {
        return this.#tools.lookUp(name);
      } catch {
        return undefined; // a hostile tools object: the step's try reports it
      }
    });
    this.#limits =
      settings.toolConcurrency === undefined || settings.toolConcurrency.size === 0 ? undefined : new ToolLimits(settings.toolConcurrency);
    this.#tries = new StepTries(this, settings, this.#language, this.#tools, this.ledger, this.trace);
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  get diagnostics(): Diagnostic[] {
    return this.ledger.diagnostics;
  }

  async whole(plan: unknown): Promise<RunReport> {
    // The plan as read is held by the run (`#read`), never by this frame: a frame that is suspended, or
    // is running the steps, keeps what its registers hold alive, and the steps as read (on 10,000 steps
    // about 1 MB, measured: a third of what the run held while its steps ran) stayed alive until the end.
    // A resume waits for the hash, to refuse another plan before any step is added.
    const hash = this.#readWhole(plan);
    if (this.#read!.invalid) {
      this.#read = undefined;
      return this.#report("invalid", await hash);
    }
    if (this.resume !== undefined) this.#checkResumed(typeof hash === "function" ? hash() : await hash);
    this.#addAll();
    this.#watchSignal();
    this.pump();
    await this.#done;
    return this.#report(undefined, typeof hash === "function" ? hash : await hash);
  }

  /** Read the whole plan into `#read`; its hash (`WholePlan.hash`). */
  #readWhole(plan: unknown): WholePlan["hash"] {
    const session = this.settings.session;
    // A resume runs the same plan again: its own ids are in the session already, and are no reuse.
    const earlier =
      session === undefined ? undefined : (ids: readonly number[]) => session.earlier(this.resume === undefined ? undefined : new Set(ids));
    const whole = readWholePlan(plan, this.#language, this.#tools, this.settings, this.diagnostics, earlier);
    this.#earlierIds = whole.earlierIds;
    this.#output = whole.prepared.output;
    this.#read = whole;
    return whole.hash;
  }

  /** A resume's plan is the plan it resumes (`hash`), and what it approves are its steps. */
  #checkResumed(hash: string): void {
    const { steps } = this.#read!;
    checkResume(this.resume!, hash, new Set(steps.map((step) => step.id)));
    checkApproved(this.resume!, steps, this.#language.options, this.ledger.lookup);
  }

  /** Add the steps of `#read`, and let go of it (the records have what the run needs). */
  #addAll(): void {
    const { steps, prepared } = this.#read!;
    this.#read = undefined;
    const { dependencies, placeholders, unreadable } = prepared;
    this.ledger.startClock();
    this.ledger.times.reserve(steps.length);
    for (let i = 0; i < steps.length; i++)
      this.#add(steps[i]!, dependencies[i]!, placeholders[i]!, unreadable.size === 0 ? undefined : unreadable.get(i));
  }

  async streamed(plan: AsyncIterable<unknown>): Promise<RunReport> {
    this.#language.layer(undefined, this.settings.language);
    const intake = new StreamIntake(plan, this.#language);
    this.ledger.startClock();
    this.#streamOpen = true;
    this.#intake = intake;
    this.#watchSignal();
    await intake.read(this);
    this.#streamOpen = false;
    this.#settleIfIdle();
    await this.#done;
    return this.#report(undefined, await intake.text.hash());
  }

  // The run's side of a streamed plan's intake (src/run/streamed-intake.ts).

  get over(): boolean {
    return this.#finished;
  }

  hasStep(id: number): boolean {
    return this.#records.has(id);
  }

  accept(step: LocatedStep, prepared: PreparedStep): void {
    this.#add(step, prepared.dependencies, prepared.placeholders, prepared.unreadable);
    this.pump();
  }

  /** Add a step (its arguments already snapshotted) with the steps it depends on, or why its arguments could not be read. */
  #add(
    step: { readonly id: number; readonly tool: string; readonly args: Readonly<Record<string, unknown>> },
    dependencies: readonly number[],
    placeholders: number,
    unreadable: RefError | undefined,
  ): void {
    const slot = this.#records.size;
    this.ledger.times.reserve(slot + 1);
    const record = new StepRecord(step, slot, placeholders, dependencies, this.#tries);
    this.#records.set(step.id, record);
    this.ledger.waiting++;
    const waiting = this.#waitingOn.get(step.id);
    if (waiting !== undefined) {
      record.dependents = waiting;
      this.#waitingOn.delete(step.id);
    }
    if (this.#stopped !== undefined) return this.ledger.markSkipped(record, undefined); // added after a failFast stop
    if (this.resume !== undefined && this.#resumed(record)) return;
    if (unreadable !== undefined) return this.fail(record, STEP_FAILURES.unreadableArgs(unreadable));
    if (dependencies.includes(step.id)) return this.fail(record, STEP_FAILURES.selfReference());
    let fn: ToolFunction | undefined;
    try {
      fn = this.#tools.lookUp(step.tool);
    } catch (error) {
      const cause = asRefError(error, "the tools given to runPlan");
      return this.fail(record, STEP_FAILURES.toolLookup(step.tool, cause));
    }
    if (fn === undefined) return this.fail(record, STEP_FAILURES.unknownTool(step.tool, "", this.#tools.names()));
    record.fn = fn;
    // Indexed: `for…of` made an iterator per step here (the method is too large to be optimized whole).
    for (let i = 0; i < dependencies.length; i++) {
      const dependency = dependencies[i]!;
      const other = this.#records.get(dependency);
      if (other === undefined && this.#earlierIds?.has(dependency) === true) continue; // an earlier plan's result
      if (other === undefined) {
        record.pending++;
        const list = this.#waitingOn.get(dependency);
        if (list === undefined) this.#waitingOn.set(dependency, [record]);
        else list.push(record);
        continue;
      }
      if (other.state === "done") continue;
      if (other.state === "failed" || other.state === "skipped") {
        this.ledger.markSkipped(record, dependency);
        return this.#skipDependents(record);
      }
      record.pending++;
      (other.dependents ??= []).push(record);
    }
    if (record.pending === 0) this.#makeReady(record);
  }

  /** A resumed step: done with its previous result (its tool not called), or denied. Whether it was either. */
  #resumed(record: StepRecord): boolean {
    const resume = this.resume!;
    if (resume.results.has(record.id)) {
      record.args = undefined;
      this.ledger.markReused(record, resume.results.get(record.id));
      this.#unblock(record);
      return true;
    }
    const failure = resume.failed?.get(record.id);
    if (failure !== undefined) {
      this.fail(record, failure);
      return true;
    }
    const reason = resume.denied.get(record.id);
    if (reason === undefined) return false;
    this.fail(record, STEP_FAILURES.denied(reason));
    return true;
  }

  #makeReady(record: StepRecord): void {
    this.ledger.setState(record, "ready");
    this.#ready.push(record);
  }

  /** Start ready steps up to the concurrency limit. Never re-entered: a step settling inside it is picked up by its loop. */
  pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      this.#startReady();
    } finally {
      this.#pumping = false;
    }
    this.#settleIfIdle();
  }

  // Long loops live in small methods of their own: the optimizing compiler enters a loop while it runs
  // (on-stack replacement), and code after a loop in a larger method was deoptimized again and again.
  #startReady(): void {
    const limit = this.settings.concurrency;
    while (this.#stopped === undefined && this.#running < limit) {
      const released = this.#limits?.next(); // first, the steps that waited for their tool
      if (released !== undefined) {
        this.#call(released);
        continue;
      }
      if (this.#readyHead === this.#ready.length) return;
      const record = this.#ready[this.#readyHead++]!;
      if (this.#readyHead === this.#ready.length) this.#ready.length = this.#readyHead = 0;
      this.#start(record);
    }
  }

  #start(record: StepRecord): void {
    if (record.attempt === 0 && this.#gate.asks(record) && this.#gate.turn(record, this)) return;
    this.begin(record);
  }

  // The scheduler's side of the approval gate (src/run/approval.ts).

  argsForApproval(record: StepRecord): Record<string, unknown> | undefined {
    return this.#tries.resolvedForApproval(record);
  }

  hold(record: StepRecord): void {
    record.state = "running";
    this.#running++;
  }

  release(record: StepRecord): boolean {
    if (record.state !== "running" || record.attempt !== 0 || this.#finished) return false;
    this.#running--;
    return true;
  }

  /** Begin a step's try, unless its tool is at its limit (`toolConcurrency`): then it waits for a call of its tool to end. */
  begin(record: StepRecord): void {
    if (this.#limits === undefined || this.#limits.admit(record)) this.#call(record);
  }

  #call(record: StepRecord): void {
    record.state = "running";
    this.#running++;
    record.attempt++;
    this.ledger.markStarted(record);
    if (record.state !== "running") return; // an event listener stopped the run
    if (this.trace === undefined) attempt(record, record.fn!, this.#tries, this.#timeoutMs);
    else this.trace.within(record, attempt, record, record.fn!, this.#tries, this.#timeoutMs);
  }

  // The scheduler's side of a step's tries (src/run/step-tries.ts).

  get stopped(): boolean {
    return this.#stopped !== undefined || this.#finished;
  }

  ended(record: StepRecord, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void {
    if (!later) return this.#settle(record, value, failure);
    // From a promise job or a timer: nothing may escape.
    try {
      this.#settle(record, value, failure);
      if (abortReason !== undefined) abortStep(record, abortReason);
      this.pump();
    } catch (error) {
      this.fatal(error);
    }
  }

  /** The attempt's outcome: a result kept (also one that fails its output check), the step completed or failed. */
  #settle(record: StepRecord, value: unknown, failure: StepFailure | undefined): void {
    if (!this.#tries.isRunning(record)) return; // the run already gave up on it (abort, fail-fast, timeout)
    const endMs = this.#end(record, value, failure);
    const after = this.#tries.afterTry(record, failure, endMs);
    switch (after.next) {
      case "retry":
        return;
      case "failed":
        record.args = undefined;
        if (after.keepsResult) this.ledger.setResult(record.id, value);
        return this.fail(record, after.failure, endMs);
      case "done":
        record.args = undefined;
        this.ledger.setResult(record.id, value);
        this.ledger.markDone(record, endMs);
        return this.#unblock(record);
      default:
        return after satisfies never;
    }
  }

  readyAgain(record: StepRecord): void {
    record.state = "ready";
    this.#ready.push(record);
    this.pump();
  }

  /** The try's end: its timer cleared, its timing recorded, its span ended. */
  #end(record: StepRecord, value: unknown, failure: StepFailure | undefined): number {
    clearAttemptTimer(record);
    if (record.span !== undefined) this.trace!.endStep(record, value, failure);
    this.#running--;
    if (this.#limits !== undefined && record.attempt > 0) this.#limits.ended(record); // a step held for approval made no call
    const endMs = this.ledger.now();
    this.ledger.times.end(record.slot, endMs);
    return endMs;
  }

  /** A step is done: what waits on it is one dependency closer to ready. */
  #unblock(record: StepRecord): void {
    const dependents = record.dependents;
    if (dependents === undefined) return;
    record.dependents = undefined;
    for (let i = 0; i < dependents.length; i++) {
      const dependent = dependents[i]!;
      if (dependent.state === "waiting" && --dependent.pending === 0) this.#makeReady(dependent);
    }
  }

  /** Fail a step: marked failed, what waits on it skipped, and with `failFast` the run stopped. */
  fail(record: StepRecord, failure: StepFailure, endMs?: number): void {
    this.ledger.markFailed(record, failure, endMs);
    this.#skipDependents(record);
    if (this.settings.failFast) this.#stop("failed");
  }

  /** Skip everything waiting on `record`, transitively (the rule of `schedule.ts`, shared with the PostgreSQL workers). */
  #skipDependents(record: StepRecord): void {
    if (record.dependents === undefined) return;
    skipDependents(record, takeDependents, (dependent, blocker) => {
      if (dependent.state !== "waiting") return false;
      this.ledger.markSkipped(dependent, blocker.id);
      return true;
    });
  }

  /**
   * Stop the run: running steps are recorded as failed (`aborted`, with their real start and end) and
   * their signals aborted, every step that has not started is skipped, and the report is returned at once.
   */
  #stop(reason: StopReason): void {
    if (this.#stopped !== undefined || this.#finished) return;
    this.#stopped = reason;
    let cause: unknown;
    if (reason === "aborted") {
      try {
        cause = this.settings.signal?.reason;
      } catch (error) {
        cause = error;
      }
    }
    const abortReason = cause ?? withoutStack(() => new RefError("aborted", "the run was stopped"));
    const failure = STEP_FAILURES.aborted(stopDetail(reason), cause);
    const aborted: StepRecord[] = [];
    for (const record of this.#records.list) {
      // A step waiting for approval keeps waiting (onStop keeps it): the report still says what a person has to approve.
      const action = onStop(record.state);
      if (action === "abort" && record.retryFailure !== undefined) {
        // Waiting to be tried again: its wait is cancelled, and it fails with what its last try gave.
        this.ledger.markFailed(record, this.#tries.cancel(record), record.retryEndMs);
      } else if (action === "abort") {
        this.ledger.markFailed(record, failure, this.#end(record, undefined, failure));
        aborted.push(record);
      } else if (action === "skip") this.ledger.markSkipped(record, undefined);
    }
    this.#ready.length = this.#readyHead = 0;
    this.#finish();
    // Last: a tool's abort listener runs here, and whatever it does can no longer change the report.
    for (const record of aborted) abortStep(record, abortReason);
  }

  #watchSignal(): void {
    const signal = this.settings.signal;
    if (signal === undefined) return;
    if (signal.aborted) return this.#stop("aborted");
    this.#unlisten = listen(signal, this.#onAbort);
  }

  /** Remove what the run added (its abort listener, its timers) and let go of the records. Never throws. */
  cleanup(): void {
    this.#finished = true;
    this.#unlisten?.();
    this.#unlisten = undefined;
    // A tool may still be running (the run gave up on it: a stop, a timeout), or may keep its context:
    // either holds only its own step's record once the records let go of the run.
    this.#records.release();
    this.#waitingOn.clear();
  }

  /** An error of plan-refs' own (never expected): the run ends and runPlan rejects with it as a RefError. */
  fatal(error: unknown): void {
    this.#fatal ??= asRefError(error, "the run");
    try {
      this.#stop("failed");
    } catch {
      // Already failing: the rejection says why.
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#resolveDone();
    this.#intake?.interrupt();
  }

  /** When nothing runs or can start, and no more steps can arrive: fail what still waits, and finish. */
  #settleIfIdle(): void {
    if (this.#finished) return;
    if (this.#stopped !== undefined) return this.#finish();
    if (
      this.#running > 0 ||
      this.#tries.waiting > 0 ||
      this.#readyHead < this.#ready.length ||
      this.#streamOpen ||
      this.#limits?.releasing === true
    )
      return;
    if (this.ledger.waiting > 0) this.#failStuck();
    this.#finish();
  }

  /**
   * Steps still waiting when nothing else can happen: a dependency never arrived, or they are in a
   * cycle. Those that wait on a step waiting for approval are not stuck: they wait with it.
   */
  #failStuck(): void {
    const records = this.#records.list;
    const held = this.ledger.pending.size === 0 ? undefined : heldByApproval(records);
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state !== "waiting") continue;
      const missing = record.dependencies.filter((id) => !this.#records.has(id));
      if (missing.length > 0) this.fail(record, STEP_FAILURES.missingDependencies(missing));
    }
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state === "waiting" && held?.has(record) !== true) this.fail(record, STEP_FAILURES.cycle());
    }
  }

  /** The report, unless the run failed of plan-refs' own making (then runPlan rejects). */
  #report(status: RunReport["status"] | undefined, planHash: string | (() => string)): RunReport {
    if (this.#fatal !== undefined) throw this.#fatal;
    const ledger = this.ledger;
    const final = status ?? runStatus(this.#stopped, ledger.errors.size, ledger.diagnostics, ledger.pending.size);
    const report = ledger.report(final, planHash, this.#records.list, this.#output, this.#language.options);
    if (final !== "invalid") this.settings.session?.record(this.#records.list, report.results, this.trace?.stepSpans);
    return report;
  }
}
