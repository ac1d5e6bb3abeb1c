/**
 * The executor: runs a plan's tool calls in dependency order, independent steps at the same time (at
 * most `concurrency`), resolving each step's arguments with the same evaluator as `resolveRefs`. A
 * failure skips only the steps that depend on it; every result produced is kept in the report.
 */
import { lintReadPlan } from "../lint/lint-plan.js";
import { readPlan, type PlanStep, type ToolCatalog } from "../plan/plan.js";
import { scanArgs } from "../plan/references.js";
import { resolveRefs } from "../resolve/resolve-refs.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, describeThrown, RefError, StepError, type StepErrorCode } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type Syntax } from "../shared/options.js";
import { outputMismatch, prepareOutputSchema } from "./output-validator.js";

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

/** Options of `runPlan`. */
export interface RunOptions {
  /** Most tools running at once (default 8). */
  readonly concurrency?: number;
  /** A step running longer than this fails with code `timeout` and its signal is aborted (default: no limit). */
  readonly timeoutMs?: number;
  /** Stop at the first failure: no new step starts and running steps are aborted (default `false`). */
  readonly failFast?: boolean;
  /** Abort the run: no new step starts, running tools see the abort, the report says `aborted`. */
  readonly signal?: AbortSignal;
  /** The tool catalog (else the plan's inline `tools`): used by the linter and by `validateOutputs`. */
  readonly catalog?: ToolCatalog;
  /** Fail a step whose result does not match its tool's output schema (default `false`). */
  readonly validateOutputs?: boolean;
  /** Called for every step event. */
  readonly onEvent?: (event: RunEvent) => void;
  /** Language options; they override the plan's own `options`. */
  readonly syntax?: Syntax;
  readonly templates?: boolean;
  readonly deep?: boolean;
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
  /** Steps never run because a step they depend on failed or was skipped (or the run stopped first). */
  readonly skipped: number[];
  /** Lint diagnostics (all of them when the status is `invalid`), and problems of a streamed plan. */
  readonly diagnostics: Diagnostic[];
  readonly timings: { readonly totalMs: number; readonly steps: Map<number, StepTiming> };
}

type StepState = "waiting" | "ready" | "running" | "done" | "failed" | "skipped";

interface StepRecord {
  readonly step: PlanStep;
  readonly dependencies: ReadonlySet<number>;
  state: StepState;
  /** Dependencies not done yet. */
  pending: number;
  /** Made when the tool first reads `context.signal` (most never do, and a controller is costly). */
  controller?: AbortController;
  /** Set when the step is aborted before its tool read the signal: the signal is made aborted. */
  abortReason?: { readonly reason: unknown };
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

/**
 * Run a plan: an object with `steps` (or an array of steps), or an `AsyncIterable` of steps as a
 * planner streams them. The plan is linted first; with lint errors no tool is called.
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
  try {
    const run = new Run(tools, options);
    if (isAsyncIterable(plan)) return await run.streamed(plan);
    return await run.whole(plan);
  } catch (error) {
    // Options, tools or a plan that cannot be read (a throwing getter or Proxy trap): a RefError, never a raw one.
    throw asRefError(error, "the plan, tools or options of runPlan");
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

function toolFunction(tools: ToolFunctions, name: string): ToolFunction | undefined {
  if (typeof tools !== "object" || tools === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(tools, name);
  return descriptor !== undefined && typeof descriptor.value === "function" ? (descriptor.value as ToolFunction) : undefined;
}

class Run {
  readonly #records = new Map<number, StepRecord>();
  /** Steps waiting on a step id (which may not have arrived yet, in a stream). */
  readonly #waitingOn = new Map<number, number[]>();
  /** Ready steps, in order; those before `#readyHead` have started (no O(n) `shift`). */
  readonly #ready: number[] = [];
  #readyHead = 0;
  readonly results = new Map<number, unknown>();
  readonly errors = new Map<number, StepError>();
  readonly skipped: number[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly timings = new Map<number, StepTiming>();
  /** When scheduling began: lint and schema compilation happen before it. */
  #started = performance.now();
  readonly #concurrency: number;
  #running = 0;
  #streamOpen = false;
  #stopped: "aborted" | "failed" | undefined;
  #finish: (() => void) | undefined;
  #resolveOptions: NormalizedOptions = normalizeOptions(undefined);
  #catalog: ToolCatalog | undefined;

  constructor(
    readonly tools: ToolFunctions,
    readonly options: RunOptions,
  ) {
    const concurrency = options.concurrency ?? 8;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RefError("invalid-options", "option concurrency must be a positive integer");
    if (options.timeoutMs !== undefined && !(typeof options.timeoutMs === "number" && options.timeoutMs > 0)) {
      throw new RefError("invalid-options", "option timeoutMs must be a positive number");
    }
    this.#concurrency = concurrency;
  }

  #languageOptions(planOptions: object | undefined): NormalizedOptions {
    const { syntax, templates, deep } = this.options;
    return normalizeOptions({
      ...planOptions,
      ...(syntax === undefined ? {} : { syntax }),
      ...(templates === undefined ? {} : { templates }),
      ...(deep === undefined ? {} : { deep }),
    });
  }

