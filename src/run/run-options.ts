/**
 * `runPlan`'s options: the run's own (`RunRuleOptions`, read as `submitPlan` reads them, in
 * src/step/settings.ts) and what belongs to the process running the plan (concurrency, signal,
 * listener, approval callback, tracer, session), each read once when the run starts.
 */
import { RefError } from "../shared/errors.js";
import type { ToolFunction } from "../step/attempt.js";
import type { StepEventType } from "../step/schedule.js";
import {
  DEFAULT_CONCURRENCY,
  OPTION_MESSAGES,
  readCallback,
  readFlag,
  readOption,
  readPositiveInteger,
  readRetryOptions,
  readRunId,
  readRunOptions,
  readSignal,
  readToolConcurrency,
  refuseWithRefError,
  type RetryOptionValues,
  type RunOptionValues,
  type RunRuleOptions,
} from "../step/settings.js";
import type { StepError } from "../step/step-error.js";
import type { TraceSettings, Tracer } from "../step/tracing.js";
import { PlanSession } from "./session.js";

/** Tools by name. */
export type ToolFunctions = Readonly<Record<string, ToolFunction>>;

/** Progress of a run, as it happens. Times are milliseconds since the run started. */
export type RunEvent =
  | { readonly type: "step-start"; readonly stepId: number; readonly tool: string; readonly startMs: number }
  | {
      readonly type: "step-done";
      readonly stepId: number;
      readonly tool: string;
      readonly startMs: number;
      readonly endMs: number;
      readonly durationMs: number;
    }
  | {
      readonly type: "step-failed";
      readonly stepId: number;
      readonly tool: string;
      readonly error: StepError;
      readonly startMs: number;
      readonly endMs: number;
      readonly durationMs: number;
    }
  | { readonly type: "step-skipped"; readonly stepId: number; readonly tool: string; readonly blockedBy: number; readonly atMs: number }
  /** A try failed and the step is tried again after `delayMs`: `attempt` is the try that failed, `attempts` the policy's tries. */
  | {
      readonly type: "step-retry";
      readonly stepId: number;
      readonly tool: string;
      readonly attempt: number;
      readonly attempts: number;
      readonly delayMs: number;
      readonly error: StepError;
      readonly atMs: number;
    }
  /** The step's turn came and it waits for approval (its tool was not called): `args` are what a person approves. */
  | {
      readonly type: "step-awaiting-approval";
      readonly stepId: number;
      readonly tool: string;
      readonly args: Record<string, unknown>;
      readonly atMs: number;
    };

// Every event's name is one of the executors' shared list (a new name goes there first).
const RUN_EVENT_NAMES: Exclude<RunEvent["type"], StepEventType> extends never ? true : never = true;
void RUN_EVENT_NAMES;

/**
 * Options of `runPlan`. Each is read once, when the run starts. The language options (`syntax`,
 * `templates`, `strict`, `deep` and the limits) layer over the plan's own `options` as everywhere
 * (`layerOptions`) and reach the linter, the argument snapshots and the resolver.
 */
export interface RunOptions extends RunRuleOptions {
  /** Most tools running at once (default 8). */
  readonly concurrency?: number;
  /** Abort the run: no new step starts, running tools see the abort, the report says `aborted`. */
  readonly signal?: AbortSignal;
  /** Called for every step event. What it throws or rejects with is ignored. */
  readonly onEvent?: (event: RunEvent) => void;
  /**
   * At most this many calls of a tool at once, on top of `concurrency` (a tool absent: only `concurrency`
   * limits it). A step over its tool's limit waits, in plan order; steps of other tools do not wait for it.
   */
  readonly toolConcurrency?: Readonly<Record<string, number>>;
  /**
   * Whether a step must wait for a person's approval, asked when its turn comes with its arguments
   * resolved. `true` (or a promise of it): its tool is not called, it waits in `report.pending`, and
   * the run ends `suspended` once nothing else can run (`resumePlan` with `approve` runs it). A throw
   * or rejection fails the step (`denied`): it is never called without an answer.
   */
  readonly needsApproval?: (step: ApprovalRequest) => boolean | Promise<boolean>;
  /**
   * The OpenTelemetry tracer of the run's spans (docs/tracing.md). Default: `trace.getTracer("plan-refs")`
   * of `@opentelemetry/api` when it is installed (no SDK registered: nothing is traced); `false`: no spans.
   */
  readonly tracer?: Tracer | false;
  /** Record each step's arguments and result on its span, as JSON cut at `MAX_CONTENT_LENGTH` characters (default `false`). */
  readonly recordContent?: boolean;
  /**
   * The conversation's plan session (`createPlanSession`): the plan's steps may refer to the results
   * of earlier plans run through it (they are checked as references to this plan's own steps), and
   * its results are kept there for later plans. Whole plans only.
   */
  readonly session?: PlanSession;
}

/** What `needsApproval` is asked about: a step whose turn has come. */
export interface ApprovalRequest {
  readonly id: number;
  readonly tool: string;
  /** Its arguments, resolved: what the tool would be called with. */
  readonly args: Record<string, unknown>;
}

/** `runPlan`'s options, read once and checked. */
export interface RunSettings extends RunOptionValues, RetryOptionValues {
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: RunEvent) => unknown) | undefined;
  readonly runId: string;
  readonly needsApproval: ((step: ApprovalRequest) => unknown) | undefined;
  readonly trace: TraceSettings;
  /** Calls at once by tool name (`undefined`: only `concurrency` limits a tool). */
  readonly toolConcurrency: ReadonlyMap<string, number> | undefined;
  readonly session: PlanSession | undefined;
}

/**
 * `runPlan`'s options: the run's, and what belongs to the process (concurrency, signal, listener).
 *
 * @example
 * readRunSettings({ concurrency: 2 }).concurrency // 2
 */
export function readRunSettings(options: object): RunSettings {
  // The order the options were always read in (a getter sees the same sequence).
  const concurrency = readOption(options, "concurrency");
  const run = readRunOptions(options);
  const signal = readOption(options, "signal");
  const onEvent = readOption(options, "onEvent");
  return {
    ...run,
    concurrency: readPositiveInteger(concurrency ?? undefined, "concurrency", DEFAULT_CONCURRENCY),
    signal: readSignal(signal, "signal"),
    onEvent: readCallback<(event: RunEvent) => unknown>(onEvent, "onEvent"),
    ...readRetryOptions(options),
    runId: readRunId(readOption(options, "runId"), "runId", refuseWithRefError),
    needsApproval: readCallback<(step: ApprovalRequest) => unknown>(readOption(options, "needsApproval"), "needsApproval"),
    trace: { tracer: readTracer(readOption(options, "tracer")), recordContent: readFlag(readOption(options, "recordContent")) },
    toolConcurrency: readToolConcurrency(readOption(options, "toolConcurrency"), "toolConcurrency"),
    session: readSession(readOption(options, "session")),
  };
}

function readSession(value: unknown): PlanSession | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof PlanSession)) throw new RefError("invalid-options", "option session must be a plan session (createPlanSession())");
  return value;
}

/** A tracer (anything with `startSpan`), or `false` for none; absent: `undefined`. */
function readTracer(value: unknown): Tracer | false | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value !== "object" || value === null || typeof (value as { startSpan?: unknown }).startSpan !== "function") {
    throw refuseWithRefError(OPTION_MESSAGES.object("tracer", "an OpenTelemetry tracer (an object with startSpan), or false"));
  }
  return value as Tracer;
}
