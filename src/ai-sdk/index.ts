/**
 * `plan-refs/ai-sdk`: plans over the tools of the Vercel AI SDK (`ai`, an optional peer dependency).
 * `catalogFromAiSdk` reads a tool set's schemas as a catalog, `toolsFromAiSdk` turns its tools into
 * tool functions for `runPlan` and the workers, and `planTool` is one AI SDK tool that takes a whole
 * plan: a chain of dependent calls costs one model round trip instead of one per call, and the
 * intermediate results never pass through the model's context.
 */
import { asSchema, jsonSchema, type Tool, type ToolSet } from "ai";
import {
  planCallDescription,
  readPlanCallOptions,
  resumePlanCall,
  runPlanCall,
  SuspendedCalls,
  type PlanCall,
  type PlanCallDecision,
  type PlanCallDiagnostic,
  type PlanCallOptions,
  type PlanCallResult,
} from "../agents/plan-call.js";
import { EarlyCalls, EarlyPlanCall, earlyRule, readInputIdleMs, type StartEarly } from "../agents/early-start.js";
import { planSchema } from "../formats/plan-schema.js";
import type { JsonSchema, ToolCatalog, ToolSpec } from "../plan/plan.js";
import { requireApproval } from "../step/gated.js";
import { approvalFor, readToolApproval, type AiSdkToolApproval, type ApprovalScope, type ReadApproval } from "./tool-approval.js";
import { idempotencyKey } from "../step/attempt.js";
import type { ToolContext, ToolFunction, ToolFunctions } from "../run/run-plan.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { defineOwn, isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
import { pointerToken } from "../shared/pointer.js";
import { quoted, safeText } from "../shared/text.js";

export { DEFAULT_INPUT_IDLE_MS, type StartEarly } from "../agents/early-start.js";
export {
  APPROVAL_STATUSES,
  type AiSdkApprovalStatus,
  type AiSdkGenericToolApproval,
  type AiSdkSingleToolApproval,
  type AiSdkToolApproval,
} from "./tool-approval.js";
export {
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_MAX_STEPS,
  type PlanCallDecision,
  type PlanCallDiagnostic,
  type PlanCallOptions,
  type PlanCallResult,
  type PlanCallStatus,
} from "../agents/plan-call.js";

/**
 * The options of a tool's `execute` that plan-refs reads and passes on. Taken from `Tool` because ai 7
 * made `ToolExecutionOptions` generic (over a tool's own context) and ai 6's is not.
 */
type ExecuteOptions = Pick<Parameters<NonNullable<Tool["execute"]>>[1], "toolCallId" | "messages" | "abortSignal"> & {
  /** ai 6's context of the whole call (`generateText`'s `experimental_context`), passed on to each step's call. */
  readonly experimental_context?: unknown;
};

/** The tools of an AI SDK tool set, each read once: its name, the tool, and its `execute` when it has one. */
interface ReadTool {
  readonly name: string;
  readonly tool: Tool;
  readonly execute: ((input: unknown, options: ExecuteOptions) => unknown) | undefined;
  /** Its `needsApproval`: `true`, or a function of its input (`false` and absent: it runs without asking). */
  readonly needsApproval:
    true | ((input: unknown, options: { toolCallId: string; messages: unknown[]; context?: unknown }) => unknown) | undefined;
}

function readToolSet(tools: ToolSet, what: string): ReadTool[] {
  if (typeof tools !== "object" || tools === null || Array.isArray(tools))
    throw new RefError("invalid-options", `${what}: the tools must be an AI SDK tool set (an object mapping names to tools)`);
  return Object.keys(tools).map((name) => {
    const tool = ownData(tools, name);
    if (typeof tool !== "object" || tool === null)
      throw new RefError("invalid-options", `${what}: tool ${quoted(name, 40)} is not an AI SDK tool`);
    const execute = ownData(tool, "execute");
    const needsApproval = ownData(tool, "needsApproval");
    if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function")
      throw new RefError("invalid-options", `${what}: the needsApproval of tool ${quoted(name, 40)} must be a boolean or a function`);
    return {
      name,
      tool: tool as Tool,
      execute: typeof execute === "function" ? (execute as ReadTool["execute"]) : undefined,
      needsApproval:
        needsApproval === true ? true : typeof needsApproval === "function" ? (needsApproval as ReadTool["needsApproval"]) : undefined,
    };
  });
}