  async whole(plan: unknown): Promise<RunReport> {
    const read = readPlan(plan);
    this.#catalog = this.options.catalog ?? read.plan.tools;
    this.#resolveOptions = this.#languageOptions(read.plan.options);
    const { syntax, templates, deep } = this.#resolveOptions;
    this.diagnostics.push(...lintReadPlan(plan, read, { syntax, templates, deep, ...(this.#catalog === undefined ? {} : { tools: this.#catalog }) }));
    read.steps.forEach((step) => {
      if (toolFunction(this.tools, step.tool) === undefined) {
        this.diagnostics.push({ code: "unknown-tool", severity: "error", step: step.id, pointer: `${step.pointer}/tool`, message: `no function for tool "${step.tool.slice(0, 60)}" among the tools given to runPlan` });
      }
    });
    if (this.diagnostics.some((diagnostic) => diagnostic.severity === "error")) return this.#report("invalid");
    if (this.options.validateOutputs === true) for (const step of read.plan.steps) this.#outputSchema(step.tool, true);
    this.#started = performance.now();
    const done = this.#whenDone();
    this.#watchSignal();
    for (const step of read.plan.steps) this.#add(step);
    this.#pump();
    await done;
    return this.#report();
  }

  async streamed(plan: AsyncIterable<unknown>): Promise<RunReport> {
    this.#catalog = this.options.catalog;
    this.#resolveOptions = this.#languageOptions(undefined);
    const done = this.#whenDone();
    this.#watchSignal();
    this.#streamOpen = true;
    const iterator = plan[Symbol.asyncIterator]();
    let index = 0;
    try {
      while (this.#stopped === undefined) {
        const next = await iterator.next();
        if (next.done || this.#stopped !== undefined) break;
        this.#arrive(next.value, index++);
      }
    } catch (error) {
      this.diagnostics.push({ code: "invalid-plan", severity: "error", pointer: `/${index}`, message: `the plan stream failed: ${describeError(error)}` });
    } finally {
      if (this.#stopped !== undefined) await iterator.return?.().catch(() => undefined);
    }
    this.#streamOpen = false;
    this.#settleIfIdle();
    await done;
    return this.#report();
  }

  /** A streamed step arrives: check it on its own, then schedule it. */
  #arrive(raw: unknown, index: number): void {
    const read = readPlan([raw]);
    const step = read.plan.steps[0];
    const problems = read.problems.map((problem) => ({ ...problem, pointer: `/${index}${problem.pointer.slice(2)}` }));
    if (step === undefined) {
      for (const problem of problems) this.diagnostics.push({ code: problem.code, severity: "error", pointer: problem.pointer, message: problem.message, ...(problem.step === undefined ? {} : { step: problem.step }) });
      return;
    }
    if (this.#records.has(step.id)) {
      this.diagnostics.push({ code: "duplicate-step-id", severity: "error", step: step.id, pointer: `/${index}/id`, message: `step id ${step.id} arrived twice; the second was ignored` });
      return;
    }
    this.#add(step);
    this.#pump();
  }

  #add(step: PlanStep): void {
    const scan = scanArgs(step.args, this.#resolveOptions);
    const dependencies = new Set<number>();
    for (const ref of scan.refs) for (const node of ref.references) dependencies.add(Number(node.step.id));
    const record: StepRecord = { step, dependencies, state: "waiting", pending: 0 };
    this.#records.set(step.id, record);
    if (dependencies.has(step.id)) return this.#fail(record, "cycle", "it references its own result");
    if (toolFunction(this.tools, step.tool) === undefined) return this.#fail(record, "unknown-tool", `no function for tool "${step.tool.slice(0, 60)}"`);
    for (const dependency of dependencies) {
      const other = this.#records.get(dependency);
      if (other?.state === "done") continue;
      if (other?.state === "failed" || other?.state === "skipped") return this.#skip(record, dependency);
      record.pending++;
      const list = this.#waitingOn.get(dependency);
      if (list === undefined) this.#waitingOn.set(dependency, [step.id]);
      else list.push(step.id);
    }
    if (record.pending === 0) this.#makeReady(record);
  }

  #makeReady(record: StepRecord): void {
    record.state = "ready";
    this.#ready.push(record.step.id);
  }

  #pump(): void {
    while (this.#stopped === undefined && this.#running < this.#concurrency && this.#readyHead < this.#ready.length) {
      const id = this.#ready[this.#readyHead++]!;
      if (this.#readyHead === this.#ready.length) this.#ready.length = this.#readyHead = 0;
      this.#start(this.#records.get(id)!);
    }
    this.#settleIfIdle();
  }

  #start(record: StepRecord): void {
    const { step } = record;
    record.state = "running";
    this.#running++;
    const startMs = this.#now();
    if (this.options.onEvent !== undefined) this.#emit({ type: "step-start", stepId: step.id, tool: step.tool, startMs });
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (outcome: { ok: true; value: unknown } | { ok: false; code: StepErrorCode; detail: string; cause?: unknown }): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      if (record.state !== "running") return; // The run already gave up on it (abort, fail-fast).
      this.#running--;
      const endMs = this.#now();
      this.timings.set(step.id, { startMs, endMs, durationMs: endMs - startMs });
      if (outcome.ok) {
        const mismatch = this.#checkOutput(step, outcome.value);
        this.results.set(step.id, outcome.value);
        if (mismatch === undefined) this.#complete(record, startMs, endMs);
        else this.#fail(record, "invalid-output", mismatch, undefined, startMs, endMs);
      } else {
        this.#fail(record, outcome.code, outcome.detail, outcome.cause, startMs, endMs);
      }
      this.#pump();
    };

    let args: Record<string, unknown>;
    try {
      args = resolveRefs(step.args, this.results, this.#resolveOptions);
    } catch (error) {
      queueMicrotask(() => settle({ ok: false, code: "unresolved-args", detail: `its arguments could not be resolved: ${describeError(error)}`, cause: error }));
      return;
    }
    if (this.options.timeoutMs !== undefined) {
      const limit = this.options.timeoutMs;
      timer = setTimeout(() => {
        abortStep(record, new StepError("timeout", step.id, step.tool, `timed out after ${limit} ms`));
        settle({ ok: false, code: "timeout", detail: `timed out after ${limit} ms` });
      }, limit);
    }
    const tool = toolFunction(this.tools, step.tool)!;
    let output: unknown;
    try {
      output = tool(args, {
        stepId: step.id,
        get signal() {
          return signalOf(record);
        },
      });
    } catch (error) {
      queueMicrotask(() => settle({ ok: false, code: "tool-error", detail: `the tool threw: ${describeError(error)}`, cause: error }));
      return;
    }
    Promise.resolve(output).then(
      (value) => settle({ ok: true, value }),
      (error: unknown) => settle({ ok: false, code: "tool-error", detail: `the tool failed: ${describeError(error)}`, cause: error }),
    );
  }

  #checkOutput(step: PlanStep, value: unknown): string | undefined {
    if (this.options.validateOutputs !== true) return undefined;
    const schema = this.#outputSchema(step.tool, false);
    if (schema === undefined) return undefined;
    try {
      return outputMismatch(schema, value);
    } catch (error) {
      // The validator reads the result: a getter or Proxy trap that throws there fails the step, not the run.
      return `the result could not be read: ${describeError(error)}`;
    }
  }

  /** The catalog's output schema of a tool, if it has a usable one (compiled ahead when `prepare`). */
  #outputSchema(tool: string, prepare: boolean): boolean | Record<string, unknown> | undefined {
    if (this.#catalog === undefined) return undefined;
    const spec = Object.getOwnPropertyDescriptor(this.#catalog, tool)?.value as { output?: unknown } | undefined;
    const schema = spec?.output;
    if (schema === undefined || (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null))) return undefined;
    if (prepare) prepareOutputSchema(schema as boolean | Record<string, unknown>);
    return schema as boolean | Record<string, unknown>;
  }

  #complete(record: StepRecord, startMs: number, endMs: number): void {
    record.state = "done";
    const { step } = record;
    if (this.options.onEvent !== undefined) this.#emit({ type: "step-done", stepId: step.id, tool: step.tool, startMs, endMs, durationMs: endMs - startMs });
    for (const dependentId of this.#waitingOn.get(step.id) ?? []) {
      const dependent = this.#records.get(dependentId)!;
      if (dependent.state === "waiting" && --dependent.pending === 0) this.#makeReady(dependent);
    }
    this.#waitingOn.delete(step.id);
  }

  #fail(record: StepRecord, code: StepErrorCode, detail: string, cause?: unknown, startMs = this.#now(), endMs = startMs): void {
    record.state = "failed";
    const { step } = record;
    const error = new StepError(code, step.id, step.tool, detail, cause);
    this.errors.set(step.id, error);
    this.#emit({ type: "step-failed", stepId: step.id, tool: step.tool, error, startMs, endMs, durationMs: endMs - startMs });
    this.#skipDependents(step.id);
    if (this.options.failFast === true && this.#stopped === undefined) this.#stop("failed");
  }

  #skip(record: StepRecord, blockedBy: number): void {
    record.state = "skipped";
    this.skipped.push(record.step.id);
    this.#emit({ type: "step-skipped", stepId: record.step.id, tool: record.step.tool, blockedBy, atMs: this.#now() });
    this.#skipDependents(record.step.id);
  }

