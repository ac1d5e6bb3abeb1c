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
import { readPlan, type JsonSchema, type LocatedStep, type ToolCatalog } from "../plan/plan.js";
import { resolveRefs } from "../resolve/resolve-refs.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, describeThrown, RefError, withoutStack } from "../shared/errors.js";
import { StepError, type StepErrorCode } from "./step-error.js";
import { layeredOptions, normalizeOptions, OPTION_NAMES, type NormalizedOptions, type OptionName, type ResolveOptions } from "../shared/options.js";
import { outputMismatch, prepareOutputSchema } from "./output-validator.js";
import { inputMismatch } from "./validate-input.js";
import { ownData } from "../shared/own-data.js";
import { preparePlan, prepareStep, resolveSnapshot, THROUGH_RESOLVE_REFS } from "./prepare.js";
import { callContext, type EvaluationContext } from "../resolve/evaluate.js";
import { ArgsSnapshotter } from "./snapshot.js";
import { onStop, runStatus, skipDependents, stopDetail, stopsRun, type StepState, type StopReason } from "./schedule.js";

/** What a tool receives besides its arguments. */
export interface ToolContext {
  readonly stepId: number;
  /** Aborted when the run is aborted, when the step times out, or (with `failFast`) when another step fails. */
  readonly signal: AbortSignal;
}

/** A tool: resolved arguments in, a result (or a promise of one) out. */
export type ToolFunction = (args: Record<string, unknown>, context: ToolContext) => unknown;

/** Tools by name. */
export type ToolFunctions = Readonly<Record<string, ToolFunction>>;

/** Progress of a run, as it happens. Times are milliseconds since the run started. */
export type RunEvent =
  | { readonly type: "step-start"; readonly stepId: number; readonly tool: string; readonly startMs: number }
  | { readonly type: "step-done"; readonly stepId: number; readonly tool: string; readonly startMs: number; readonly endMs: number; readonly durationMs: number }
  | { readonly type: "step-failed"; readonly stepId: number; readonly tool: string; readonly error: StepError; readonly startMs: number; readonly endMs: number; readonly durationMs: number }
  | { readonly type: "step-skipped"; readonly stepId: number; readonly tool: string; readonly blockedBy: number; readonly atMs: number };

/**
 * The longest finite `timeoutMs`: 2^31 − 1 ms (about 24.8 days), the most a timer can wait (Node and
 * browsers fire a longer timer after 1 ms). Longer finite values are refused (`invalid-options`);
 * `Infinity` means no limit.
 *
 * @example
 * await runPlan(plan, tools, { timeoutMs: Math.min(hours * 3_600_000, MAX_TIMEOUT_MS) })
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Options of `runPlan`. Each is read once, when the run starts. The language options (`syntax`,
 * `templates`, `strict`, `deep` and the limits) layer over the plan's own `options` as everywhere
 * (`layerOptions`) and reach the linter, the argument snapshots and the resolver.
 */
export interface RunOptions extends ResolveOptions {
  /** Most tools running at once (default 8). */
  readonly concurrency?: number;
  /**
   * A step running longer than this fails with code `timeout` and its signal is aborted. Default and
   * `Infinity`: no limit. At most `MAX_TIMEOUT_MS` (2^31 − 1) when finite, else `invalid-options`.
   */
  readonly timeoutMs?: number;
  /** Stop at the first failure: no new step starts and running steps are aborted (default `false`). */
  readonly failFast?: boolean;
  /** Abort the run: no new step starts, running tools see the abort, the report says `aborted`. */
  readonly signal?: AbortSignal;
  /** The tool catalog (else the plan's inline `tools`): used by the linter and by `validateOutputs`. */
  readonly catalog?: ToolCatalog;
  /** Fail a step whose result does not match its tool's output schema (default `false`). */
  readonly validateOutputs?: boolean;
  /** Fail a step whose resolved arguments do not match its tool's input schema, without calling it (`invalid-input`; default `false`). */
  readonly validateInputs?: boolean;
  /** Called for every step event. What it throws or rejects with is ignored. */
  readonly onEvent?: (event: RunEvent) => void;
}

/** When one step ran. */
export interface StepTiming {
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
}

