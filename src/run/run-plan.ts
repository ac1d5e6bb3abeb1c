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
import { readPlan, type LocatedStep } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, RefError, withoutStack } from "../shared/errors.js";
import { attempt, clearAttemptTimer, STEP_FAILURES, type StepFailure, type ToolContext, type ToolFunction } from "./attempt.js";
import { handled, listen } from "./callbacks.js";
import { resolveOutput } from "./plan-output.js";
import { preparePlan, RunLanguage, type PreparedPlan } from "./prepare.js";
import { planText, sha256Hex, stepText } from "./plan-hash.js";
import { StepTimes, type PendingStep, type RunReport } from "./run-report.js";
import { RunTools } from "./run-tools.js";
import { onStop, runStatus, skipDependents, stopDetail, type StopReason } from "./schedule.js";
import { readRunSettings, type RunEvent, type RunOptions, type RunSettings, type ToolFunctions } from "./settings.js";
import { StepError } from "./step-error.js";
import { abortStep, StepContext, StepIndex, StepRecord, takeDependents, type RecordState } from "./step-record.js";
import { isStream, StreamIntake } from "./streamed-intake.js";
import { retryDelayMs, type ResolvedRetryPolicy } from "./retry.js";
import { startRunTrace, type RunTrace } from "./tracing.js";

export type { ToolContext, ToolFunction } from "./attempt.js";
export type { PendingStep, RunReport, StepTiming } from "./run-report.js";
export { MAX_TIMEOUT_MS, type ApprovalRequest, type RunEvent, type RunOptions, type ToolFunctions } from "./settings.js";

/** What a resume brings to a run (src/run/resume.ts), checked against the plan before any step is added. */
export interface ResumeState {
  /** The previous report's plan hash: a plan with another is refused (`plan-mismatch`). */
  readonly planHash: string;
  /** Results taken as they are: their steps are done without being called. */
  readonly results: ReadonlyMap<number, unknown>;
  /** Steps that run without asking for approval. */
  readonly approved: ReadonlySet<number>;
  /** Steps that fail `denied` with the reason (their dependents are skipped). */
  readonly denied: ReadonlyMap<number, string>;
  /** Steps that waited for approval before: they wait again unless approved or denied. */
  readonly waiting: ReadonlySet<number>;
}
export { MAX_CONTENT_LENGTH, type Tracer } from "./tracing.js";

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

/** `runPlan`, or with `resume` a whole plan's resume (`resumePlan`): the previous results and approvals are applied as its steps are added. */
export async function runResumable(plan: unknown, tools: ToolFunctions, options: RunOptions, resume: ResumeState | undefined, runId?: string): Promise<RunReport> {
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "runPlan options must be an object");
  let run: Run | undefined;
  try {
    const settings = readRunSettings(options);
    run = new Run(tools, runId === undefined ? settings : { ...settings, runId }, options, resume);
    if (isStream(plan)) {
      if (resume !== undefined) throw new RefError("invalid-options", "resumePlan needs the whole plan, not a stream of steps");
      return await run.streamed(plan);
    }
    return await run.whole(plan);
  } catch (error) {
    // Options, tools or a plan that cannot be read (a throwing getter or Proxy trap): a RefError, never a raw one.
    const refError = asRefError(error, "the plan, tools or options of runPlan");
    run?.trace?.end(refError.code, 0, refError.message);
    throw refError;
  } finally {
    run?.cleanup();
  }
}

