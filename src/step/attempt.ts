/**
 * One attempt of one step, the part of running a step that both executors share (`runPlan` in one
 * process, the PostgreSQL workers in many): resolve its arguments, call its tool with its context, a
 * timeout and a signal, and classify how that ended — a value, a throw, a rejection, a result that
 * cannot be read, a timeout, an abort, a value that fails a check (invalid output, unserializable) —
 * with one table of failure messages. `attempt` is a single try: whoever retries calls it again.
 *
 * The executor is the attempt's `owner`: it resolves the arguments, makes the context, checks a value
 * and hears how the attempt ended. The attempt reaches its owner through the step (`step.owner`), so a
 * tool that never settles holds only its step, never the executor, once the executor lets go
 * (`step.owner = undefined`). A tool that returns a plain value costs no promise: the attempt ends
 * inside `attempt` (`later` false); a promise, a timer or an abort ends it later (`later` true).
 *
 * @example
 * // The owner's side, in short (runPlan's Run and the worker each implement it):
 * // resolveArgs(step) → args; contextOf(step) → { stepId, signal }; checkResult(step, value) → undefined;
 * // ended(step, value, failure, later, abortReason) → record the outcome
 * attempt(step, fn, owner, 60_000)
 */
import { didYouMean } from "../lint/did-you-mean.js";
import type { JsonSchema, ToolCatalog } from "../plan/plan.js";
import { describeThrown, withoutStack } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { isStandardJsonSchema, standardJsonSchema } from "../shared/standard-schema.js";
import { cutText, quoted, safeText } from "../shared/text.js";
import { outputMismatch } from "./output-validator.js";
import { StepError, type StepErrorCode } from "./step-error.js";

/** What a tool receives besides its arguments. */
export interface ToolContext {
  readonly stepId: number;
  /** Aborted when the run is aborted, when the step times out, or (with `failFast`) when another step fails. */
  readonly signal: AbortSignal;
  /** The try of this step, 1 on the first (more when a retry policy tries it again). Set by `runPlan` and the workers. */
  readonly attempt?: number;
  /**
   * `runId:stepId`, the same on every try of the step: a key for a side effect that must happen once
   * (a payment, an e-mail) although the tool may be called again. Set by `runPlan`.
   */
  readonly idempotencyKey?: string;
}

/**
 * A step's idempotency key, `runId:stepId`: the same on every try of the step, in both executors, and
 * the id of its tool call on a span (`gen_ai.tool.call.id`) and for the AI SDK (`toolCallId`).
 *
 * @example
 * idempotencyKey("trip-1", 3) // "trip-1:3"
 */
export function idempotencyKey(runId: string, stepId: number): string {
  return `${runId}:${stepId}`;
}

/** A tool: resolved arguments in, a result (or a promise of one) out. */
export type ToolFunction = (args: Record<string, unknown>, context: ToolContext) => unknown;

/** Why an attempt (or a step that never got to one) failed: a `StepError`'s code, detail and cause. */
export interface StepFailure {
  readonly code: StepErrorCode;
  readonly detail: string;
  /**
   * `detail` with every argument or result value it quotes reduced to its shape (`valueShape`), for a
   * span while content is not recorded; absent: `detail` quotes no value.
   */
  readonly detailWithoutValues?: string;
  readonly cause?: unknown;
}

/** What a tool threw, for a message. Never throws: a tool may throw a Proxy or an object whose toString throws. */
export function describeError(error: unknown): string {
  return cutText(describeThrown(error), 500);
}

/** Why resolved arguments do not fit: the step error's detail, and the same with every argument value reduced to its shape. */
export interface InputMismatch {
  /** What the report and the model see: the values found quoted (`/a must be a number (got "three")`). */
  readonly detail: string;
  /** What a span may carry while content is not recorded (`/a must be a number (got a string of 5 characters)`). */
  readonly detailWithoutValues: string;
}

/**
 * The one table of step failure details (after `step 3 (tool): `), for both executors. Names from a
 * plan are escaped (`quoted`); what was thrown is described by `describeError`.
 */