/** The outcome of a run. Nothing produced is ever dropped. */
export interface RunReport {
  /** `ok`: every step succeeded; `failed`: a step failed; `aborted`: the signal fired; `invalid`: lint errors, nothing ran. */
  readonly status: "ok" | "failed" | "aborted" | "invalid";
  readonly results: Map<number, unknown>;
  readonly errors: Map<number, StepError>;
  /** Steps never run because a step they depend on failed or was skipped, or because the run stopped first. */
  readonly skipped: number[];
  /** Lint diagnostics (all of them when the status is `invalid`), and problems of a streamed plan. */
  readonly diagnostics: Diagnostic[];
  /** Every step that started has its timing, also one aborted or timed out while it ran. */
  readonly timings: { readonly totalMs: number; readonly steps: Map<number, StepTiming> };
}

/** The options, read once and checked. */
interface RunSettings {
  readonly concurrency: number;
  /** `undefined`: no limit (absent, or `Infinity`). */
  readonly timeoutMs: number | undefined;
  readonly failFast: boolean;
  readonly signal: AbortSignal | undefined;
  readonly catalog: ToolCatalog | undefined;
  readonly validateOutputs: boolean;
  readonly validateInputs: boolean;
  readonly onEvent: ((event: RunEvent) => unknown) | undefined;
  /** The caller's language options as read once (the names set, checked); layered over the plan's when it is read. */
  readonly language: Readonly<Partial<Record<OptionName, unknown>>>;
}

/** Read every option once (a getter runs once, here); a bad value is `invalid-options`. */
function readSettings(options: RunOptions): RunSettings {
  const concurrency: unknown = options.concurrency ?? 8;
  const timeout: unknown = options.timeoutMs;
  const failFast: unknown = options.failFast;
  const signal: unknown = options.signal;
  const catalog: unknown = options.catalog;
  const validateOutputs: unknown = options.validateOutputs;
  const validateInputs: unknown = options.validateInputs;
  const onEvent: unknown = options.onEvent;
  const language: Partial<Record<OptionName, unknown>> = {};
  for (const name of OPTION_NAMES) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined) language[name] = value;
  }
  if (typeof concurrency !== "number" || !Number.isInteger(concurrency) || concurrency < 1) throw new RefError("invalid-options", "option concurrency must be a positive integer");
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    if (typeof timeout !== "number" || !(timeout > 0)) throw new RefError("invalid-options", "option timeoutMs must be a positive number of milliseconds (or Infinity for no limit)");
    if (timeout !== Infinity && timeout > MAX_TIMEOUT_MS) {
      throw new RefError("invalid-options", `option timeoutMs must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days), or Infinity for no limit`);
    }
    timeoutMs = timeout === Infinity ? undefined : timeout;
  }
  if (signal !== undefined && !isSignal(signal)) throw new RefError("invalid-options", "option signal must be an AbortSignal");
  if (onEvent !== undefined && typeof onEvent !== "function") throw new RefError("invalid-options", "option onEvent must be a function");
  layeredOptions(undefined, language); // a bad language option is refused now, before the plan is read
  return {
    concurrency,
    timeoutMs,
    failFast: failFast === true,
    signal,
    catalog: catalog as ToolCatalog | undefined,
    validateOutputs: validateOutputs === true,
    validateInputs: validateInputs === true,
    onEvent: onEvent as ((event: RunEvent) => unknown) | undefined,
    language,
  };
}

const DEFAULT_LANGUAGE = normalizeOptions(undefined);

/** Whether every language option has its default (then resolveRefs takes its fast path). */
function isDefault(language: NormalizedOptions): boolean {
  if (language === DEFAULT_LANGUAGE) return true;
  for (const name of OPTION_NAMES) if (language[name] !== DEFAULT_LANGUAGE[name]) return false;
  return true;
}

function isSignal(value: unknown): value is AbortSignal {
  if (typeof value !== "object" || value === null) return false;
  const target = value as { addEventListener?: unknown; removeEventListener?: unknown };
  return typeof target.addEventListener === "function" && typeof target.removeEventListener === "function";
}


