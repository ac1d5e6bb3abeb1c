/**
 * Starting a plan's first steps while the model is still writing the rest: the text of a plan tool's
 * input is fed, chunk by chunk, to the incremental reader; each step that may start early goes at once
 * into a streamed `runPlan` (the early run). When the whole input is there, the plan is checked and
 * linted as a whole, as any plan call: an invalid one runs nothing more (the early run is stopped and
 * the answer keeps what it gave); a valid one runs whole, reusing the early results, so one answer, one
 * report, one `output` rule, as without streaming.
 *
 * The safety rule: a step starts early only if its tool may (`startEarly`, else `readOnly: true` in the
 * catalog), its tool needs no approval, its arguments lint clean against the early steps it references,
 * and everything it references started early too. A plan whose `options` or `tools` come after its
 * steps stops the early run and runs whole, as if nothing had started (the early steps were read under
 * other options).
 */
import { referencedStepIds } from "../grammar/ast.js";
import { lintPlan } from "../lint/lint-plan.js";
import { PlanTextReader } from "../plan/incremental-reader.js";
import { readPlan, type LocatedStep, type ToolCatalog } from "../plan/plan.js";
import { scanArgs } from "../plan/references.js";
import { fromStrictOutput } from "../formats/strict-output.js";
import type { ResumeState } from "../run/approval.js";
import type { PlanSession } from "../run/session.js";
import type { StepFailure } from "../step/attempt.js";
import { approvalRuleOf } from "../step/gated.js";
import { canonicalJson, PlanText } from "../step/plan-hash.js";
import { runResumable, type RunReport } from "../run/run-plan.js";
import { readRunSettings } from "../run/run-options.js";
import { MAX_TIMEOUT_MS } from "../step/settings.js";
import { startRunTrace, type RunTrace } from "../step/tracing.js";
import { RefError } from "../shared/errors.js";
import { layeredOptions } from "../shared/options.js";
import { isPlainArray, ownData } from "../shared/own-data.js";
import {
  answerOf,
  checkPlanCall,
  cutResult,
  languageOptionsOf,
  runOptionsOf,
  type PlanCall,
  type PlanCallResult,
  type ReadPlanCallOptions,
} from "./plan-call.js";

/** Which tools' steps may start before the whole plan is known: tool names, or a predicate of the tool's name. */
export type StartEarly = readonly string[] | ((toolName: string) => boolean);

/** How long an early call waits for the next piece of its input before it gives up (its early steps aborted), by default. */
export const DEFAULT_INPUT_IDLE_MS = 60_000;
/** The most plan calls of one plan tool whose input is being streamed at once; more run as whole plans. */
export const MAX_OPEN_EARLY_CALLS = 100;

/**
 * The rule of which tools may start early: the `startEarly` list or predicate, else the catalog's
 * `readOnly: true` (set by the developer who knows the tool; nothing a server or a model says counts).
 * `undefined` when no tool of the catalog may (nothing is streamed then). Throws `RefError`
 * `invalid-options` for a `startEarly` that is neither.
 *
 * @example
 * earlyRule({ geocode: { readOnly: true }, book: {} }, undefined)?.("geocode") // true
 * earlyRule({ geocode: {}, book: {} }, ["geocode"])?.("book") // false
 */
export function earlyRule(catalog: ToolCatalog, startEarly: unknown): ((toolName: string) => boolean) | undefined {
  if (startEarly === undefined) {
    const names = new Set(Object.keys(catalog).filter((name) => ownData(ownData(catalog, name), "readOnly") === true));
    return names.size === 0 ? undefined : (name) => names.has(name);
  }
  if (typeof startEarly === "function") {
    const predicate = startEarly as (toolName: string) => unknown;
    return (name) => {
      try {
        return predicate(name) === true;
      } catch {
        return false; // a predicate that throws allows nothing
      }
    };
  }
  if (isPlainArray(startEarly) && startEarly.every((name) => typeof name === "string")) {
    const names = new Set(startEarly as readonly string[]);
    return names.size === 0 ? undefined : (name) => names.has(name);
  }
  throw new RefError("invalid-options", "option startEarly must be a list of tool names or a function (toolName) => boolean");
}