class Run {
  readonly results = new Map<number, unknown>();
  readonly errors = new Map<number, StepError>();
  readonly skipped: number[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly #records = new StepIndex();
  /** Each step's start and end (a timing object per step is made only for the report). */
  readonly #times = new StepTimes();
  /** Steps waiting on a step id that has not arrived yet (a later step, or one still to be streamed). */
  readonly #waitingOn = new Map<number, StepRecord[]>();
  /** Ready steps, in order; those before `#readyHead` have started (no O(n) `shift`). */
  readonly #ready: StepRecord[] = [];
  #readyHead = 0;
  /** When scheduling began: lint and schema compilation happen before it. */
  #started = performance.now();
  #running = 0;
  /** Steps waiting to be tried again (a timer each; they hold no concurrency slot). */
  #retrying = 0;
  /** Steps in state `waiting` (when none is left at the end, there is nothing to fail as stuck). */
  #waiting = 0;
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
  /** The run's copy of the plan's `output` (or why it could not be read), resolved when the run ends. */
  #output: Readonly<Record<string, unknown>> | RefError | undefined;
  #tools: RunTools;
  /** Steps waiting for approval, in the order their turn came. */
  readonly #pending = new Map<number, PendingStep>();
  /** Steps whose result came from the previous report (a resume). */
  readonly #reused: number[] = [];
  /** Each step's canonical text, taken from its snapshot before anything runs (the plan hash is made of them). */
  #stepTexts: string[] = [];
  #planOptions: unknown;
  /** The run's spans, when it is traced (`undefined`: one branch per step, nothing else). */
  readonly trace: RunTrace | undefined;
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
    /** The caller's options object: only `this` for `onEvent`, never read again. */
    readonly options: RunOptions,
    readonly resume: ResumeState | undefined,
  ) {
    this.#tools = new RunTools(tools, settings.catalog);
    this.trace = startRunTrace(settings.trace, settings.runId);
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  async whole(plan: unknown): Promise<RunReport> {
    const add = this.#prepare(plan);
    // The digest runs beside the steps; a resume waits for it, to refuse another plan before any step is added.
    const hashing = sha256Hex(planText(this.#planOptions, this.#stepTexts));
    if (add === undefined) return this.#report("invalid", await hashing);
    if (this.resume !== undefined) this.#checkResume(await hashing);
    add();
    this.#watchSignal();
    this.#pump();
    await this.#done;
    const planHash = await hashing;
    return this.#report(undefined, planHash);
  }

  /** A resume of another plan, or approvals of steps the plan does not have, are refused before anything runs. */
  #checkResume(planHash: string): void {
    const resume = this.resume!;
    if (resume.planHash !== planHash) throw new RefError("plan-mismatch", `the previous report is of another plan (its planHash ${resume.planHash}, this plan's ${planHash}); nothing was run`);
    for (const [list, ids] of [["approve", resume.approved], ["deny", resume.denied.keys()]] as const) {
      for (const id of ids) if (!this.#planIds.has(id)) throw new RefError("invalid-options", `option ${list} names step ${id}, which the plan does not have; nothing was run`);
    }
  }

  #planIds = new Set<number>();

  /**
   * Read, snapshot and lint a whole plan; what adds its steps, or `undefined` when it has errors
   * (nothing is added). Synchronous, so that what it reads is garbage before the first tool runs.
   */
  #prepare(plan: unknown): (() => void) | undefined {
    const read = readPlan(plan);
    const { steps } = read;
    this.#tools.catalog ??= read.plan.tools;
    this.#language.layer(read.plan.options, this.settings.language);
    // Snapshots first: the linter checks, and the run runs, the same arguments.
    // Every step's arguments snapshotted, the plan linted on the snapshots, and what each step depends on.
    const prepared = preparePlan(plan, read, this.#language.options, this.#tools.catalog);
    this.#output = prepared.output;
    this.#planOptions = read.plan.options;
    this.#stepTexts = steps.map((step, i) => stepText(step, prepared.ownDataOnly[i] === 1));
    for (const diagnostic of prepared.diagnostics) this.diagnostics.push(diagnostic);
    this.#tools.lookUpAll(steps, this.diagnostics);
    if (this.diagnostics.some((diagnostic) => diagnostic.severity === "error")) return undefined;
    if (this.settings.validateOutputs) for (const step of steps) this.#tools.schemaOf(step.tool, true);
    if (this.resume !== undefined) for (const step of steps) this.#planIds.add(step.id);
    return () => {
      this.#started = performance.now();
      this.#times.reserve(steps.length);
      this.#addAll(steps, prepared);
    };
  }

  #addAll(steps: readonly LocatedStep[], prepared: PreparedPlan): void {
    const { dependencies, placeholders, unreadable } = prepared;
    for (let i = 0; i < steps.length; i++) this.#add(steps[i]!, dependencies[i]!, placeholders[i]!, unreadable.size === 0 ? undefined : unreadable.get(i));
  }

  async streamed(plan: AsyncIterable<unknown>): Promise<RunReport> {
    this.#language.layer(undefined, this.settings.language);
    const intake = new StreamIntake(plan);
    this.#started = performance.now();
    this.#streamOpen = true;
    this.#intake = intake;
    this.#watchSignal();
    await intake.read(this);
    this.#streamOpen = false;
    this.#settleIfIdle();
    await this.#done;
    return this.#report(undefined, await sha256Hex(planText(undefined, this.#stepTexts)));
  }

  // The run's side of a streamed plan's intake (src/run/streamed-intake.ts).

  get over(): boolean {
    return this.#finished;
  }

  hasStep(id: number): boolean {
    return this.#records.has(id);
  }

  /** A streamed step arrived, checked on its own: snapshot it, then schedule it. */
  accept(step: LocatedStep): void {
    const prepared = this.#language.prepareStreamed(step);
    this.#stepTexts.push(stepText(step));
    this.#add(step, prepared.dependencies, prepared.placeholders, prepared.unreadable);
    this.#pump();
  }

  /** Add a step (its arguments already snapshotted) with the steps it depends on, or why its arguments could not be read. */
  #add(step: { readonly id: number; readonly tool: string; readonly args: Readonly<Record<string, unknown>> }, dependencies: readonly number[], placeholders: number, unreadable: RefError | undefined): void {
    const slot = this.#records.size;
    this.#times.reserve(slot + 1);
    const record = new StepRecord(step.id, slot, step.tool, step.args as Record<string, unknown>, placeholders, dependencies, this);
    this.#records.set(step.id, record);
    this.#waiting++;
    const waiting = this.#waitingOn.get(step.id);
    if (waiting !== undefined) {
      record.dependents = waiting;
      this.#waitingOn.delete(step.id);
    }
    if (this.#stopped !== undefined) return this.#markSkipped(record, undefined); // added after a failFast stop
    if (this.resume !== undefined && this.#resumed(record)) return;
    if (unreadable !== undefined) return this.#fail(record, STEP_FAILURES.unreadableArgs(unreadable));
    if (dependencies.includes(step.id)) return this.#fail(record, STEP_FAILURES.selfReference());
    let fn: ToolFunction | undefined;
    try {
      fn = this.#tools.lookUp(step.tool);
    } catch (error) {
      const cause = asRefError(error, "the tools given to runPlan");
      return this.#fail(record, STEP_FAILURES.toolLookup(step.tool, cause));
    }
    if (fn === undefined) return this.#fail(record, STEP_FAILURES.unknownTool(step.tool, "", this.#tools.names()));
    record.fn = fn;
    for (const dependency of dependencies) {
      const other = this.#records.get(dependency);
      if (other === undefined) {
        record.pending++;
        const list = this.#waitingOn.get(dependency);
        if (list === undefined) this.#waitingOn.set(dependency, [record]);
        else list.push(record);
        continue;
      }
      if (other.state === "done") continue;
      if (other.state === "failed" || other.state === "skipped") return this.#skip(record, dependency);
      record.pending++;
      (other.dependents ??= []).push(record);
    }
    if (record.pending === 0) this.#makeReady(record);
  }

  /** A resumed step: done with its previous result (its tool not called), or denied. Whether it was either. */
  #resumed(record: StepRecord): boolean {
    const resume = this.resume!;
    if (resume.results.has(record.id)) {
      this.#setState(record, "done");
      record.args = undefined;
      this.results.set(record.id, resume.results.get(record.id));
      this.#reused.push(record.id);
      this.#unblock(record);
      return true;
    }
    const reason = resume.denied.get(record.id);
    if (reason === undefined) return false;
    this.#fail(record, STEP_FAILURES.denied(reason));
    return true;
  }

  /** Change a step's state, counting the steps that wait. */
  #setState(record: StepRecord, state: RecordState): void {
    if (record.state === "waiting") this.#waiting--;
    record.state = state;
  }

  #makeReady(record: StepRecord): void {
    this.#setState(record, "ready");
    this.#ready.push(record);
  }