/** A tool schema's JSON Schema through the SDK's own conversion (`asSchema`), as plain data. */
function jsonSchemaOf(schema: unknown, where: string): JsonSchema {
  let json: unknown;
  try {
    json = asSchema(schema as Parameters<typeof asSchema>[0]).jsonSchema;
  } catch (error) {
    throw new RefError(
      "invalid-options",
      `catalogFromAiSdk: ${where} could not be converted to JSON Schema: ${safeText(describeThrown(error), 160)}`,
    );
  }
  if (typeof (json as { then?: unknown } | undefined)?.then === "function") {
    throw new RefError(
      "invalid-options",
      `catalogFromAiSdk: ${where} gives its JSON Schema asynchronously; give the tool a schema whose JSON Schema is known at once (Zod, a Standard JSON Schema, or jsonSchema({...}))`,
    );
  }
  try {
    const copy = JSON.parse(JSON.stringify(json)) as unknown;
    if (typeof copy === "boolean" || isPlainObject(copy)) return copy;
  } catch {
    // Reported below.
  }
  throw new RefError("invalid-options", `catalogFromAiSdk: ${where} did not give a JSON Schema object`);
}

/**
 * The catalog of an AI SDK tool set: each tool's `inputSchema` as `input`, its `outputSchema` (when
 * it has one) as `output` and its `description`, converted by the SDK's own `asSchema` (what the
 * SDK sends a provider). Throws `RefError` `invalid-options` for a tool whose schema cannot be converted.
 *
 * @example
 * const tools = { geocode: tool({ inputSchema: z.object({ city: z.string() }), execute: lookUp }) };
 * catalogFromAiSdk(tools).geocode.input // { type: "object", properties: { city: { type: "string" } }, required: ["city"], … }
 */
export function catalogFromAiSdk(tools: ToolSet): ToolCatalog {
  const catalog = Object.create(null) as Record<string, ToolSpec>;
  for (const { name, tool } of readToolSet(tools, "catalogFromAiSdk")) {
    const description = ownData(tool, "description");
    const outputSchema = ownData(tool, "outputSchema");
    const spec: ToolSpec = {
      ...(typeof description === "string" ? { description } : {}),
      input: jsonSchemaOf(ownData(tool, "inputSchema"), `the inputSchema of tool ${quoted(name, 40)}`),
      ...(outputSchema === undefined ? {} : { output: jsonSchemaOf(outputSchema, `the outputSchema of tool ${quoted(name, 40)}`) }),
    };
    defineOwn(catalog, name, spec);
  }
  return catalog;
}

/** Options of `toolsFromAiSdk` (and of `planTool`: `toolApproval`, `runtimeContext`, `toolsContext`). */
export interface AiSdkToolsOptions {
  /** The first part of each call's `toolCallId` (`<runId>:<stepId>`); default: a random id for each `toolsFromAiSdk` call. */
  readonly runId?: string;
  /**
   * The approval rules you give `generateText` / `streamText` (ai 7's `toolApproval`: one function for
   * every call, or a status or function per tool), applied to each step with its resolved arguments
   * as the SDK applies them to a direct call, before the tool's own `needsApproval`: `'user-approval'`
   * holds the step (the run is `suspended`), `'denied'` fails it (`denied`), `'approved'` and
   * `'not-applicable'` run it. Give the same rules here, or a tool gated only by `toolApproval` runs
   * inside a plan without asking.
   */
  readonly toolApproval?: AiSdkToolApproval;
  /** The `runtimeContext` your `toolApproval` functions read (ai 7: what you give `generateText`). */
  readonly runtimeContext?: unknown;
  /** Each tool's context by tool name (ai 7's `toolsContext`): its `execute` gets it as `context`, its rules as `toolContext`. */
  readonly toolsContext?: Readonly<Record<string, unknown>>;
}