/**
 * The `inputIdleMs` option of a plan tool, checked (default `DEFAULT_INPUT_IDLE_MS`). Throws `RefError`
 * `invalid-options` for anything but a whole number of milliseconds from 1 to `MAX_TIMEOUT_MS`.
 *
 * @example
 * readInputIdleMs(undefined) // 60000
 */
export function readInputIdleMs(value: unknown): number {
  if (value === undefined) return DEFAULT_INPUT_IDLE_MS;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new RefError("invalid-options", `option inputIdleMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

/** The steps handed to the early run, as an async iterable it reads (closed when the input is whole). */
class StepQueue implements AsyncIterable<unknown> {
  readonly #items: unknown[] = [];
  #head = 0;
  #closed = false;
  #wake: (() => void) | undefined;

  push(step: unknown): void {
    this.#items.push(step);
    this.#wake?.();
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    for (;;) {
      while (this.#head < this.#items.length) {
        const step = this.#items[this.#head];
        this.#items[this.#head++] = undefined; // the run keeps its own snapshot
        yield step;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}

/** An early run's report, or why it could not run. */
type EarlyOutcome = { readonly report: RunReport } | { readonly error: unknown };

/**
 * One plan tool call whose input is being streamed: `feed` each piece of the input's text, then `join`
 * with the whole input (what `execute` gets) for the answer, or `abort` when the input will never be
 * whole (the request aborted, the stream failed or stalled). Exactly one run of each step: the early
 * run's results are reused by the whole run, never called again.
 *
 * @example
 * const early = new EarlyPlanCall(call, readPlanCallOptions({}), (tool) => tool === "geocode");
 * early.feed('{"steps":[{"id":1,"tool":"geocode","args":{"city":"Oslo"}}'); // step 1 starts now
 * early.feed("]}");
 * const answer = await early.join(JSON.parse(early.text));
 */
export class EarlyPlanCall {
  readonly #reader: PlanTextReader;
  readonly #queue = new StepQueue();
  readonly #controller = new AbortController();
  readonly #language: ReturnType<typeof layeredOptions>;
  readonly #lintOptions: Record<string, unknown>;
  /** The steps that started early, by id. */
  readonly #early = new Map<number, LocatedStep>();
  /** Ids of every step read so far. */
  readonly #ids = new Set<number>();
  #run: Promise<EarlyOutcome> | undefined;
  /**
   * The call's one run span, when traced: the early run's steps and the whole run's go under it, and
   * it ends once, with the call's status (the whole run's, or `invalid`, or `aborted`).
   */
  #trace: RunTrace | undefined;
  /** Nothing more starts early. */
  #closed = false;
  /** The early steps were read under the wrong options: their results are dropped. */
  #spoiled = false;
  #ended = false;

  constructor(
    readonly call: PlanCall,
    readonly settings: ReadPlanCallOptions,
    readonly mayStart: (toolName: string) => boolean,
  ) {
    this.#reader = new PlanTextReader({ maxSteps: settings.maxSteps });
    const language = languageOptionsOf(settings);
    this.#language = layeredOptions(undefined, language);
    this.#lintOptions = { ...language, tools: call.catalog };
    // A needsApproval callback may hold any step: none starts early.
    if (typeof ownData(settings, "needsApproval") === "function") this.#closed = true;
  }

  /** The input's text so far. */
  get text(): string {
    return this.#reader.text;
  }

  /** The ids of the steps that started early, in order. */
  get started(): number[] {
    return [...this.#early.keys()];
  }

  /** The next piece of the input's text; the steps it completes start now if they may. */
  feed(delta: string): void {
    if (this.#ended) return;
    const steps = this.#reader.push(delta);
    const settings = this.#reader.settings;
    if (settings !== "none") {
      // Options or tools of the plan's own: before the steps, nothing started; after, what started was read under other options.
      if (settings === "after" && this.#early.size > 0) this.#spoiled = true;
      this.#closed = true;
    }
    for (const step of steps) this.#consider(step.value);
    if (this.#spoiled)
      this.#controller.abort(new RefError("aborted", "the plan's options or tools came after its first steps: the plan runs whole"));
    // Text that cannot be a plan: the framework will not call execute with it, so the early steps stop now.
    if (this.#reader.problem !== undefined) this.abort(`the plan's text cannot be read: ${this.#reader.problem.message}`);
  }

  /** The input will never be whole: the early run is aborted (every started tool's signal fires) and nothing more starts. */
  abort(reason: string): void {
    this.#ended = true;
    this.#closed = true;
    this.#queue.close();
    if (!this.#controller.signal.aborted) this.#controller.abort(new RefError("aborted", reason));
    // No whole run will take the run span over: it ends with the early run.
    void this.#run?.then(() => this.#endTrace("aborted", reason));
  }

  /** End the call's run span (its last holder) when no whole run takes it over. */
  #endTrace(status: string, message: string): void {
    const trace = this.#trace;
    this.#trace = undefined;
    trace?.end(status, this.#early.size, message);
  }

  /** The early run, finished (aborted ones included); `undefined` when nothing started early. */
  async settled(): Promise<EarlyOutcome | undefined> {
    return this.#run;
  }

  #consider(raw: unknown): void {
    const value = this.settings.dialect === "openai-strict" ? (fromStrictOutput({ steps: [raw] }, this.call.catalog).steps[0] ?? raw) : raw;
    const read = readPlan([value]);
    const step = read.steps[0];
    if (step === undefined) return;
    const seen = this.#ids.has(step.id);
    this.#ids.add(step.id);
    if (this.#closed || seen || read.problems.length > 0 || !this.#mayStartTool(step.tool)) return;
    const scan = scanArgs(step.args, this.#language);
    if (scan.malformed.length > 0) return;
    const dependencies = new Set<number>();
    for (const ref of scan.refs) for (const id of referencedStepIds(ref.ast)) dependencies.add(id);
    const before: LocatedStep[] = [];
    for (const id of dependencies) {
      const other = this.#early.get(id);
      if (other === undefined) return; // it waits for a step that did not start early (or is its own)
      before.push(other);
    }
    // Linted against the early steps it references, as the whole plan's lint will read it; only its own
    // problems count (the steps before it were linted when they came, against what they reference).
    const mini = { steps: [...before, step].map(({ id, tool, args }) => ({ id, tool, args })) };
    const own = `/steps/${before.length}`;
    const problems = lintPlan(mini, this.#lintOptions).filter(
      (diagnostic) =>
        diagnostic.severity === "error" &&
        (diagnostic.pointer === own || diagnostic.pointer.startsWith(`${own}/`) || diagnostic.pointer === ""),
    );
    if (problems.length > 0) return;
    if ((this.call.check?.(mini) ?? []).length > 0) return;
    this.#early.set(step.id, step);
    this.#run ??= this.#startRun();
    this.#queue.push({ id: step.id, tool: step.tool, args: step.args });
  }

  #mayStartTool(tool: string): boolean {
    if (!this.mayStart(tool)) return false;
    const approvalTools = ownData(this.settings, "approvalTools");
    if (isPlainArray(approvalTools) && approvalTools.includes(tool)) return false;
    const fn = ownData(this.call.tools, tool);
    return typeof fn === "function" && approvalRuleOf(fn) === undefined;
  }

  #startRun(): Promise<EarlyOutcome> {
    // Outside the session: a streamed run cannot be in one, and only the whole run's results are the
    // plan's (an early step never reads an earlier plan's result: it would wait for a step that did not start early).
    const { session: _session, ...options } = runOptionsOf(this.call, this.settings, this.#controller.signal);
    let runId: string | undefined;
    try {
      const settings = readRunSettings(options);
      runId = settings.runId;
      this.#trace = startRunTrace(settings.trace, runId);
    } catch {
      this.#trace = undefined; // options the run itself refuses: it says so
    }
    return runResumable(this.#queue, this.call.tools, options, undefined, runId, this.#trace?.share()).then(
      (report) => ({ report }),
      (error: unknown) => ({ error }),
    );
  }

  /**
   * The whole input is there (`input`, as the framework parsed it): check and lint it as a whole,
   * then stop the early run (invalid: the answer is `invalid` with `earlyResults`) or run the whole
   * plan reusing the early results. `signal` is the call's (it aborts the early run too).
   */
  async join(input: unknown, signal?: AbortSignal): Promise<PlanCallResult> {
    this.#ended = true;
    this.#closed = true;
    this.#queue.close();
    const onAbort = (): void => this.#controller.abort(signal?.reason);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.#answer(input, signal);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      this.#endTrace("error", "the plan call ended before its whole run"); // no-op once the whole run took it over
    }
  }

  async #answer(input: unknown, signal: AbortSignal | undefined): Promise<PlanCallResult> {
    const call: PlanCall = { ...this.call, signal };
    const checked = checkPlanCall(input, call, this.settings);
    let invalid = checked.invalid;
    if (invalid === undefined) {
      // In a session the whole plan may refer to earlier plans' steps, linted as the run will.
      const session = ownData(this.settings, "session") as PlanSession | undefined;
      const lintOptions = session === undefined ? this.#lintOptions : { ...this.#lintOptions, earlierSteps: session.earlier() };
      const errors = lintPlan(checked.plan, lintOptions).filter((diagnostic) => diagnostic.severity === "error");
      if (errors.length > 0)
        invalid = { status: "invalid", diagnostics: errors.map(({ code, message, pointer }) => ({ code, message, pointer })) };
    }
    if (invalid !== undefined || this.#spoiled)
      this.#controller.abort(
        new RefError("aborted", invalid === undefined ? "the plan runs whole" : "the plan is invalid: nothing more runs"),
      );
    const outcome = await this.#run;
    if (outcome !== undefined && "error" in outcome) throw outcome.error;
    const early = outcome?.report;
    if (invalid !== undefined) {
      this.#endTrace("invalid", "the plan is invalid: nothing more runs");
      return early === undefined ? invalid : { ...invalid, ...earlyResultsOf(early, this.settings.maxResultChars) };
    }
    const plan = checked.plan;
    const reused = this.#spoiled || early === undefined ? undefined : this.#reusable(plan, early);
    const options = runOptionsOf(call, this.settings);
    // The whole run takes the call's run span over: its steps go under it, and its end is the span's.
    const trace = this.#trace;
    this.#trace = undefined;
    const report =
      reused === undefined || reused.results.size + reused.failed.size === 0
        ? await runResumable(plan, call.tools, options, undefined, undefined, trace)
        : await runResumable(plan, call.tools, options, await reuseState(plan, reused), undefined, trace);
    return answerOf(plan, report, call, this.settings);
  }

  /**
   * What the whole plan reuses of the early run: the result or the failure of each early step to which
   * the whole plan gives exactly the same tool and arguments (so no step is called twice).
   */
  #reusable(plan: unknown, early: RunReport): Reused {
    const results = new Map<number, unknown>();
    const failed = new Map<number, StepFailure>();
    for (const step of readPlan(plan).steps) {
      const ran = this.#early.get(step.id);
      if (ran === undefined || ran.tool !== step.tool || canonicalJson(ran.args) !== canonicalJson(step.args)) continue;
      const error = early.errors.get(step.id);
      if (error !== undefined) {
        const prefix = `step ${step.id} (${step.tool}): `;
        failed.set(step.id, {
          code: error.code,
          detail: error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message,
          ...(error.cause === undefined ? {} : { cause: error.cause }),
        });
      } else if (early.results.has(step.id)) results.set(step.id, early.results.get(step.id));
    }
    return { results, failed };
  }
}