  /** Start ready steps up to the concurrency limit. Never re-entered: a step settling inside it is picked up by its loop. */
  #pump(): void {
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
    while (this.#stopped === undefined && this.#running < limit && this.#readyHead < this.#ready.length) {
      const record = this.#ready[this.#readyHead++]!;
      if (this.#readyHead === this.#ready.length) this.#ready.length = this.#readyHead = 0;
      this.#start(record);
    }
  }

  #start(record: StepRecord): void {
    if (record.attempt === 0 && this.#asksApproval(record) && this.#awaitsApproval(record)) return;
    this.#begin(record);
  }

  /** Whether a step's turn must first ask for approval: it was not approved, and a rule may hold it. */
  #asksApproval(record: StepRecord): boolean {
    const resume = this.resume;
    if (resume?.approved.has(record.id) === true) return false;
    return this.settings.needsApproval !== undefined || this.settings.approvalTools?.has(record.tool) === true || resume?.waiting.has(record.id) === true;
  }

  /**
   * Ask whether a step needs approval, with its arguments resolved (into a copy: the snapshot stays for
   * its attempt). `true` when it does not go on now: it waits (pending), it failed, or the answer is
   * a promise (the step holds its slot until it settles). Arguments that cannot be resolved go on to
   * the attempt, which fails them without calling the tool.
   */
  #awaitsApproval(record: StepRecord): boolean {
    let args: Record<string, unknown>;
    try {
      args = this.#language.resolve({ ...record.args! }, record.placeholders, this.results);
    } catch {
      return false;
    }
    this.#times.start(record.slot, this.#now());
    if (this.settings.approvalTools?.has(record.tool) === true || this.resume?.waiting.has(record.id) === true) return this.#suspend(record, args);
    let answer: unknown;
    let then: unknown;
    try {
      answer = this.settings.needsApproval!.call(this.options, { id: record.id, tool: record.tool, args });
      then = (typeof answer === "object" && answer !== null) || typeof answer === "function" ? (answer as { then?: unknown }).then : undefined;
    } catch (error) {
      this.#fail(record, STEP_FAILURES.approvalFailed(error), this.#now());
      return true;
    }
    if (typeof then !== "function") return answer ? this.#suspend(record, args) : false;
    // "running" without a try: it holds a slot, and a stop fails it as any running step.
    record.state = "running";
    this.#running++;
    Promise.resolve(answer).then(
      (value) => approvalDecided(record, value, args, undefined),
      (error: unknown) => approvalDecided(record, undefined, args, { error }),
    );
    return true;
  }

  /** `needsApproval`'s promise settled: the step waits, fails, or begins (unless the run stopped meanwhile). */
  decided(record: StepRecord, value: unknown, args: Record<string, unknown>, failed: { readonly error: unknown } | undefined): void {
    if (record.state !== "running" || record.attempt !== 0 || this.#finished) return;
    this.#running--;
    if (failed !== undefined) this.#fail(record, STEP_FAILURES.approvalFailed(failed.error), this.#now());
    else if (value) this.#suspend(record, args);
    else this.#begin(record);
    this.#pump();
  }

  /** The step waits for approval: its tool is not called in this run; what waits on it waits with it. */
  #suspend(record: StepRecord, args: Record<string, unknown>): true {
    record.state = "pending";
    record.args = undefined;
    this.#pending.set(record.id, { tool: record.tool, args });
    if (this.settings.onEvent !== undefined) this.#emit({ type: "step-pending", stepId: record.id, tool: record.tool, args, atMs: this.#now() });
    return true;
  }

  #begin(record: StepRecord): void {
    record.state = "running";
    this.#running++;
    record.attempt++;
    const startMs = this.#now();
    if (record.attempt === 1) this.#times.start(record.slot, startMs);
    if (this.settings.onEvent !== undefined) {
      this.#emit({ type: "step-start", stepId: record.id, tool: record.tool, startMs });
      if (record.state !== "running") return; // the listener stopped the run
    }
    if (this.trace === undefined) attempt(record, record.fn!, this, this.settings.timeoutMs);
    else this.trace.within(record, attempt, record, record.fn!, this as Run, this.settings.timeoutMs);
  }

  // The run's side of a step's attempt (src/run/attempt.ts).

  isRunning(record: StepRecord): boolean {
    return record.state === "running" && record.retryFailure === undefined;
  }

  resolveArgs(record: StepRecord): Record<string, unknown> {
    // The snapshot is resolved in place, once: the results it reads do not change between tries. A
    // step that may be tried again keeps it and gives each try a copy of its top level (a tool may set
    // or delete its arguments), so every try gets the arguments the plan gave; nested values are shared
    // (a deep copy per step tripled the run's time; copying before resolving cost 1.4× a run).
    const policy = this.#policyOf(record.tool);
    let args: Record<string, unknown>;
    if (policy === undefined || policy.attempts <= 1) {
      args = this.#language.resolve(record.args!, record.placeholders, this.results);
      record.args = undefined; // let go of the snapshot once resolved
    } else {
      if (!record.resolved) {
        record.args = this.#language.resolve(record.args!, record.placeholders, this.results);
        record.resolved = true;
      }
      args = { ...record.args! };
    }
    if (record.span !== undefined) this.trace!.arguments(record, args);
    return args;
  }

  contextOf(record: StepRecord): ToolContext {
    return new StepContext(record, this.settings.runId);
  }

  checkInput(record: StepRecord, args: Record<string, unknown>): StepFailure | undefined {
    return this.settings.validateInputs ? this.#tools.checkInput(record.tool, args) : undefined;
  }

  checkResult(record: StepRecord, value: unknown): StepFailure | undefined {
    return this.settings.validateOutputs ? this.#tools.checkOutput(record.tool, value) : undefined;
  }

  ended(record: StepRecord, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void {
    if (!later) return this.#settle(record, value, failure);
    // From a promise job or a timer: nothing may escape.
    try {
      this.#settle(record, value, failure);
      if (abortReason !== undefined) abortStep(record, abortReason);
      this.#pump();
    } catch (error) {
      this.fatal(error);
    }
  }

  /** The attempt's outcome: a result kept (also one that fails its output check), the step completed or failed. */
  #settle(record: StepRecord, value: unknown, failure: StepFailure | undefined): void {
    if (!this.isRunning(record)) return; // the run already gave up on it (abort, fail-fast, timeout)
    const endMs = this.#end(record, value, failure);
    if (failure !== undefined && this.#retryLater(record, failure, endMs)) return;
    record.args = undefined;
    if (failure === undefined || failure.code === "invalid-output") this.results.set(record.id, value);
    if (failure === undefined) this.#complete(record, endMs);
    else this.#fail(record, failure, endMs);
  }

  /** The policy of a tool: its own, else the run's. */
  #policyOf(tool: string): ResolvedRetryPolicy | undefined {
    return this.settings.retryByTool?.get(tool) ?? this.settings.retry;
  }

  /**
   * Whether the failed try is tried again: if so the step waits (no concurrency slot, one timer kept
   * on the record, so a stop or the cleanup clears it), told as a `step-retry` event.
   */
  #retryLater(record: StepRecord, failure: StepFailure, endMs: number): boolean {
    const policy = this.#policyOf(record.tool);
    if (policy === undefined || this.#stopped !== undefined) return false;
    const delayMs = retryDelayMs(policy, record.attempt, failure);
    if (delayMs === undefined) return false;
    record.retryFailure = failure;
    record.retryEndMs = endMs;
    this.#retrying++;
    record.timer = setTimeout(retryNow, delayMs, record);
    if (this.settings.onEvent !== undefined) {
      const error = new StepError(failure.code, record.id, record.tool, failure.detail, failure.cause);
      this.#emit({ type: "step-retry", stepId: record.id, tool: record.tool, attempt: record.attempt, attempts: policy.attempts, delayMs, error, atMs: endMs });
    }
    return true;
  }

  /** A step's wait is over: it is ready again (in turn with the other ready steps). */
  retry(record: StepRecord): void {
    record.timer = undefined;
    if (record.retryFailure === undefined || this.#stopped !== undefined || this.#finished) return;
    record.retryFailure = undefined;
    this.#retrying--;
    // A fresh signal for the next try: the failed one's was aborted (a timeout) after the failure was recorded.
    record.controller = undefined;
    record.abortReason = undefined;
    record.state = "ready";
    this.#ready.push(record);
    this.#pump();
  }

  /** The try's end: its timer cleared, its timing recorded, its span ended. */
  #end(record: StepRecord, value: unknown, failure: StepFailure | undefined): number {
    clearAttemptTimer(record);
    if (record.span !== undefined) this.trace!.endStep(record, value, failure);
    this.#running--;
    const endMs = this.#now();
    this.#times.end(record.slot, endMs);
    return endMs;
  }

  #complete(record: StepRecord, endMs: number): void {
    record.state = "done";
    if (this.settings.onEvent !== undefined) {
      const startMs = this.#times.startOf(record.slot);
      this.#emit({ type: "step-done", stepId: record.id, tool: record.tool, startMs, endMs, durationMs: endMs - startMs });
    }
    this.#unblock(record);
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
  #fail(record: StepRecord, failure: StepFailure, endMs?: number): void {
    this.#markFailed(record, failure, endMs);
    this.#skipDependents(record);
    if (this.settings.failFast) this.#stop("failed");
  }

  /** The one way a step becomes failed: its error kept and told; one that ran has `endMs` (its start is recorded). */
  #markFailed(record: StepRecord, failure: StepFailure, endMs?: number): void {
    this.#setState(record, "failed");
    const error = new StepError(failure.code, record.id, record.tool, failure.detail, failure.cause);
    this.errors.set(record.id, error);
    if (this.trace !== undefined && record.attempt === 0) this.trace.event("plan_refs.step.failed", record, { "error.type": failure.code });
    if (this.settings.onEvent !== undefined) {
      const end = endMs ?? this.#now();
      const start = endMs === undefined ? end : this.#times.startOf(record.slot);
      this.#emit({ type: "step-failed", stepId: record.id, tool: record.tool, error, startMs: start, endMs: end, durationMs: end - start });
    }
  }

  #skip(record: StepRecord, blockedBy: number): void {
    this.#markSkipped(record, blockedBy);
    this.#skipDependents(record);
  }

  /** The one way a step becomes skipped: blocked by a step (told as an event), or `undefined` when the run stopped first. */
  #markSkipped(record: StepRecord, blockedBy: number | undefined): void {
    this.#setState(record, "skipped");
    this.skipped.push(record.id);
    if (this.trace !== undefined) this.trace.event("plan_refs.step.skipped", record, blockedBy === undefined ? {} : { "plan_refs.step.blocked_by": blockedBy });
    if (blockedBy !== undefined && this.settings.onEvent !== undefined) this.#emit({ type: "step-skipped", stepId: record.id, tool: record.tool, blockedBy, atMs: this.#now() });
  }

  /** Skip everything waiting on `record`, transitively (the rule of `schedule.ts`, shared with the PostgreSQL workers). */
  #skipDependents(record: StepRecord): void {
    if (record.dependents === undefined) return;
    skipDependents(record, takeDependents, (dependent, blocker) => {
      if (dependent.state !== "waiting") return false;
      this.#markSkipped(dependent, blocker.id);
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
      // A step waiting for approval keeps waiting: the report still says what a person has to approve.
      const action = record.state === "pending" ? "keep" : onStop(record.state);
      if (action === "abort" && record.retryFailure !== undefined) {
        // Waiting to be tried again: its wait is cancelled, and it fails with what its last try gave.
        clearAttemptTimer(record);
        this.#retrying--;
        this.#markFailed(record, record.retryFailure, record.retryEndMs);
      } else if (action === "abort") {
        this.#markFailed(record, failure, this.#end(record, undefined, failure));
        aborted.push(record);
      } else if (action === "skip") this.#markSkipped(record, undefined);
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
    this.#release();
    this.#waitingOn.clear();
  }

  #release(): void {
    for (const record of this.#records.list) {
      clearAttemptTimer(record);
      record.owner = undefined;
      record.dependents = undefined;
    }
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
    if (this.#running > 0 || this.#retrying > 0 || this.#readyHead < this.#ready.length || this.#streamOpen) return;
    if (this.#waiting > 0) this.#failStuck();
    this.#finish();
  }

  /**
   * Steps still waiting when nothing else can happen: a dependency never arrived, or they are in a
   * cycle. Those that wait on a step waiting for approval are not stuck: they wait with it.
   */
  #failStuck(): void {
    const records = this.#records.list;
    const held = this.#heldByApproval();
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state !== "waiting") continue;
      const missing = record.dependencies.filter((id) => !this.#records.has(id));
      if (missing.length > 0) this.#fail(record, STEP_FAILURES.missingDependencies(missing));
    }
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state === "waiting" && !held.has(record)) this.#fail(record, STEP_FAILURES.cycle());
    }
  }

  /** Every step that waits, directly or through others, on a step waiting for approval. */
  #heldByApproval(): Set<StepRecord> {
    const held = new Set<StepRecord>();
    if (this.#pending.size === 0) return held;
    const queue = this.#records.list.filter((record) => record.state === "pending");
    for (let i = 0; i < queue.length; i++) {
      for (const dependent of queue[i]!.dependents ?? []) {
        if (dependent.state !== "waiting" || held.has(dependent)) continue;
        held.add(dependent);
        queue.push(dependent);
      }
    }
    return held;
  }

  #emit(event: RunEvent): void {
    try {
      handled(this.settings.onEvent!.call(this.options, event));
    } catch {
      // A broken progress listener must not break the run.
    }
  }

  #now(): number {
    return performance.now() - this.#started;
  }

  /** The report: the run's results, errors, skipped steps and diagnostics as they are, and the timing of every step that started (in plan order). */
  #report(status: RunReport["status"] | undefined, planHash: string): RunReport {
    if (this.#fatal !== undefined) throw this.#fatal;
    const final = status ?? runStatus(this.#stopped, this.errors.size, this.diagnostics, this.#pending.size);
    this.trace?.end(final, this.#records.size);
    const attempts = new Map<number, number>();
    const now = this.#now();
    for (const record of this.#records.list) {
      if (record.attempt > 0) attempts.set(record.id, record.attempt);
      else if (record.state === "pending") this.#times.end(record.slot, now); // the time it waited
    }
    return {
      runId: this.settings.runId,
      status: final,
      planHash,
      results: this.results,
      errors: this.errors,
      skipped: this.skipped,
      diagnostics: this.diagnostics,
      timings: { totalMs: this.#now(), steps: this.#times.timings(this.#records.list) },
      attempts,
      ...(this.#output === undefined || final === "invalid" ? {} : resolveOutput(this.#output, this.results, this.errors, this.skipped, this.#language.options)),
      pending: this.#pending,
      reused: this.#reused,
    };
  }
}

/** `needsApproval`'s promise settled: reaches the run through the record (nothing escapes a promise job). */
function approvalDecided(record: StepRecord, value: unknown, args: Record<string, unknown>, failed: { readonly error: unknown } | undefined): void {
  const run = record.owner as Run | undefined;
  if (run === undefined) return;
  try {
    run.decided(record, value, args, failed);
  } catch (error) {
    run.fatal(error);
  }
}

/** A retry timer's callback: reaches the run through the record (nothing escapes a timer). */
function retryNow(record: StepRecord): void {
  const run = record.owner as Run | undefined;
  if (run === undefined) return;
  try {
    run.retry(record);
  } catch (error) {
    run.fatal(error);
  }
}