/**
 * Tool functions for `runPlan` and the workers from an AI SDK tool set: a step calls the tool's
 * `execute(args, { toolCallId: "<runId>:<stepId>", messages: [], abortSignal })` with the step's
 * signal; a streamed result (an async iterable) gives its last value. A tool without `execute` has
 * no function (`runPlan` reports the step as `unknown-tool`; `planTool` as `no-execute`). A tool with
 * `needsApproval` keeps it: its function is marked with `requireApproval` (the SDK's `needsApproval`
 * asked with the step's resolved arguments), so `runPlan` holds its steps for approval (status
 * `suspended`, `report.pending`) exactly as the SDK holds a direct call, and the PostgreSQL workers
 * hold every step of it.
 *
 * @example
 * const report = await runPlan(plan, toolsFromAiSdk(tools), { catalog: catalogFromAiSdk(tools) });
 */
export function toolsFromAiSdk(tools: ToolSet, options: AiSdkToolsOptions = {}): ToolFunctions {
  const runId = ownData(options, "runId") ?? globalThis.crypto.randomUUID();
  if (typeof runId !== "string") throw new RefError("invalid-options", "toolsFromAiSdk: option runId must be a string");
  const read = readToolSet(tools, "toolsFromAiSdk");
  const approval = readApprovalOptions(tools, options, "toolsFromAiSdk");
  return functionsOf(read, approval, runId, { messages: [], ...approval.scope });
}

/** `toolsFromAiSdk`'s and `planTool`'s approval options, read and checked. */
interface ApprovalOptions {
  readonly read: ReadApproval;
  readonly scope: Omit<ApprovalScope, "messages">;
}

function readApprovalOptions(tools: ToolSet, options: object, what: string): ApprovalOptions {
  const config = readToolApproval(ownData(options, "toolApproval"), what);
  const toolsContext = ownData(options, "toolsContext");
  if (toolsContext !== undefined && !isPlainObject(toolsContext))
    throw new RefError("invalid-options", `${what}: option toolsContext must be an object of contexts by tool name`);
  const runtimeContext = ownData(options, "runtimeContext");
  return {
    read: { config, tools },
    scope: {
      ...(runtimeContext === undefined ? {} : { runtimeContext }),
      ...(toolsContext === undefined ? {} : { toolsContext }),
    },
  };
}

/** The tool functions of a read tool set: each gated as the SDK gates its direct calls (tool-approval.ts), each call made within `scope`. */
function functionsOf(read: readonly ReadTool[], approval: ApprovalOptions, runId: string, scope: ApprovalScope): ToolFunctions {
  const functions = Object.create(null) as Record<string, ToolFunction>;
  const toolCallId = (stepId: number) => idempotencyKey(runId, stepId);
  for (const { name, execute, needsApproval } of read) {
    if (execute === undefined) continue;
    const context = ownData(scope.toolsContext, name);
    const fn = ((args, step) => callTool(execute, args, step, toolCallId(step.stepId), scope, context)) satisfies ToolFunction;
    const rule = approvalFor(approval.read, name, needsApproval, toolCallId, () => scope);
    defineOwn(functions, name, rule === undefined ? fn : requireApproval(fn, rule));
  }
  return functions;
}