export const STEP_FAILURES = {
  unreadableArgs: (cause: unknown): StepFailure => ({
    code: "unresolved-args",
    detail: `its arguments could not be read: ${describeError(cause)}`,
    cause,
  }),
  unresolvedArgs: (cause: unknown): StepFailure => ({
    code: "unresolved-args",
    detail: `its arguments could not be resolved: ${describeError(cause)}`,
    cause,
  }),
  selfReference: (): StepFailure => ({ code: "cycle", detail: "it references its own result" }),
  cycle: (): StepFailure => ({ code: "cycle", detail: "it is part of a reference cycle and can never run" }),
  missingDependencies: (missing: readonly number[]): StepFailure => ({
    code: "missing-dependency",
    detail: `it references step${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, which never arrived`,
  }),
  toolLookup: (tool: string, cause: unknown): StepFailure => ({
    code: "unknown-tool",
    detail: `its tool ${quoted(tool)} could not be looked up: ${describeError(cause)}`,
    cause,
  }),
  unknownTool: (tool: string, among: string, names: Iterable<string>): StepFailure => ({
    code: "unknown-tool",
    detail: unknownToolMessage(tool, among, names),
  }),
  denied: (reason: string): StepFailure => ({ code: "denied", detail: `its approval was denied: ${safeText(reason, 500)}` }),
  approvalFailed: (cause: unknown): StepFailure => ({
    code: "denied",
    detail: `needsApproval failed, so it was not called: ${describeError(cause)}`,
    cause,
  }),
  threw: (cause: unknown): StepFailure => ({ code: "tool-error", detail: `the tool threw: ${describeError(cause)}`, cause }),
  rejected: (cause: unknown): StepFailure => ({ code: "tool-error", detail: `the tool failed: ${describeError(cause)}`, cause }),
  unreadableResult: (cause: unknown): StepFailure => ({
    code: "tool-error",
    detail: `the tool's result could not be read: ${describeError(cause)}`,
    cause,
  }),
  timeout: (limit: number): StepFailure => ({ code: "timeout", detail: timeoutDetail(limit) }),
  aborted: (detail: string, cause?: unknown): StepFailure => ({ code: "aborted", detail, ...(cause === undefined ? {} : { cause }) }),
  invalidOutput: (mismatch: string): StepFailure => ({ code: "invalid-output", detail: mismatch }),
  invalidInput: (mismatch: InputMismatch): StepFailure => ({
    code: "invalid-input",
    detail: mismatch.detail,
    detailWithoutValues: mismatch.detailWithoutValues,
  }),
  unserializable: (reason: string): StepFailure => ({ code: "unserializable", detail: `its result cannot be stored as JSON: ${reason}` }),
} as const;

function timeoutDetail(limit: number): string {
  return `timed out after ${limit} ms`;
}

/**
 * The unknown-tool message of every executor and of the command line: the tool's name escaped, where
 * the function was looked for (`among`, written by the caller), and a did-you-mean when a name is close
 * (else `orElse`, the caller's words for what there is, if any).
 *
 * @example
 * unknownToolMessage("fetch_pgae", " on this worker", ["fetch_page"]) // 'no function for tool "fetch_pgae" on this worker; did you mean "fetch_page"?'
 */
export function unknownToolMessage(
  tool: string,
  among: string,
  names: Iterable<string>,
  orElse: (names: Iterable<string>) => string = () => "",
): string {
  let suggestion: string | undefined;
  try {
    suggestion = didYouMean(tool, names);
  } catch {
    // Names that cannot be listed (a hostile tools object): no suggestion.
  }
  return `no function for tool ${quoted(tool)}${among}${suggestion !== undefined ? `; did you mean ${quoted(suggestion)}?` : orElse(names)}`;
}

/**
 * The names of a tools object whose value is a function (own data properties only; never throws: a
 * hostile object lists none). For a did-you-mean, on the failure path only.
 */
export function toolNames(tools: object): string[] {
  try {
    return Object.keys(tools).filter((name) => typeof ownData(tools, name) === "function");
  } catch {
    return [];
  }
}