  /** Skip everything waiting on `id`, transitively, without recursion. */
  #skipDependents(id: number): void {
    const queue = [id];
    while (queue.length > 0) {
      const blocker = queue.shift()!;
      for (const dependentId of this.#waitingOn.get(blocker) ?? []) {
        const dependent = this.#records.get(dependentId)!;
        if (dependent.state !== "waiting") continue;
        dependent.state = "skipped";
        this.skipped.push(dependentId);
        this.#emit({ type: "step-skipped", stepId: dependentId, tool: dependent.step.tool, blockedBy: blocker, atMs: this.#now() });
        queue.push(dependentId);
      }
      this.#waitingOn.delete(blocker);
    }
  }

  /** Stop the run: running steps are aborted and recorded as failed, nothing new starts. */
  #stop(reason: "aborted" | "failed"): void {
    this.#stopped = reason;
    const cause = reason === "aborted" ? this.options.signal?.reason : undefined;
    for (const record of this.#records.values()) {
      if (record.state !== "running") continue;
      abortStep(record, cause ?? new RefError("aborted", "the run was stopped"));
      this.#running--;
      const endMs = this.#now();
      const detail = reason === "aborted" ? "aborted with the run" : "aborted because another step failed (failFast)";
      record.state = "failed";
      const error = new StepError("aborted", record.step.id, record.step.tool, detail, cause);
      this.errors.set(record.step.id, error);
      this.#emit({ type: "step-failed", stepId: record.step.id, tool: record.step.tool, error, startMs: endMs, endMs, durationMs: 0 });
    }
    for (const record of this.#records.values()) {
      if (record.state === "waiting" || record.state === "ready") {
        record.state = "skipped";
        this.skipped.push(record.step.id);
      }
    }
    this.#ready.length = this.#readyHead = 0;
    this.#finish?.();
  }

  #watchSignal(): void {
    const signal = this.options.signal;
    if (signal === undefined) return;
    if (signal.aborted) return this.#stop("aborted");
    signal.addEventListener("abort", () => {
      if (this.#stopped === undefined) this.#stop("aborted");
    }, { once: true });
  }

  #whenDone(): Promise<void> {
    return new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  /** When nothing runs or can start, and no more steps can arrive: fail what still waits, and finish. */
  #settleIfIdle(): void {
    if (this.#stopped !== undefined) return this.#finish?.();
    if (this.#running > 0 || this.#readyHead < this.#ready.length || this.#streamOpen) return;
    for (const record of this.#records.values()) {
      if (record.state !== "waiting") continue;
      const missing = [...record.dependencies].filter((id) => !this.#records.has(id));
      if (missing.length > 0) this.#fail(record, "missing-dependency", `it references step${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, which never arrived`);
    }
    for (const record of this.#records.values()) {
      if (record.state === "waiting") this.#fail(record, "cycle", "it is part of a reference cycle and can never run");
    }
    this.#finish?.();
  }

  #emit(event: RunEvent): void {
    if (this.options.onEvent === undefined) return;
    try {
      this.options.onEvent(event);
    } catch {
      // A broken progress listener must not break the run.
    }
  }

  #now(): number {
    return performance.now() - this.#started;
  }

  #report(status?: RunReport["status"]): RunReport {
    const final = status ?? (this.#stopped === "aborted" ? "aborted" : this.errors.size > 0 || this.diagnostics.some((d) => d.severity === "error") ? "failed" : "ok");
    return {
      status: final,
      results: this.results,
      errors: this.errors,
      skipped: this.skipped,
      diagnostics: this.diagnostics,
      timings: { totalMs: this.#now(), steps: this.timings },
    };
  }
}

/** What a tool threw, for a message. Never throws: a tool may throw a Proxy or an object whose toString throws. */
function describeError(error: unknown): string {
  return describeThrown(error).slice(0, 500);
}