/** What the whole run takes over from the early run. */
interface Reused {
  readonly results: ReadonlyMap<number, unknown>;
  readonly failed: ReadonlyMap<number, StepFailure>;
}

/** A resume state that only reuses results and failures: the plan's own hash, nothing approved, denied or waiting. */
async function reuseState(plan: unknown, { results, failed }: Reused): Promise<ResumeState> {
  const read = readPlan(plan);
  const text = new PlanText(read.plan.options, read.steps.length);
  for (const step of read.steps) text.add(step);
  return { planHash: await text.hash(), results, failed, approved: new Set(), denied: new Map(), waiting: new Set(), shown: new Map() };
}

/** What the early steps gave, for an `invalid` answer (each result cut like any answer's). */
function earlyResultsOf(report: RunReport, maxResultChars: number): Pick<PlanCallResult, "earlyResults"> {
  const results: Record<string, unknown> = {};
  const errors: Record<string, { code: string; message: string }> = {};
  for (const [id, value] of report.results) if (!report.errors.has(id)) results[id] = cutResult(value, maxResultChars);
  for (const [id, error] of report.errors) errors[id] = { code: error.code, message: error.message };
  const hasResults = Object.keys(results).length > 0;
  const hasErrors = Object.keys(errors).length > 0;
  if (!hasResults && !hasErrors) return {};
  return { earlyResults: { ...(hasResults ? { results } : {}), ...(hasErrors ? { errors } : {}) } };
}