/** The catalog's output schema of a tool, if it has a usable one (own data only; may throw: a Proxy trap). */
export function outputSchemaOf(catalog: ToolCatalog | Readonly<Record<string, unknown>>, tool: string): JsonSchema | undefined {
  const given = ownData(ownData(catalog, tool), "output");
  // A schema library's schema: its JSON Schema, converted once (the linter has reported one that does not convert).
  const output = isStandardJsonSchema(given) ? standardJsonSchema(given, "output") : given;
  return typeof output === "boolean" || (typeof output === "object" && output !== null) ? (output as JsonSchema) : undefined;
}

/**
 * Why a result fails its output schema (`invalid-output`), or `undefined`. The validator reads the
 * result: a getter or Proxy trap that throws fails the step, never the run.
 */
export function checkOutput(schema: JsonSchema | undefined, value: unknown): StepFailure | undefined {
  if (schema === undefined) return undefined;
  let mismatch: string | undefined;
  try {
    mismatch = outputMismatch(schema, value);
  } catch (error) {
    mismatch = `the result could not be read: ${describeError(error)}`;
  }
  return mismatch === undefined ? undefined : STEP_FAILURES.invalidOutput(mismatch);
}

/**
 * Whether a try's value is the step's result: when the try succeeded, and also when the value only
 * failed its output schema (`invalid-output`: the step fails, and its result is kept for a person to
 * see, in `runPlan`'s report as in a worker's stored step).
 *
 * @example
 * keepsResult(STEP_FAILURES.invalidOutput("/ must be string")) // true
 * keepsResult(STEP_FAILURES.timeout(100))                      // false
 */
export function keepsResult(failure: StepFailure | undefined): boolean {
  return failure === undefined || failure.code === "invalid-output";
}

/** A step as an attempt sees it; the executor's own record of the step implements it. */
export interface AttemptStep<S> {
  readonly id: number;
  readonly tool: string;
  /** The attempt's timer, while one runs (cleared when the attempt ends, or by the executor). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Who hears how the attempt ends; `undefined` once the executor has let go of the step. */
  owner: AttemptOwner<S> | undefined;
  /** The step's current try (1, 2, …) where the executor retries: an outcome of an earlier try is dropped. */
  readonly attempt?: number;
}

