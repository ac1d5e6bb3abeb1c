/**
 * A whole plan as one tool call of an agent framework: what the plan tool of `plan-refs/ai-sdk` and
 * `plan-refs/openai-agents` does with the plan a model sends (`runPlanCall`) and how it describes
 * itself to the model (`planCallDescription`). The answer is JSON for the model's context: a plan with
 * lint errors is not run and the answer says what to fix (so the model sends a corrected plan in its
 * next step); a run's answer holds each result cut to a bounded length.
 */
import { lintPlan } from "../lint/lint-plan.js";
import type { JsonSchema, ToolCatalog } from "../plan/plan.js";
import { readTools } from "../plan/plan.js";
import { reportToJSON, type StepErrorJSON } from "../run/report-json.js";
import { resumePlan } from "../run/resume.js";
import { runPlan, type RunOptions, type RunReport, type ToolFunctions } from "../run/run-plan.js";
import { RefError } from "../shared/errors.js";
import { isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
import { layeredOptions, type Syntax } from "../shared/options.js";
import { cutText, quoted } from "../shared/text.js";
import { fromStrictOutput } from "../formats/strict-output.js";
import type { SchemaDialect } from "../formats/plan-schema.js";

/** The longest result, in characters of its JSON text, that a plan call's answer holds by default. */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;
/** The longest answer, in characters of its JSON text, that a plan call gives by default. */
export const DEFAULT_MAX_ANSWER_CHARS = 100_000;
/** The most steps a plan tool runs from one call by default (more is `too-many-steps`, nothing runs). */
export const DEFAULT_MAX_STEPS = 1_000;
/** In a session, a result whose JSON text is at most this long is in the answer itself; a longer one is described. */
export const DEFAULT_INLINE_RESULT_CHARS = 300;
/** The most keys of an object a description lists. */
const MAX_DESCRIBED_KEYS = 30;
/** The most suspended runs a plan tool keeps for `resume`; the oldest is forgotten first. */
export const MAX_SUSPENDED_RUNS = 100;

/** Options of a plan tool: `runPlan`'s (but the catalog, which is the tools', and the signal, which is the request's), and the answer's. */
export interface PlanCallOptions extends Omit<RunOptions, "catalog" | "signal" | "onEvent"> {
  /**
   * A result whose JSON text is longer is cut to this many characters and ends with a marker saying
   * so, so that one huge result cannot flood the model's context (default 20,000).
   */
  readonly maxResultChars?: number;
  /**
   * The whole answer's JSON text is at most this long (default 100,000): its largest values are cut,
   * with the same marker as `maxResultChars`, until it fits.
   */
  readonly maxAnswerChars?: number;
  /** A plan of more steps is not run: `too-many-steps` (default 1,000). */
  readonly maxSteps?: number;
  /**
   * In a session: a result whose JSON text is at most this long is given in `described` as it is;
   * a longer one is described (its type, keys, length) and stays in the session (default 300).
   */
  readonly inlineResultChars?: number;
  /** The dialect of the plan's schema; with `"openai-strict"` the nulls strict output writes for optional arguments are dropped first. */
  readonly dialect?: SchemaDialect;
  /** Called for every step event of a run. */
  readonly onEvent?: RunOptions["onEvent"];
}

/** One problem of a plan that was not run, as the model reads it. */
export interface PlanCallDiagnostic {
  readonly code: string;
  readonly message: string;
  /** JSON Pointer into the plan the model sent. */
  readonly pointer: string;
}

/** How a plan call ended. */
export type PlanCallStatus = "ok" | "failed" | "aborted" | "invalid" | "suspended" | "error";

/**
 * The answer of every plan tool (the AI SDK's `planTool`, the Agents SDK's `run_plan`, the MCP
 * server's `run_plan`): JSON data for the model. Fields appear only when they say something:
 * `results` when the plan has no `output` (with an `output`, intermediate results never reach the
 * model), `errors`, `skipped`, `pending` and `outputError` only when not empty, `diagnostics` with
 * `invalid`, `error` with `error`, `runId` with `suspended` (what `resume` takes).
 */
export interface PlanCallResult {
  readonly status: PlanCallStatus;
  /** The run's id, when it is `suspended`: the application resumes it with the plan tool's `resume`. */
  readonly runId?: string;
  /** Each result by step id, as JSON; a result longer than `maxResultChars` is a string that ends with the cut marker. Absent when the plan has an `output`. */
  readonly results?: Readonly<Record<string, unknown>>;
  /** The plan's resolved `output`, when it has one (cut like a result). */
  readonly output?: unknown;
  /** Why the plan's `output` could not be resolved. */
  readonly outputError?: { readonly code: string; readonly message: string };
  readonly errors?: Readonly<Record<string, { readonly code: string; readonly message: string }>>;
  readonly skipped?: readonly number[];
  /** Steps waiting for a person's approval, each with its tool and the resolved arguments that will run once approved. */
  readonly pending?: Readonly<Record<string, { readonly tool: string; readonly args: unknown }>>;
  /** Why a plan was not run (`invalid`). */
  readonly diagnostics?: readonly PlanCallDiagnostic[];
  /** Why the call could not be served (`error`). */
  readonly error?: { readonly code: string; readonly message: string };
  /** In a session: the first id the next plan's steps may use (ids are never reused). */
  readonly nextStepId?: number;
  /**
   * In a session, instead of `results`: each step that succeeded, its result itself when short
   * (`inlineResultChars`), else what it is (tool, type, keys, length): the value stays in the session,
   * and a later plan refers to it by its step id.
   */
  readonly described?: Readonly<Record<string, DescribedResult>>;
  /**
   * With `invalid`, when steps started before the whole plan was known (`startEarly`): what they gave,
   * results and errors by step id (the rest of the plan ran nothing). Absent when none started.
   */
  readonly earlyResults?: {
    readonly results?: Readonly<Record<string, unknown>>;
    readonly errors?: Readonly<Record<string, { readonly code: string; readonly message: string }>>;
  };
}

/** A result as the model is told of it in a session: the value, or its description. */
export type DescribedResult =
  | { readonly value: unknown }
  | {
      readonly tool: string;
      readonly type: string;
      readonly length?: number;
      readonly keys?: Readonly<Record<string, string>>;
      readonly moreKeys?: number;
      readonly items?: string;
    };

/** What a person decided about a suspended plan call's waiting steps. */
export interface PlanCallDecision {
  /** Steps to run, each with the arguments its `pending` entry showed. */
  readonly approve?: readonly number[];
  /** Steps refused, by id, with the reason: each fails `denied`, its dependents are skipped. */
  readonly deny?: Readonly<Record<number, string>>;
}

/** What a plan call needs besides the plan: the tools, their catalog, the request's signal, and problems found before linting. */
export interface PlanCall {
  readonly tools: ToolFunctions;
  readonly catalog: ToolCatalog;
  readonly signal?: AbortSignal | undefined;
  /** Steps the integration cannot run although the catalog names their tool (an AI SDK tool without `execute`). */
  readonly check?: ((plan: unknown) => readonly PlanCallDiagnostic[]) | undefined;
  /** The run's id (default: a random one). */
  readonly runId?: string | undefined;
  /** Where a suspended run is kept for `resumePlanCall` (one per plan tool). */
  readonly suspended?: SuspendedCalls | undefined;
}

/** The checked options of a plan call. */
export type ReadPlanCallOptions = PlanCallOptions & {
  readonly maxResultChars: number;
  readonly maxAnswerChars: number;
  readonly maxSteps: number;
  readonly inlineResultChars: number;
};

/**
 * The options of a plan tool, checked when the tool is made (a mistake is a `RefError` then, never a
 * failed tool call later): `maxResultChars`, `maxAnswerChars` and `maxSteps` positive integers,
 * `dialect` one of the two.
 *
 * @example
 * readPlanCallOptions({ maxResultChars: 5_000 }).maxResultChars // 5000
 */
export function readPlanCallOptions(options: PlanCallOptions): ReadPlanCallOptions {
  if (!isPlainObject(options)) throw new RefError("invalid-options", "the plan tool's options must be a plain object");
  const count = (name: "maxResultChars" | "maxAnswerChars" | "maxSteps" | "inlineResultChars", fallback: number, what: string): number => {
    const value = ownData(options, name) ?? fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      throw new RefError("invalid-options", `option ${name} must be a positive integer (${what})`);
    return value;
  };
  const maxResultChars = count("maxResultChars", DEFAULT_MAX_RESULT_CHARS, "characters of a result's JSON text");
  const maxAnswerChars = count("maxAnswerChars", DEFAULT_MAX_ANSWER_CHARS, "characters of the answer's JSON text");
  const maxSteps = count("maxSteps", DEFAULT_MAX_STEPS, "steps of one plan");
  const inlineResultChars = count("inlineResultChars", DEFAULT_INLINE_RESULT_CHARS, "characters of a result's JSON text");
  const dialect = ownData(options, "dialect");
  if (dialect !== undefined && dialect !== "json-schema" && dialect !== "openai-strict")
    throw new RefError("invalid-options", `option dialect must be "json-schema" or "openai-strict"`);
  return {
    ...Object.fromEntries(Object.keys(options).map((key) => [key, ownData(options, key)])),
    maxResultChars,
    maxAnswerChars,
    maxSteps,
    inlineResultChars,
  };
}

/**
 * The `too-many-steps` problem of a plan of more than `max` steps (its `steps`, or a bare array of
 * steps), found before anything reads a step; `undefined` for any other plan.
 *
 * @example
 * tooManySteps({ steps: new Array(5).fill({}) }, 4)?.code // "too-many-steps"
 */
export function tooManySteps(plan: unknown, max: number): PlanCallDiagnostic | undefined {
  const bare = isPlainArray(plan);
  const steps = bare ? plan : ownData(plan, "steps");
  if (!isPlainArray(steps) || steps.length <= max) return undefined;
  return {
    code: "too-many-steps",
    message: `the plan has ${steps.length} steps; a plan of at most ${max} is run`,
    pointer: bare ? "" : "/steps",
  };
}

/** The suspended runs of one plan tool, by run id, each with what its resume needs (bounded: the oldest is forgotten first). */
export class SuspendedCalls {
  readonly #runs = new Map<
    string,
    { readonly plan: unknown; readonly report: RunReport; readonly call: PlanCall; readonly options: PlanCallOptions }
  >();

  keep(runId: string, plan: unknown, report: RunReport, call: PlanCall, options: PlanCallOptions): void {
    this.#runs.delete(runId);
    this.#runs.set(runId, { plan, report, call, options });
    if (this.#runs.size > MAX_SUSPENDED_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
  }

  /** The run, taken out: two resumes of one run cannot both run it. */
  take(
    runId: string,
  ): { readonly plan: unknown; readonly report: RunReport; readonly call: PlanCall; readonly options: PlanCallOptions } | undefined {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    return run;
  }

  /** The ids of the runs that wait, oldest first. */
  ids(): string[] {
    return [...this.#runs.keys()];
  }
}

/**
 * Lint and run a plan a model sent, and answer as JSON (`PlanCallResult`). A plan of more than
 * `maxSteps` steps, with lint errors or with problems `check` finds is not run: `{ status: "invalid",
 * diagnostics }`, each with its code, message and JSON Pointer (did-you-mean included). Otherwise
 * `runPlan` runs it with the options and the request's signal (an aborted request aborts the run). A
 * step whose tool needs approval (`requireApproval`, `approvalTools`, `needsApproval`) does not run:
 * the answer is `suspended`, with `runId` and `pending` (each waiting step's tool and resolved
 * arguments), and the run is kept in `call.suspended` for `resumePlanCall`. Each result's JSON text is
 * at most `maxResultChars` long, the whole answer's at most `maxAnswerChars`. Never throws for the
 * plan's sake.
 *
 * @example
 * await runPlanCall({ steps: [{ id: 1, tool: "geocode", args: { city: "Oslo" } }] }, { tools, catalog }, {})
 * // { status: "ok", results: { "1": { lat: 59.9, lon: 10.7 } } }
 */
export async function runPlanCall(input: unknown, call: PlanCall, options: PlanCallOptions): Promise<PlanCallResult> {
  const settings = readPlanCallOptions(options);
  const checked = checkPlanCall(input, call, settings);
  if (checked.invalid !== undefined) return checked.invalid;
  const report = await runPlan(checked.plan, call.tools, runOptionsOf(call, settings));
  return answerOf(checked.plan, report, call, settings);
}

/**
 * What a plan call checks before `runPlan` sees the plan: its size (`maxSteps`), the strict dialect's
 * nulls, and the integration's own `check` (with the lint, so the model gets every problem at once).
 * Either the plan to run or the `invalid` answer.
 */
export function checkPlanCall(
  input: unknown,
  call: PlanCall,
  settings: ReadPlanCallOptions,
): { readonly plan: unknown; readonly invalid?: undefined } | { readonly plan?: undefined; readonly invalid: PlanCallResult } {
  const tooMany = tooManySteps(input, settings.maxSteps);
  if (tooMany !== undefined) return { invalid: { status: "invalid", diagnostics: [tooMany] } };
  const plan = settings.dialect === "openai-strict" ? fromStrictOutput(input, call.catalog) : input;
  const early = call.check?.(plan) ?? [];
  if (early.length > 0) {
    const lint = lintPlan(plan, { ...languageOptionsOf(settings), tools: call.catalog }).filter(
      (diagnostic) => diagnostic.severity === "error",
    );
    return {
      invalid: { status: "invalid", diagnostics: [...early, ...lint.map(({ code, message, pointer }) => ({ code, message, pointer }))] },
    };
  }
  return { plan };
}

/** `runPlan`'s options for a plan call: the caller's, with the call's catalog, run id and signal. */
export function runOptionsOf(call: PlanCall, settings: ReadPlanCallOptions, signal: AbortSignal | undefined = call.signal): RunOptions {
  const { maxResultChars: _r, maxAnswerChars: _a, maxSteps: _s, inlineResultChars: _i, dialect: _d, ...runOptions } = settings;
  return {
    ...runOptions,
    catalog: call.catalog,
    ...(call.runId === undefined ? {} : { runId: call.runId }),
    ...(signal === undefined ? {} : { signal }),
  };
}

/** The language options (syntax, templates, deep, limits) among a plan call's settings, for the linter. */
export function languageOptionsOf(settings: ReadPlanCallOptions): Record<string, unknown> {
  const { maxResultChars: _r, maxAnswerChars: _a, maxSteps: _s, inlineResultChars: _i, dialect: _d, ...runOptions } = settings;
  return languageOf(runOptions);
}

/**
 * Resume a plan call that answered `suspended`, with what a person decided: `resumePlan` runs it again
 * from its kept report (results reused, never called twice), approved steps with exactly the arguments
 * they showed. The answer is the plan call's, as `runPlanCall`'s (it may be `suspended` again, when a
 * later step waits). Throws a `RefError`: `unknown-run` (no suspended run of that id: resumed already,
 * never suspended, or forgotten), and what `resumePlan` refuses before anything runs
 * (`not-awaiting-approval`, `plan-mismatch`, `invalid-options`), the run then kept for another try.
 *
 * @example
 * const first = await runPlanCall(plan, { tools, catalog, suspended }, {}); // first.status "suspended", first.pending["2"]
 * const second = await resumePlanCall(suspended, first.runId!, { approve: [2] });
 */
export async function resumePlanCall(
  suspended: SuspendedCalls,
  runId: string,
  decision: PlanCallDecision,
  signal?: AbortSignal,
): Promise<PlanCallResult> {
  const run = typeof runId === "string" ? suspended.take(runId) : undefined;
  if (run === undefined)
    throw new RefError(
      "unknown-run",
      `no suspended plan call has the run id ${quoted(String(runId), 80)} (resumed already, never suspended, or one of more than ${MAX_SUSPENDED_RUNS} kept)`,
    );
  if (!isPlainObject(decision)) {
    suspended.keep(runId, run.plan, run.report, run.call, run.options);
    throw new RefError("invalid-options", "the decision must be { approve?: [step ids], deny?: { id: reason } }");
  }
  const settings = readPlanCallOptions(run.options);
  const { maxResultChars: _r, maxAnswerChars: _a, maxSteps: _s, inlineResultChars: _i, dialect: _d, ...runOptions } = settings;
  let report: RunReport;
  try {
    report = await resumePlan(run.plan, run.report, run.call.tools, {
      ...runOptions,
      catalog: run.call.catalog,
      ...(ownData(decision, "approve") === undefined ? {} : { approve: ownData(decision, "approve") as readonly number[] }),
      ...(ownData(decision, "deny") === undefined ? {} : { deny: ownData(decision, "deny") as Readonly<Record<number, string>> }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    suspended.keep(runId, run.plan, run.report, run.call, run.options);
    throw error;
  }
  return answerOf(run.plan, report, run.call, settings);
}

/** A run's report as the plan call's answer; a suspended run is kept for its resume. */
export function answerOf(plan: unknown, report: RunReport, call: PlanCall, settings: ReadPlanCallOptions): PlanCallResult {
  const { maxResultChars, maxAnswerChars, inlineResultChars } = settings;
  const session = settings.session;
  if (report.status === "invalid") {
    return {
      status: "invalid",
      diagnostics: report.diagnostics
        .filter((diagnostic) => diagnostic.severity === "error")
        .map(({ code, message, pointer }) => ({ code, message, pointer })),
    };
  }
  if (report.status === "suspended") call.suspended?.keep(report.runId, plan, report, call, settings);
  const json = reportToJSON(report);
  const answer: { -readonly [K in keyof PlanCallResult]: PlanCallResult[K] } = { status: json.status };
  if (json.status === "suspended") answer.runId = json.runId;
  if (json.outputError !== undefined) answer.outputError = { code: json.outputError.code, message: json.outputError.message };
  else if (Object.hasOwn(json, "output")) answer.output = cutResult(json.output, maxResultChars);
  // With an output, the intermediate results stay here: keeping them out of the model's context is what the output is for.
  if (session !== undefined) {
    // The values stay in the session: the model is told what each is, and uses it by its step id.
    answer.nextStepId = session.nextStepId;
    const tools = new Map<number, string>();
    for (const [id, kept] of session.earlier().kept) tools.set(id, kept.tool);
    answer.described = Object.fromEntries(
      Object.entries(json.results).map(([id, value]) => [id, describeResult(value, tools.get(Number(id)) ?? "", inlineResultChars)]),
    );
  } else if (!Object.hasOwn(json, "output") && json.outputError === undefined) {
    const results: Record<string, unknown> = {};
    for (const [id, value] of Object.entries(json.results)) results[id] = cutResult(value, maxResultChars);
    answer.results = results;
  }
  const errors = Object.entries<StepErrorJSON>(json.errors);
  if (errors.length > 0)
    answer.errors = Object.fromEntries(errors.map(([id, error]) => [id, { code: error.code, message: error.message }]));
  if (json.skipped.length > 0) answer.skipped = json.skipped;
  if (json.pending !== undefined)
    answer.pending = Object.fromEntries(
      Object.entries(json.pending).map(([id, step]) => [id, { tool: step.tool, args: cutResult(step.args, maxResultChars) }]),
    );
  return boundAnswer(answer, maxAnswerChars);
}

/**
 * A result as the model is told of it in a session: itself when its JSON text is at most `inline`
 * characters, else its tool and type, an object's keys with each value's type, an array's length and
 * the shape of its items, a string's length.
 *
 * @example
 * describeResult({ hits: [1, 2, 3] }, "search", 5) // { tool: "search", type: "object", keys: { hits: "array of 3" } }
 */
export function describeResult(value: unknown, tool: string, inline: number): DescribedResult {
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= inline) return { value };
  if (typeof value === "string") return { tool, type: "string", length: value.length };
  if (Array.isArray(value))
    return { tool, type: "array", length: value.length, ...(value.length === 0 ? {} : { items: shapeOf(value[0]) }) };
  if (isPlainObject(value)) {
    const names = Object.keys(value);
    const keys = Object.fromEntries(names.slice(0, MAX_DESCRIBED_KEYS).map((name) => [name, shapeOf(value[name])]));
    return { tool, type: "object", keys, ...(names.length > MAX_DESCRIBED_KEYS ? { moreKeys: names.length - MAX_DESCRIBED_KEYS } : {}) };
  }
  return { value };
}

/** A value's shape in a few words: its JSON type, an array's length, an object's first keys. */
function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (isPlainObject(value)) {
    const names = Object.keys(value);
    return names.length === 0
      ? "object"
      : `object with keys ${names.slice(0, 8).join(", ")}${names.length > 8 ? `, and ${names.length - 8} more` : ""}`;
  }
  return typeof value;
}

/** Room a cut value's marker and the escapes of its text may take beyond the characters kept. */
const CUT_ROOM = 64;

/**
 * The answer with its JSON text at most `max` characters: while it is longer, the largest values
 * (results, the output, pending arguments, error messages) are cut to an equal share of what is left,
 * with `cutResult`'s marker. The answer's frame (status, ids, codes) is never cut.
 */
function boundAnswer(answer: PlanCallResult, max: number): PlanCallResult {
  if (JSON.stringify(answer).length <= max) return answer;
  const copy = structuredClone(answer) as { -readonly [K in keyof PlanCallResult]: PlanCallResult[K] };
  const slots: { get(): unknown; set(value: unknown): void }[] = [];
  const add = (holder: Record<string, unknown>, key: string): void =>
    void slots.push({ get: () => holder[key], set: (value) => void (holder[key] = value) });
  if (copy.results !== undefined) for (const id of Object.keys(copy.results)) add(copy.results, id);
  if (Object.hasOwn(copy, "output")) add(copy, "output");
  if (copy.pending !== undefined) for (const step of Object.values(copy.pending)) add(step, "args");
  if (copy.errors !== undefined) for (const error of Object.values(copy.errors)) add(error, "message");
  // A few rounds: each cuts the values over an equal share of what the frame leaves; escapes in a cut text can overshoot once.
  for (let round = 0; round < 4; round++) {
    const total = JSON.stringify(copy).length;
    if (total <= max) return copy;
    const sizes = slots.map((slot) => (JSON.stringify(slot.get()) ?? "null").length);
    const frame = total - sizes.reduce((sum, size) => sum + size, 0);
    const cap = equalShare(sizes, Math.max(0, max - frame - CUT_ROOM * round));
    slots.forEach((slot, i) => {
      if (sizes[i]! > cap) slot.set(cutResult(slot.get(), Math.max(1, cap - CUT_ROOM)));
    });
  }
  return copy;
}

/** The largest cap such that the sizes, each cut to it, add up to at most `budget`. */
function equalShare(sizes: readonly number[], budget: number): number {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    if (sorted[i]! > share) return share;
    left -= sorted[i]!;
  }
  return Number.MAX_SAFE_INTEGER;
}

/** The language options among a plan call's options, for the linter. */
function languageOf(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { concurrency: _c, timeoutMs: _t, failFast: _f, validateOutputs: _v, onEvent: _e, ...language } = options;
  return language;
}

/**
 * A result as the answer holds it: itself when its JSON text has at most `max` characters, else the
 * first `max` characters of that text and a marker saying how long it was.
 *
 * @example
 * cutResult("x".repeat(50), 10) // '"xxxxxxxxx… [cut: 10 of 52 characters]'
 */
export function cutResult(value: unknown, max: number): unknown {
  const text = JSON.stringify(value) ?? "null";
  if (text.length <= max) return value;
  return cutText(text, max, `… [cut: ${max} of ${text.length} characters]`);
}

/** Most tools the description names (a catalog may have hundreds). */
const MAX_DESCRIBED_TOOLS = 30;

/**
 * What the plan tool tells the model: the plan's shape, the reference language in a few lines (as the
 * options set it: syntax, templates, deep), that independent steps run at the same time, what the
 * answer holds, and one example plan built from the catalog's own tools.
 *
 * @example
 * planCallDescription({ geocode: { input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } })
 * // "Run several tool calls as one plan: …"
 */
export function planCallDescription(
  catalog: ToolCatalog,
  options: Pick<PlanCallOptions, "syntax" | "templates" | "deep"> & { readonly session?: PlanCallOptions["session"] | true } = {},
): string {
  const problems: string[] = [];
  const tools = readTools(catalog, (pointer, message) => void problems.push(`${pointer || "/"}: ${message}`), "");
  if (tools === undefined || problems.length > 0)
    throw new RefError("invalid-options", `the plan tool's catalog cannot be used: ${problems[0] ?? "no tools"}`);
  const { syntax, templates, deep } = layeredOptions(undefined, options);
  const names = Object.keys(tools);
  const lines = [
    `Run several tool calls as one plan, in one call: {"steps":[{"id":1,"tool":"<name>","args":{…}}, …]}. Each step has a unique integer id.`,
    referenceLines(syntax, templates, deep),
    "A step runs as soon as the steps it references are done; steps that do not depend on each other run at the same time. Prefer one plan over several calls.",
    `Optionally add "output": {"answer":"$3.text", …} beside "steps": written like args, it is resolved when every step has run and is the answer's "output", so you need not read every result.`,
    `A plan with mistakes is not run: the answer is {"status":"invalid","diagnostics":[{code,message,pointer}]}; fix what they say and send the corrected plan. Otherwise the answer is {"status","results" (by step id)} with "errors" and "skipped" when some failed; with "output" in the plan, the answer has "output" instead of "results". Status "suspended": steps wait for a person's approval ("pending"); do not send the plan again.`,
    `Tools: ${names.slice(0, MAX_DESCRIBED_TOOLS).join(", ")}${names.length > MAX_DESCRIBED_TOOLS ? `, and ${names.length - MAX_DESCRIBED_TOOLS} more` : ""}.`,
  ];
  const session = options.session;
  if (session !== undefined) {
    lines.push(
      `Plans of this conversation share their results: a step of an earlier plan is used by its id ("$3.items"); its value stays here (the answer's "described" says what it is), so use it by reference, never by retyping it. Ids are never reused: number this plan's steps from ${session === true ? `the last answer's "nextStepId"` : `${session.nextStepId} (the answer's "nextStepId")`}.`,
    );
  }
  const example = examplePlan(tools, syntax);
  if (example !== undefined) lines.push(`Example: ${JSON.stringify(example)}`);
  return lines.join("\n");
}

function referenceLines(syntax: Syntax, templates: boolean, deep: boolean): string {
  const parts = [`An argument that is exactly "$2" is step 2's whole result; "$2.key" is one key of it.`];
  if (syntax === "path")
    parts.push(`"$2.a.b" walks keys, "$2.items[0]" indexes a list, "$2.city ?? \\"Paris\\"" gives a default when a key is missing.`);
  if (templates) parts.push(`"Weather in \${2.city}" puts a value into text.`);
  parts.push(
    deep
      ? "References work inside nested objects and lists too."
      : "Only a whole top-level argument is a reference (not one nested inside an object or a list).",
  );
  return parts.join(" ");
}

/** An example value for a JSON Schema. */
function exampleValue(schema: unknown, name: string): unknown {
  if (!isPlainObject(schema)) return `<${name}>`;
  const constant = ownData(schema, "const");
  if (constant !== undefined) return constant;
  const choices = ownData(schema, "enum");
  if (isPlainArray(choices) && choices.length > 0) return choices[0];
  const type = ownData(schema, "type");
  const first = isPlainArray(type) ? type.find((one) => one !== "null") : type;
  switch (first) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return `<${name}>`;
  }
}

/** The required argument names of an input schema (at most three), else its first property. */
function argumentNames(input: JsonSchema | undefined): string[] {
  const properties = ownData(input, "properties");
  if (!isPlainObject(properties)) return [];
  const required = ownData(input, "required");
  const names = isPlainArray(required)
    ? required.filter((name): name is string => typeof name === "string" && Object.hasOwn(properties, name))
    : [];
  return (names.length > 0 ? names : Object.keys(properties).slice(0, 1)).slice(0, 3);
}

/**
 * A two-step plan over the catalog's tools whose second step references the first: the first tool
 * with an output schema that has properties feeds a key of it to another tool. Kept only if it lints
 * clean, so the model is never shown a wrong plan.
 */
function examplePlan(
  tools: Readonly<Record<string, { readonly input?: JsonSchema; readonly output?: JsonSchema }>>,
  syntax: Syntax,
): unknown {
  const names = Object.keys(tools);
  if (names.length === 0) return undefined;
  const argsOf = (tool: string): Record<string, unknown> => {
    const input = tools[tool]!.input;
    const properties = ownData(input, "properties");
    return Object.fromEntries(argumentNames(input).map((name) => [name, exampleValue(ownData(properties, name), name)]));
  };
  const source = names.find((name) => isPlainObject(ownData(tools[name]!.output, "properties"))) ?? names[0]!;
  const target =
    names.find((name) => name !== source && argumentNames(tools[name]!.input).length > 0) ??
    names.find((name) => name !== source) ??
    source;
  const first = { id: 1, tool: source, args: argsOf(source) };
  const second = { id: 2, tool: target, args: argsOf(target) };
  // Every argument the first tool's output has a key for (by name, else by type) is referenced, as a
  // real plan would: a literal beside a reference teaches the model to copy values by hand. The first
  // argument is referenced even without a match, so the example always shows a reference.
  const outputProperties = ownData(tools[source]!.output, "properties");
  const outputKeys = isPlainObject(outputProperties) ? Object.keys(outputProperties) : [];
  const typeOf = (schema: unknown, name: string): unknown => ownData(ownData(schema, name), "type");
  const used = new Set<string>();
  argumentNames(tools[target]!.input).forEach((argument, index) => {
    const wanted = typeOf(ownData(tools[target]!.input, "properties"), argument);
    const sameType = (name: string): boolean => wanted !== undefined && typeOf(outputProperties, name) === wanted;
    const key =
      outputKeys.find((name) => name === argument) ??
      outputKeys.find((name) => !used.has(name) && sameType(name)) ??
      outputKeys.find(sameType) ??
      (index === 0 ? (outputKeys[0] ?? "") : undefined);
    if (key === undefined) return;
    used.add(key);
    second.args[argument] = key === "" ? "$1" : `$1.${key}`;
  });
  for (const plan of [{ steps: [first, second] }, { steps: [first] }]) {
    if (!lintPlan(plan, { tools, syntax }).some((diagnostic) => diagnostic.severity === "error")) return plan;
  }
  return undefined;
}