/** One step of a run: its snapshot, its place in the graph, and its state. */
class StepRecord {
  state: StepState = "waiting";
  /** Dependencies not done yet. */
  pending = 0;
  /** Steps waiting on this one (released when it completes, fails or is skipped). */
  dependents: StepRecord[] | undefined = undefined;
  /** The tool's function, looked up once (set when the step can run). */
  fn: ToolFunction | undefined = undefined;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** Made when the tool first reads `context.signal` (most never do, and a controller is costly). */
  controller: AbortController | undefined = undefined;
  /** Set when the step is aborted before its tool read the signal: the signal is made aborted. */
  abortReason: { readonly reason: unknown } | undefined = undefined;

  constructor(
    readonly id: number,
    /** Where its start and end times are kept in the run's `#times` (numbers there cost no allocation). */
    readonly slot: number,
    readonly tool: string,
    /** The snapshot of the step's arguments (never the caller's object); let go once resolved. */
    public args: Record<string, unknown> | undefined,
    /** How many placeholders are resolved into the snapshot, or `THROUGH_RESOLVE_REFS` (see `PreparedStep`). */
    readonly placeholders: number,
    readonly dependencies: readonly number[],
    /** The run, until its report is returned: a tool that settles later (or never) holds only this record. */
    public run: Run | undefined,
  ) {}
}

/** The steps waiting on a record, handed over once (the skip walk of `schedule.ts` visits each blocker once). */
function takeDependents(record: StepRecord): StepRecord[] | undefined {
  const dependents = record.dependents;
  record.dependents = undefined;
  return dependents;
}