/** The executor's side of an attempt. */
export interface AttemptOwner<S> {
  /** Whether the step's attempt is still on (an outcome that comes after the executor gave up is dropped). */
  isRunning(step: S): boolean;
  /** The step's arguments, resolved against the results of its dependencies; what it throws is `unresolved-args`. */
  resolveArgs(step: S): Record<string, unknown>;
  /** What the tool receives besides its arguments. */
  contextOf(step: S): ToolContext;
  /** Why the resolved arguments must not reach the tool (`invalid-input`), or `undefined`: the tool is then not called. */
  checkInput?(step: S, args: Record<string, unknown>): StepFailure | undefined;
  /** Why a value is not the step's result after all (`invalid-output`, `unserializable`), or `undefined`. */
  checkResult(step: S, value: unknown): StepFailure | undefined;
  /**
   * The attempt ended, once: with the tool's value (`failure` undefined), or a failure (with the value
   * the tool gave, for `invalid-output`). `later`: called from a promise job, a timer or an abort,
   * not from inside `attempt`, so nothing may escape and the executor moves on by itself. A timeout
   * gives `abortReason`: the step's signal is to be aborted with it once the failure is recorded.
   */
  ended(step: S, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void;
}

/**
 * Run one attempt of one step: resolve its arguments, start its timer (`timeoutMs`, `undefined` for no
 * limit), call `fn` and classify the outcome, which reaches `owner.ended` once (now, or later).
 * Never throws what the tool or its result throws.
 *
 * @example
 * attempt(record, tools.geocode, run, settings.timeoutMs)
 */
export function attempt<S extends AttemptStep<S>>(step: S, fn: ToolFunction, owner: AttemptOwner<S>, timeoutMs: number | undefined): void {
  let args: Record<string, unknown>;
  try {
    args = owner.resolveArgs(step);
  } catch (error) {
    return owner.ended(step, undefined, STEP_FAILURES.unresolvedArgs(error), false);
  }
  // After the arguments are resolved, before the tool is called (and before its timer starts).
  const refused = owner.checkInput?.(step, args);
  if (refused !== undefined) return owner.ended(step, undefined, refused, false);
  if (timeoutMs !== undefined) step.timer = setTimeout(onTimeout, timeoutMs, step, timeoutMs);
  let output: unknown;
  try {
    output = fn(args, owner.contextOf(step));
  } catch (error) {
    return end(step, owner, undefined, STEP_FAILURES.threw(error), false);
  }
  // A result that is not a thenable ends the attempt now, without a promise per step.
  if ((typeof output === "object" && output !== null) || typeof output === "function") {
    try {
      const then = (output as { then?: unknown }).then;
      if (typeof then === "function") {
        // Handlers are attached even if the run stopped meanwhile: a rejection is never left unhandled.
        const tryOf = step.attempt;
        Promise.resolve(output).then(
          (value) => step.attempt === tryOf && onValue(step, value),
          (error: unknown) => step.attempt === tryOf && onError(step, error),
        );
        return;
      }
    } catch (error) {
      return end(step, owner, undefined, STEP_FAILURES.unreadableResult(error), false);
    }
  }
  settleValue(step, owner, output, false);
}

/**
 * End a step's attempt from outside (its run was stopped, its worker is stopping): its timer cleared,
 * `failure` given to the owner as a later outcome, unless the attempt is over already.
 *
 * @example
 * signal.addEventListener("abort", () => endAttempt(step, STEP_FAILURES.aborted("aborted with the run")))
 */
export function endAttempt<S extends AttemptStep<S>>(step: S, failure: StepFailure): void {
  const owner = step.owner;
  if (owner === undefined || !owner.isRunning(step)) return;
  end(step, owner, undefined, failure, true);
}

/** Clear a step's attempt timer, if one runs. */
export function clearAttemptTimer(step: AttemptStep<unknown>): void {
  if (step.timer !== undefined) {
    clearTimeout(step.timer);
    step.timer = undefined;
  }
}

function end<S extends AttemptStep<S>>(
  step: S,
  owner: AttemptOwner<S>,
  value: unknown,
  failure: StepFailure | undefined,
  later: boolean,
  abortReason?: unknown,
): void {
  clearAttemptTimer(step);
  owner.ended(step, value, failure, later, abortReason);
}

function settleValue<S extends AttemptStep<S>>(step: S, owner: AttemptOwner<S>, value: unknown, later: boolean): void {
  if (!owner.isRunning(step)) return; // the executor already gave up on it (abort, fail-fast, timeout)
  end(step, owner, value, owner.checkResult(step, value), later);
}

// Callbacks of timers and tool promises: module functions that reach the owner through the step, so a
// tool that never settles keeps neither the executor nor its results alive once the step is let go.
function onValue<S extends AttemptStep<S>>(step: S, value: unknown): void {
  const owner = step.owner;
  if (owner !== undefined) settleValue(step, owner, value, true);
}

function onError<S extends AttemptStep<S>>(step: S, error: unknown): void {
  const owner = step.owner;
  if (owner !== undefined && owner.isRunning(step)) end(step, owner, undefined, STEP_FAILURES.rejected(error), true);
}

function onTimeout<S extends AttemptStep<S>>(step: S, limit: number): void {
  step.timer = undefined;
  const owner = step.owner;
  if (owner === undefined || !owner.isRunning(step)) return;
  // Abort reasons are built without a stack: a captured stack keeps its frames' receivers (the run, and
  // so its results) alive for as long as a tool that never settles keeps its signal.
  const reason = withoutStack(() => new StepError("timeout", step.id, step.tool, timeoutDetail(limit)));
  end(step, owner, undefined, STEP_FAILURES.timeout(limit), true, reason);
}