async function callTool(
  execute: NonNullable<ReadTool["execute"]>,
  args: Record<string, unknown>,
  step: ToolContext,
  toolCallId: string,
  scope: ApprovalScope,
  context: unknown,
): Promise<unknown> {
  const result = await execute(args, {
    toolCallId,
    messages: [...scope.messages] as ExecuteOptions["messages"],
    abortSignal: step.signal,
    ...(context === undefined ? {} : { context }),
    ...(scope.experimentalContext === undefined ? {} : { experimental_context: scope.experimentalContext }),
  });
  return isAsyncIterable(result) ? lastValue(result, step.signal) : result;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/** The last value of a streamed result; an aborted step stops reading it (and ends the stream). */
async function lastValue(stream: AsyncIterable<unknown>, signal: AbortSignal): Promise<unknown> {
  let last: unknown;
  for await (const value of stream) {
    last = value;
    signal.throwIfAborted();
  }
  return last;
}

/**
 * Options of `planTool`: `runPlan`'s (`concurrency`, `timeoutMs`, `failFast`, `validateOutputs`, the
 * language options), the answer's `maxResultChars`, the schema's `dialect`, and the approval rules
 * and contexts of `toolsFromAiSdk` (`toolApproval`, `runtimeContext`, `toolsContext`).
 */
export interface AiSdkPlanToolOptions extends PlanCallOptions, Omit<AiSdkToolsOptions, "runId"> {
  /** The tool's description; default: one that teaches the reference language with an example built from the tools. */
  readonly description?: string;
  /**
   * Under `streamText`, the tools whose steps may start while the model is still writing the rest of
   * the plan (names, or a predicate of the name): a step starts early only if its tool is one of them,
   * needs no approval, and everything it references started early too; every other step waits for the
   * whole plan and its lint. Only for tools whose calls are safe to make for a plan that may turn out
   * invalid (read-only ones). Default: none (AI SDK tools carry no read-only mark). With a `session`,
   * the early steps run outside it (only the whole plan's results are kept), and a step that reads an
   * earlier plan's result waits for the whole plan.
   */
  readonly startEarly?: StartEarly;
  /** How long a streamed plan may pause before its early steps are aborted (default 60,000 ms). */
  readonly inputIdleMs?: number;
}

/** The plan tool: an AI SDK tool, and `resume` for the runs it answered `suspended`. */
export type AiSdkPlanTool = Tool<unknown, PlanCallResult> & {
  /**
   * Resume a plan call that answered `suspended` (its `runId` is the call's `toolCallId`) with what a
   * person decided; the answer is the whole plan's. Throws `RefError` `unknown-run`,
   * `not-awaiting-approval` or `plan-mismatch` (see `resumePlan`).
   */
  resume(runId: string, decision: PlanCallDecision, options?: { readonly signal?: AbortSignal }): Promise<PlanCallResult>;
};

/**
 * One AI SDK tool that runs a whole plan over `tools`. Its `inputSchema` is `planSchema` over the
 * tools' catalog (`dialect` option), its description teaches the reference language with an example
 * built from the tools. `execute(plan, { abortSignal, toolCallId })` lints the plan: one with errors
 * is not run, and the answer `{ status: "invalid", diagnostics: [{ code, message, pointer }] }` tells
 * the model what to fix (a step whose tool has no `execute` is `no-execute`). Otherwise it runs
 * (independent steps at the same time) and answers with the shared plan-call answer (`results`, or
 * `output` when the plan has one), each result cut at `maxResultChars`, the answer at
 * `maxAnswerChars`; the step calls get the toolCallId `<toolCallId>:<stepId>`, and an aborted request
 * aborts the run. A step whose tool has `needsApproval` (asked with its resolved arguments) does not
 * run: the answer is `suspended` with `pending`, and the application decides with `resume`. With
 * `startEarly` (under `streamText`), the steps of those tools start as the model writes them, before
 * the plan is whole; `execute` then joins that run (see `AiSdkPlanToolOptions.startEarly`; an invalid
 * plan's answer has `earlyResults`).
 *
 * @example
 * const tools = { geocode, weather, summarize };
 * const result = await generateText({ model, tools: { ...tools, run_plan: planTool(tools) }, stopWhen: stepCountIs(4), prompt });
 */
export function planTool(tools: ToolSet, options: AiSdkPlanToolOptions = {}): AiSdkPlanTool {
  const {
    description,
    startEarly,
    inputIdleMs,
    toolApproval: _toolApproval,
    runtimeContext: _runtimeContext,
    toolsContext: _toolsContext,
    ...callOptions
  } = readPlanCallOptions(options) as ReturnType<typeof readPlanCallOptions> & AiSdkPlanToolOptions;
  if (description !== undefined && typeof description !== "string")
    throw new RefError("invalid-options", "planTool: option description must be a string");
  const read = readToolSet(tools, "planTool");
  const approval = readApprovalOptions(tools, options, "planTool");
  const catalog = catalogFromAiSdk(tools);
  const language = { ...pick(callOptions, "syntax"), ...pick(callOptions, "templates"), ...pick(callOptions, "deep") };
  const schema = planSchema(catalog, { ...language, ...pick(callOptions, "dialect") });
  const withoutExecute = new Set(read.filter((tool) => tool.execute === undefined).map((tool) => tool.name));
  const suspended = new SuspendedCalls();
  // Each plan call's steps are called, and asked about, with that call's messages and context.
  const callOf = (toolCallId: string, abortSignal: AbortSignal | undefined, call?: ExecuteOptions): PlanCall => ({
    tools: functionsOf(read, approval, toolCallId, {
      messages: call?.messages ?? [],
      ...approval.scope,
      ...(call?.experimental_context === undefined ? {} : { experimentalContext: call.experimental_context }),
    }),
    catalog,
    signal: abortSignal,
    check: (value) => noExecute(value, withoutExecute),
    runId: toolCallId,
    suspended,
  });
  const mayStart = earlyRule(catalog, startEarly);
  const idleMs = readInputIdleMs(inputIdleMs);
  // Only under streamText do the input callbacks run; generateText calls execute with the whole plan.
  const early =
    mayStart === undefined
      ? undefined
      : new EarlyCalls(idleMs, (toolCallId) => new EarlyPlanCall(callOf(toolCallId, undefined), callOptions, mayStart));
  return {
    description: description ?? planCallDescription(catalog, { ...language, ...pick(callOptions, "session") }),
    // No validate: the plan reaches execute as the model wrote it, and the linter says what is wrong with it.
    inputSchema: jsonSchema<unknown>(schema as unknown as Parameters<typeof jsonSchema>[0]),
    ...(early === undefined
      ? {}
      : {
          onInputStart: ({ toolCallId, abortSignal }: ExecuteOptions) => early.start(toolCallId, abortSignal),
          onInputDelta: ({ toolCallId, inputTextDelta }: { inputTextDelta: string } & ExecuteOptions) =>
            early.feed(toolCallId, inputTextDelta),
        }),
    execute: (plan: unknown, call: ExecuteOptions) => {
      const { abortSignal, toolCallId } = call;
      const streamed = early?.take(toolCallId);
      return streamed === undefined
        ? runPlanCall(plan, callOf(toolCallId, abortSignal, call), callOptions)
        : streamed.join(plan, abortSignal);
    },
    resume: (runId, decision, resumeOptions) =>
      resumePlanCall(suspended, runId, decision, ownData(resumeOptions, "signal") as AbortSignal | undefined),
  };
}

function pick<T extends object, K extends keyof T>(options: T, key: K): Partial<Pick<T, K>> {
  const value = ownData(options, key as string);
  return value === undefined ? {} : ({ [key]: value } as Partial<Pick<T, K>>);
}

/** A `no-execute` problem for each step whose tool the model can see but nothing can run. */
function noExecute(plan: unknown, withoutExecute: ReadonlySet<string>): PlanCallDiagnostic[] {
  if (withoutExecute.size === 0) return [];
  const steps = isPlainArray(plan) ? plan : ownData(plan, "steps");
  if (!isPlainArray(steps)) return [];
  const base = isPlainArray(plan) ? "" : "/steps";
  const found: PlanCallDiagnostic[] = [];
  steps.forEach((step, index) => {
    const name = ownData(step, "tool");
    if (typeof name === "string" && withoutExecute.has(name)) {
      found.push({
        code: "no-execute",
        message: `tool ${quoted(name, 40)} has no execute function: it cannot be a step of a plan`,
        pointer: `${base}/${pointerToken(String(index))}/tool`,
      });
    }
  });
  return found;
}