/** Abort a step's signal, or remember the reason for when the tool first reads it. */
function abortStep(record: StepRecord, reason: unknown): void {
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

/** What a tool gets as its context: the signal is made only if the tool reads it. */
class StepContext implements ToolContext {
  readonly stepId: number;
  readonly #record: StepRecord;

  constructor(record: StepRecord) {
    this.stepId = record.id;
    this.#record = record;
  }

  get signal(): AbortSignal {
    return signalOf(this.#record);
  }
}

// Callbacks of timers and tool promises: module functions that reach the run through the record, so a
// tool that never settles keeps neither the run nor its results alive once the report is out.
function onTimeout(record: StepRecord, limit: number): void {
  record.timer = undefined;
  record.run?.timedOut(record, limit);
}
function onToolValue(record: StepRecord, value: unknown): void {
  record.run?.toolSettled(record, true, value);
}
function onToolError(record: StepRecord, error: unknown): void {
  record.run?.toolSettled(record, false, error);
}
const ignore = (): void => undefined;

/** Mark a native promise's rejection as handled (what a caller's callback returned; never throws). */
function handled(value: unknown): void {
  try {
    if (value instanceof Promise) Promise.prototype.then.call(value, undefined, ignore);
  } catch {
    // A Proxy whose getPrototypeOf trap throws: not a promise of ours to watch.
  }
}

const STOPPED: unique symbol = Symbol("plan-refs: run stopped");

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
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "runPlan options must be an object");
  let run: Run | undefined;
  try {
    run = new Run(tools, readSettings(options), options);
    if (isAsyncIterable(plan)) return await run.streamed(plan);
    return await run.whole(plan);
  } catch (error) {
    // Options, tools or a plan that cannot be read (a throwing getter or Proxy trap): a RefError, never a raw one.
    throw asRefError(error, "the plan, tools or options of runPlan");
  } finally {
    run?.cleanup();
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

/** The tool's function: an own data property of `tools` (a getter is never run). May throw (a Proxy trap). */
function toolFunction(tools: ToolFunctions, name: string): ToolFunction | undefined {
  const value = ownData(tools, name);
  return typeof value === "function" ? (value as ToolFunction) : undefined;
}

/** Ids below this are kept in an array (a plan's ids are usually 0 or 1 to n); larger ones in a Map. */
const DENSE_IDS = 1 << 20;

/** The run's step records by id, and in the order they were added (a Map costs ten times more to fill). */
class StepIndex {
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
}

class Run {
  readonly results = new Map<number, unknown>();
  readonly errors = new Map<number, StepError>();
  readonly skipped: number[] = [];
  readonly diagnostics: Diagnostic[] = [];
  /** Filled when the report is made, from the records (no object per step while the run goes). */
  readonly timings = new Map<number, StepTiming>();
  readonly #records = new StepIndex();
  /** Start and end of each step by its slot (2 × slot, 2 × slot + 1), in ms since scheduling began; NaN until set. */
  #times = new Float64Array(0);
  /** Steps waiting on a step id that has not arrived yet (a later step, or one still to be streamed). */
  readonly #waitingOn = new Map<number, StepRecord[]>();
  /** Ready steps, in order; those before `#readyHead` have started (no O(n) `shift`). */
  readonly #ready: StepRecord[] = [];
  #readyHead = 0;
  /** When scheduling began: lint and schema compilation happen before it. */
  #started = performance.now();
  #running = 0;
  /** Steps in state `waiting` (when none is left at the end, there is nothing to fail as stuck). */
  #waiting = 0;
  #pumping = false;
  #streamOpen = false;
  #stopped: StopReason | undefined;
  #finished = false;
  /** An error of plan-refs' own making while running (a bug): the run ends and runPlan rejects with it. */
  #fatal: RefError | undefined;
  readonly #done: Promise<void>;
  #resolveDone: () => void = ignore;
  /** Wakes a streamed run that waits for the planner's next step when the run stops. */
  #interrupt: ((value: typeof STOPPED) => void) | undefined;
  /** The language options of the run, and what resolveRefs gets (`undefined` for the defaults: its fast path). */
  #language: NormalizedOptions = DEFAULT_LANGUAGE;
  /** Copies streamed steps' arguments (a whole plan's are copied by `preparePlan`). */
  #snapshots: ArgsSnapshotter | undefined;
  #resolveOptions: NormalizedOptions | undefined;
  /** What the evaluator is told while resolving a snapshot in place (one object per run). */
  #evaluation: EvaluationContext = callContext(DEFAULT_LANGUAGE);
  #catalog: ToolCatalog | undefined;
  readonly #tools = new Map<string, ToolFunction | undefined>();
  readonly #schemas = new Map<string, JsonSchema | undefined>();
  #listening = false;
  readonly #onAbort = (): void => {
    try {
      this.#stop("aborted");
    } catch (error) {
      this.fatal(error);
    }
  };

  constructor(
    readonly tools: ToolFunctions,
    readonly settings: RunSettings,
    /** The caller's options object: only `this` for `onEvent`, never read again. */
    readonly options: RunOptions,
  ) {
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** The run's language options: the caller's over the plan's (once per run, not per step). */
  #setLanguage(planOptions: object | undefined): void {
    this.#language = layeredOptions(planOptions, this.settings.language);
    this.#resolveOptions = isDefault(this.#language) ? undefined : this.#language;
    this.#evaluation = callContext(this.#language);
  }

  async whole(plan: unknown): Promise<RunReport> {
    if (!this.#prepare(plan)) return this.#report("invalid");
    this.#watchSignal();
    this.#pump();
    await this.#done;
    return this.#report();
  }

  /**
   * Read, snapshot and lint a whole plan, then add its steps; `false` when it has errors (nothing is
   * added). Synchronous, so that what it reads is garbage before the first tool runs.
   */
  #prepare(plan: unknown): boolean {
    const read = readPlan(plan);
    const { steps } = read;
    this.#catalog = this.settings.catalog ?? read.plan.tools;
    this.#setLanguage(read.plan.options);
    // Snapshots first: the linter checks, and the run runs, the same arguments.
    // Every step's arguments snapshotted, the plan linted on the snapshots, and what each step depends on.
    const prepared = preparePlan(plan, read, this.#language, this.#catalog);
    for (const diagnostic of prepared.diagnostics) this.diagnostics.push(diagnostic);
    this.#lookUpTools(steps);
    if (this.diagnostics.some((diagnostic) => diagnostic.severity === "error")) return false;
    if (this.settings.validateOutputs) for (const step of steps) this.#schemaOf(step.tool, true);
    this.#started = performance.now();
    this.#growTimes(2 * steps.length);
    this.#addAll(steps, prepared.dependencies, prepared.placeholders);
    return true;
  }

  /** Every tool is looked up here, once: a tools object that throws rejects the run before anything runs. */
  #lookUpTools(steps: readonly LocatedStep[]): void {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (this.#toolOf(step.tool) === undefined) {
        this.diagnostics.push({ code: "unknown-tool", severity: "error", step: step.id, pointer: `${step.pointer}/tool`, message: `no function for tool "${step.tool.slice(0, 60)}" among the tools given to runPlan` });
      }
    }
  }

  #addAll(steps: readonly LocatedStep[], dependencies: readonly (readonly number[] | RefError)[], placeholders: Int32Array): void {
    for (let i = 0; i < steps.length; i++) this.#add(steps[i]!, dependencies[i]!, placeholders[i]!);
  }

  async streamed(plan: AsyncIterable<unknown>): Promise<RunReport> {
    this.#catalog = this.settings.catalog;
    this.#setLanguage(undefined);
    const iterator = plan[Symbol.asyncIterator]();
    this.#started = performance.now();
    this.#streamOpen = true;
    this.#watchSignal();
    let index = 0;
    let exhausted = false;
    try {
      while (!this.#finished) {
        const next = await new Promise<unknown>((resolve, reject) => {
          this.#interrupt = resolve;
          Promise.resolve(iterator.next()).then(resolve, reject);
        });
        this.#interrupt = undefined;
        if (next === STOPPED || this.#finished) break;
        const { done, value } = next as IteratorResult<unknown>;
        if (done === true) {
          exhausted = true;
          break;
        }
        try {
          this.#arrive(value, index++);
        } catch (error) {
          this.fatal(error);
        }
      }
    } catch (error) {
      exhausted = true; // a stream that threw is over
      this.diagnostics.push({ code: "invalid-plan", severity: "error", pointer: `/${index}`, message: `the plan stream failed: ${describeError(error)}` });
    }
    this.#interrupt = undefined;
    // Stopped while the planner was still producing (or stalled): tell it to finish, without waiting for it.
    if (!exhausted) closeIterator(iterator);
    this.#streamOpen = false;
    this.#settleIfIdle();
    await this.#done;
    return this.#report();
  }

  /** A streamed step arrives: check it on its own, snapshot it, then schedule it. */
  #arrive(raw: unknown, index: number): void {
    const read = readPlan([raw]);
    const step = read.steps[0];
    const problems = read.problems.map((problem) => ({ ...problem, pointer: `/${index}${problem.pointer.slice(2)}` }));
    if (step === undefined) {
      for (const problem of problems) this.diagnostics.push({ code: problem.code, severity: "error", pointer: problem.pointer, message: problem.message, ...(problem.step === undefined ? {} : { step: problem.step }) });
      return;
    }
    if (this.#records.has(step.id)) {
      this.diagnostics.push({ code: "duplicate-step-id", severity: "error", step: step.id, pointer: `/${index}/id`, message: `step id ${step.id} arrived twice; the second was ignored` });
      return;
    }
    const prepared = prepareStep(step, this.#language, (this.#snapshots ??= new ArgsSnapshotter()));
    this.#add(step, prepared.dependencies, prepared.placeholders);
    this.#pump();
  }

  /** The tool's function, looked up once per name. Throws what a hostile tools object throws. */
  #toolOf(name: string): ToolFunction | undefined {
    let fn = this.#tools.get(name);
    if (fn === undefined && !this.#tools.has(name)) {
      fn = toolFunction(this.tools, name);
      this.#tools.set(name, fn);
    }
    return fn;
  }

  /** Add a step (its arguments already snapshotted) with the steps it depends on, or why its arguments could not be read. */
  #add(step: { readonly id: number; readonly tool: string; readonly args: Readonly<Record<string, unknown>> }, found: readonly number[] | RefError, placeholders: number): void {
    const unreadable = found instanceof RefError ? found : undefined;
    const dependencies = unreadable === undefined ? (found as readonly number[]) : [];
    const slot = this.#records.size;
    if (2 * slot + 1 >= this.#times.length) this.#growTimes(2 * slot + 2);
    const record = new StepRecord(step.id, slot, step.tool, step.args as Record<string, unknown>, placeholders, dependencies, this);
    this.#records.set(step.id, record);
    this.#waiting++;
    const waiting = this.#waitingOn.get(step.id);
    if (waiting !== undefined) {
      record.dependents = waiting;
      this.#waitingOn.delete(step.id);
    }
    if (this.#stopped !== undefined) return this.#skipStopped(record);
    if (unreadable !== undefined) return this.#fail(record, "unresolved-args", `its arguments could not be read: ${describeError(unreadable)}`, unreadable);
    if (dependencies.includes(step.id)) return this.#fail(record, "cycle", "it references its own result");
    let fn: ToolFunction | undefined;
    try {
      fn = this.#toolOf(step.tool);
    } catch (error) {
      const cause = asRefError(error, "the tools given to runPlan");
      return this.#fail(record, "unknown-tool", `its tool "${step.tool.slice(0, 60)}" could not be looked up: ${describeError(cause)}`, cause);
    }
    if (fn === undefined) return this.#fail(record, "unknown-tool", `no function for tool "${step.tool.slice(0, 60)}"`);
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

  /** Room for the times of more steps (NaN: not started, not ended). */
  #growTimes(least: number): void {
    const times = new Float64Array(Math.max(least, 2 * this.#times.length, 16)).fill(Number.NaN);
    times.set(this.#times);
    this.#times = times;
  }

  /** Change a step's state, counting the steps that wait. */
  #setState(record: StepRecord, state: StepState): void {
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
    record.state = "running";
    this.#running++;
    const startMs = this.#now();
    this.#times[2 * record.slot] = startMs;
    if (this.settings.onEvent !== undefined) {
      this.#emit({ type: "step-start", stepId: record.id, tool: record.tool, startMs });
      if (record.state !== "running") return; // the listener stopped the run
    }
    let args: Record<string, unknown>;
    try {
      // The snapshot is the run's own copy: its placeholders are resolved into it, unless only resolveRefs can say what they give.
      args =
        record.placeholders === THROUGH_RESOLVE_REFS
          ? resolveRefs(record.args!, this.results, this.#resolveOptions)
          : resolveSnapshot(record.args!, record.placeholders, this.results, this.#language, this.#evaluation);
      record.args = undefined;
    } catch (error) {
      return this.#settleFailure(record, "unresolved-args", `its arguments could not be resolved: ${describeError(error)}`, error);
    }
    const invalid = this.settings.validateInputs ? inputMismatch(this.#catalog, record.tool, args) : undefined;
    if (invalid !== undefined) return this.#settleFailure(record, "invalid-input", invalid);
    const limit = this.settings.timeoutMs;
    if (limit !== undefined) record.timer = setTimeout(onTimeout, limit, record, limit);
    let output: unknown;
    try {
      output = record.fn!(args, new StepContext(record));
    } catch (error) {
      return this.#settleFailure(record, "tool-error", `the tool threw: ${describeError(error)}`, error);
    }
    // A result that is not a thenable settles the step now, without a promise per step.
    if ((typeof output === "object" && output !== null) || typeof output === "function") {
      let then: unknown;
      try {
        then = (output as { then?: unknown }).then;
        if (typeof then === "function") {
          // Handlers are attached even if the run stopped meanwhile: a rejection is never left unhandled.
          Promise.resolve(output).then(
            (value) => onToolValue(record, value),
            (error: unknown) => onToolError(record, error),
          );
          return;
        }
      } catch (error) {
        return this.#settleFailure(record, "tool-error", `the tool's result could not be read: ${describeError(error)}`, error);
      }
    }
    this.#settleValue(record, output);
  }

  /** A tool's promise settled (called from a promise job, so nothing may escape). */
  toolSettled(record: StepRecord, ok: boolean, outcome: unknown): void {
    try {
      if (ok) this.#settleValue(record, outcome);
      else this.#settleFailure(record, "tool-error", `the tool failed: ${describeError(outcome)}`, outcome);
      this.#pump();
    } catch (error) {
      this.fatal(error);
    }
  }

  /** A step's timer fired (called from a timer, so nothing may escape). */
  timedOut(record: StepRecord, limit: number): void {
    try {
      if (record.state !== "running") return;
      this.#settleFailure(record, "timeout", `timed out after ${limit} ms`);
      // Abort reasons are built without a stack: a captured stack keeps its frames' receivers (this run,
      // and so its results) alive for as long as a tool that never settles keeps its signal.
      abortStep(record, withoutStack(() => new StepError("timeout", record.id, record.tool, `timed out after ${limit} ms`)));
      this.#pump();
    } catch (error) {
      this.fatal(error);
    }
  }

  /** The step's end: its timer cleared, its timing recorded. */
  #end(record: StepRecord): number {
    if (record.timer !== undefined) {
      clearTimeout(record.timer);
      record.timer = undefined;
    }
    this.#running--;
    const endMs = this.#now();
    this.#times[2 * record.slot + 1] = endMs;
    return endMs;
  }

  #settleValue(record: StepRecord, value: unknown): void {
    if (record.state !== "running") return; // the run already gave up on it (abort, fail-fast, timeout)
    const endMs = this.#end(record);
    const mismatch = this.#checkOutput(record.tool, value);
    this.results.set(record.id, value);
    if (mismatch === undefined) this.#complete(record, endMs);
    else this.#fail(record, "invalid-output", mismatch, undefined, endMs);
  }

  #settleFailure(record: StepRecord, code: StepErrorCode, detail: string, cause?: unknown): void {
    if (record.state !== "running") return;
    const endMs = this.#end(record);
    this.#fail(record, code, detail, cause, endMs);
  }

  #checkOutput(tool: string, value: unknown): string | undefined {
    if (!this.settings.validateOutputs) return undefined;
    try {
      const schema = this.#schemaOf(tool, false);
      return schema === undefined ? undefined : outputMismatch(schema, value);
    } catch (error) {
      // The validator reads the result (and the catalog): a getter or Proxy trap that throws fails the step, not the run.
      return `the result could not be read: ${describeError(error)}`;
    }
  }

  /** The catalog's output schema of a tool, if it has a usable one (looked up once; compiled ahead when `prepare`). */
  #schemaOf(tool: string, prepare: boolean): JsonSchema | undefined {
    if (this.#catalog === undefined) return undefined;
    let schema = this.#schemas.get(tool);
    if (schema === undefined && !this.#schemas.has(tool)) {
      const output = ownData(ownData(this.#catalog, tool), "output");
      schema = typeof output === "boolean" || (typeof output === "object" && output !== null) ? (output as JsonSchema) : undefined;
      this.#schemas.set(tool, schema);
    }
    if (prepare && schema !== undefined) prepareOutputSchema(schema);
    return schema;
  }

  #complete(record: StepRecord, endMs: number): void {
    record.state = "done";
    if (this.settings.onEvent !== undefined) {
      const startMs = this.#times[2 * record.slot]!;
      this.#emit({ type: "step-done", stepId: record.id, tool: record.tool, startMs, endMs, durationMs: endMs - startMs });
    }
    const dependents = record.dependents;
    if (dependents === undefined) return;
    record.dependents = undefined;
    for (let i = 0; i < dependents.length; i++) {
      const dependent = dependents[i]!;
      if (dependent.state === "waiting" && --dependent.pending === 0) this.#makeReady(dependent);
    }
  }

  /** Fail a step: one that ran (`endMs` given, its start recorded), or one that never started. */
  #fail(record: StepRecord, code: StepErrorCode, detail: string, cause?: unknown, endMs?: number): void {
    this.#setState(record, "failed");
    const error = new StepError(code, record.id, record.tool, detail, cause);
    this.errors.set(record.id, error);
    if (this.settings.onEvent !== undefined) {
      const end = endMs ?? this.#now();
      const start = endMs === undefined ? end : this.#times[2 * record.slot]!;
      this.#emit({ type: "step-failed", stepId: record.id, tool: record.tool, error, startMs: start, endMs: end, durationMs: end - start });
    }
    this.#skipDependents(record);
    if (stopsRun(this.settings.failFast)) this.#stop("failed");
  }

  #skip(record: StepRecord, blockedBy: number): void {
    this.#setState(record, "skipped");
    this.skipped.push(record.id);
    if (this.settings.onEvent !== undefined) this.#emit({ type: "step-skipped", stepId: record.id, tool: record.tool, blockedBy, atMs: this.#now() });
    this.#skipDependents(record);
  }

  /** A step added after the run stopped (a failure while the plan's steps were being added, with `failFast`). */
  #skipStopped(record: StepRecord): void {
    this.#setState(record, "skipped");
    this.skipped.push(record.id);
  }

  /** Skip everything waiting on `record`, transitively (the rule of `schedule.ts`, shared with the PostgreSQL workers). */
  #skipDependents(record: StepRecord): void {
    if (record.dependents === undefined) return;
    skipDependents(record, takeDependents, (dependent, blocker) => {
      if (dependent.state !== "waiting") return false;
      this.#setState(dependent, "skipped");
      this.skipped.push(dependent.id);
      if (this.settings.onEvent !== undefined) this.#emit({ type: "step-skipped", stepId: dependent.id, tool: dependent.tool, blockedBy: blocker.id, atMs: this.#now() });
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
    const detail = stopDetail(reason);
    const aborted: StepRecord[] = [];
    for (const record of this.#records.list) {
      const action = onStop(record.state);
      if (action === "abort") {
        const endMs = this.#end(record);
        record.state = "failed";
        const error = new StepError("aborted", record.id, record.tool, detail, cause);
        this.errors.set(record.id, error);
        if (this.settings.onEvent !== undefined) {
          const startMs = this.#times[2 * record.slot]!;
          this.#emit({ type: "step-failed", stepId: record.id, tool: record.tool, error, startMs, endMs, durationMs: endMs - startMs });
        }
        aborted.push(record);
      } else if (action === "skip") {
        this.#setState(record, "skipped");
        this.skipped.push(record.id);
      }
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
    signal.addEventListener("abort", this.#onAbort);
    this.#listening = true;
  }

  /** Remove what the run added (its abort listener, its timers) and let go of the records. Never throws. */
  cleanup(): void {
    this.#finished = true;
    if (this.#listening) {
      this.#listening = false;
      try {
        this.settings.signal!.removeEventListener("abort", this.#onAbort);
      } catch {
        // A signal whose methods were replaced and throw: nothing more to do.
      }
    }
    // A tool may still be running (the run gave up on it: a stop, a timeout), or may keep its context:
    // either holds only its own step's record once the records let go of the run.
    this.#release();
    this.#waitingOn.clear();
  }

  #release(): void {
    for (const record of this.#records.list) {
      if (record.timer !== undefined) {
        clearTimeout(record.timer);
        record.timer = undefined;
      }
      record.run = undefined;
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
    this.#interrupt?.(STOPPED);
  }

  /** When nothing runs or can start, and no more steps can arrive: fail what still waits, and finish. */
  #settleIfIdle(): void {
    if (this.#finished) return;
    if (this.#stopped !== undefined) return this.#finish();
    if (this.#running > 0 || this.#readyHead < this.#ready.length || this.#streamOpen) return;
    if (this.#waiting > 0) this.#failStuck();
    this.#finish();
  }

  /** Steps still waiting when nothing else can happen: a dependency never arrived, or they are in a cycle. */
  #failStuck(): void {
    const records = this.#records.list;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state !== "waiting") continue;
      const missing = record.dependencies.filter((id) => !this.#records.has(id));
      if (missing.length > 0) this.#fail(record, "missing-dependency", `it references step${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, which never arrived`);
    }
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      if (record.state === "waiting") this.#fail(record, "cycle", "it is part of a reference cycle and can never run");
    }
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

  /** The timing of every step that started (and so ended: by settling, or when the run stopped), in plan order. */
  #stepTimings(): Map<number, StepTiming> {
    const timings = this.timings;
    if (timings.size === 0) {
      const times = this.#times;
      for (const record of this.#records.list) {
        const startMs = times[2 * record.slot]!;
        const endMs = times[2 * record.slot + 1]!;
        if (!Number.isNaN(endMs)) timings.set(record.id, { startMs, endMs, durationMs: endMs - startMs });
      }
    }
    return timings;
  }

  #report(status?: RunReport["status"]): RunReport {
    if (this.#fatal !== undefined) throw this.#fatal;
    const final = status ?? runStatus(this.#stopped, this.errors.size, this.diagnostics);
    return {
      status: final,
      results: this.results,
      errors: this.errors,
      skipped: this.skipped,
      diagnostics: this.diagnostics,
      timings: { totalMs: this.#now(), steps: this.#stepTimings() },
    };
  }
}

/** Tell an iterator the run will not read it any further, without waiting for it (it may be stalled). Never throws. */
function closeIterator(iterator: AsyncIterator<unknown>): void {
  try {
    const close = iterator.return;
    if (typeof close === "function") handled(close.call(iterator));
  } catch {
    // A planner whose return() throws: it was told.
  }
}

/** What a tool threw, for a message. Never throws: a tool may throw a Proxy or an object whose toString throws. */
function describeError(error: unknown): string {
  return describeThrown(error).slice(0, 500);
}