/**
 * The early calls of one plan tool, by tool call id: made when a call's input starts, fed its pieces,
 * taken by the call's `execute` (exactly one run per call), dropped when the request aborts or the
 * input stalls for `idleMs`. At most `MAX_OPEN_EARLY_CALLS` at once.
 *
 * @example
 * const calls = new EarlyCalls(60_000, (id) => new EarlyPlanCall(callFor(id), settings, rule));
 * calls.start("call_1", abortSignal); calls.feed("call_1", '{"steps":[');
 * const answer = await (calls.take("call_1")?.join(plan) ?? runPlanCall(plan, callFor("call_1"), options));
 */
export class EarlyCalls {
  readonly #calls = new Map<
    string,
    { readonly early: EarlyPlanCall; timer: ReturnType<typeof setTimeout> | undefined; readonly unlisten: () => void }
  >();

  constructor(
    readonly idleMs: number,
    readonly make: (callId: string) => EarlyPlanCall,
  ) {}

  /** A call's input starts (`signal`: the request's). */
  start(callId: string, signal: AbortSignal | undefined): void {
    this.drop(callId, "a new input started with the same tool call id");
    if (this.#calls.size >= MAX_OPEN_EARLY_CALLS || signal?.aborted === true) return;
    const early = this.make(callId);
    const onAbort = (): void => this.drop(callId, "the request was aborted");
    signal?.addEventListener("abort", onAbort, { once: true });
    const entry = {
      early,
      timer: undefined as ReturnType<typeof setTimeout> | undefined,
      unlisten: () => signal?.removeEventListener("abort", onAbort),
    };
    this.#calls.set(callId, entry);
    this.#arm(callId, entry);
  }

  /** A piece of a call's input. */
  feed(callId: string, delta: string): void {
    const entry = this.#calls.get(callId);
    if (entry === undefined) return;
    entry.early.feed(delta);
    this.#arm(callId, entry);
  }

  /** The call's early run, taken out (its watchdog and abort listener removed), or `undefined`. */
  take(callId: string): EarlyPlanCall | undefined {
    const entry = this.#calls.get(callId);
    if (entry === undefined) return undefined;
    this.#calls.delete(callId);
    clearTimeout(entry.timer);
    entry.unlisten();
    return entry.early;
  }

  /** Abort a call's early run and forget it. */
  drop(callId: string, reason: string): void {
    this.take(callId)?.abort(reason);
  }

  /** The ids of the calls being streamed. */
  ids(): string[] {
    return [...this.#calls.keys()];
  }

  #arm(callId: string, entry: { timer: ReturnType<typeof setTimeout> | undefined }): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.drop(callId, `no more of the plan arrived for ${this.idleMs} ms`), this.idleMs);
    // A stalled stream must not keep the process alive.
    (entry.timer as { unref?: () => void }).unref?.();
  }
}
