/**
 * `plan-refs/openai-agents`: a whole plan as one tool call in the OpenAI Agents SDK (`@openai/agents`,
 * an optional peer dependency). `planTool(agentTools)` is a function tool `run_plan` whose strict
 * parameters are the plan schema over the agent's function tools; each step runs through that tool's
 * own `invoke`, so its parsing, guardrails-free execution and error handling are the SDK's.
 */
import {
  planCallDescription,
  readPlanCallOptions,
  resumePlanCall,
  runPlanCall,
  SuspendedCalls,
  type PlanCallDecision,
  type PlanCallOptions,
  type PlanCallResult,
} from "../agents/plan-call.js";
import { planSchema } from "../formats/plan-schema.js";
import type { JsonSchema, ToolCatalog, ToolSpec } from "../plan/plan.js";
import { requireApproval } from "../step/gated.js";
import type { ToolFunction } from "../run/run-plan.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { defineOwn, isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
import { quoted, safeText } from "../shared/text.js";

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
 * A tool of an agent as plan-refs reads it. The SDK's `Tool` fits (its function tools have `invoke`,
 * `parameters` and `description`); the types are written here so that these declarations do not pull
 * in the SDK's, which do not compile under every module setting without `skipLibCheck`.
 */
export interface AgentTool {
  readonly type: string;
  readonly name?: string;
}

/** The strict JSON Schema of the plan tool's parameters (`planSchema` in the openai-strict dialect). */
export interface PlanToolParameters {
  readonly [keyword: string]: unknown;
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
}

/** The plan tool: a `FunctionTool` of the Agents SDK (structurally; `new Agent({ tools: [planTool(tools)] })` takes it). */
export interface PlanFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: PlanToolParameters;
  strict: true;
  /** Runs the plan in `input` (JSON text); the answer is JSON text. */
  invoke(runContext: unknown, input: string, details?: { readonly signal?: AbortSignal | undefined }): Promise<string>;
  /** The plan tool itself asks for no approval: each step whose tool does is held inside the plan, with its resolved arguments. */
  needsApproval(): Promise<boolean>;
  isEnabled(): Promise<boolean>;
  /**
   * Resume a run the tool answered `suspended` (the answer's `runId`) with what a person decided; the
   * answer is the whole plan's. Throws `RefError` `unknown-run`, `not-awaiting-approval` or
   * `plan-mismatch` (see `resumePlan`).
   */
  resume(runId: string, decision: PlanCallDecision, options?: { readonly signal?: AbortSignal }): Promise<PlanCallResult>;
}

/** How a step calls an agent's function tool, and asks whether a call needs approval. */
interface Invocable {
  invoke(runContext: unknown, input: string, details?: { readonly signal?: AbortSignal }): Promise<unknown>;
}

/** A function tool's `needsApproval` (the SDK's `tool()` always makes one; `false` becomes `async () => false`). */
type AgentApproval = (runContext: unknown, input: unknown, callId?: string) => unknown;

/** The name of the plan tool. */
export const PLAN_TOOL_NAME = "run_plan";

/** Options of `planTool`: those of every plan tool (`runPlan`'s, `maxResultChars`), and the tool's description and name. */
export interface AgentsPlanToolOptions extends Omit<PlanCallOptions, "dialect"> {
  /** The tool's description; default: one that teaches the reference language with an example built from the tools. */
  readonly description?: string;
  /** The tool's name (default `run_plan`). */
  readonly name?: string;
}

/** A function tool of an agent, read once. */
interface ReadTool {
  readonly name: string;
  readonly spec: ToolSpec;
  readonly tool: Invocable;
  readonly needsApproval: AgentApproval | undefined;
}

function readAgentTools(tools: readonly AgentTool[]): ReadTool[] {
  if (!isPlainArray(tools)) throw new RefError("invalid-options", "planTool: the tools must be an array of the agent's function tools");
  const read: ReadTool[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const type = ownData(tool, "type");
    const name = ownData(tool, "name");
    const invoke = ownData(tool, "invoke");
    if (type !== "function" || typeof name !== "string" || typeof invoke !== "function") {
      throw new RefError(
        "invalid-options",
        `planTool: tool ${index} is not a function tool (hosted tools and handoffs cannot be steps of a plan)`,
      );
    }
    if (seen.has(name)) throw new RefError("invalid-options", `planTool: two tools are named ${quoted(name, 40)}`);
    seen.add(name);
    const parameters = ownData(tool, "parameters");
    const output = ownData(tool, "outputSchema");
    const description = ownData(tool, "description");
    const spec: ToolSpec = {
      ...(typeof description === "string" ? { description } : {}),
      input: jsonCopy(parameters, name, "parameters"),
      ...(output === undefined ? {} : { output: jsonCopy(output, name, "outputSchema") }),
    };
    const needsApproval = ownData(tool, "needsApproval");
    read.push({
      name,
      spec,
      tool: tool as unknown as Invocable,
      needsApproval:
        typeof needsApproval === "function" ? (needsApproval as AgentApproval) : needsApproval === true ? () => true : undefined,
    });
  });
  return read;
}

function jsonCopy(schema: unknown, tool: string, key: string): JsonSchema {
  try {
    const copy = JSON.parse(JSON.stringify(schema)) as unknown;
    if (typeof copy === "boolean" || isPlainObject(copy)) return copy;
  } catch {
    // Reported below.
  }
  throw new RefError("invalid-options", `planTool: the ${key} of tool ${quoted(tool, 40)} are not a JSON Schema`);
}

/**
 * The catalog of an agent's function tools: each tool's `parameters` as `input` (the JSON Schema the
 * SDK made of its Zod or JSON schema), its `outputSchema` as `output`, its description.
 *
 * @example
 * catalogFromAgentTools([getWeather]).get_weather.input // { type: "object", properties: { city: … }, required: ["city"], additionalProperties: false }
 */
export function catalogFromAgentTools(tools: readonly AgentTool[]): ToolCatalog {
  const catalog = Object.create(null) as Record<string, ToolSpec>;
  for (const { name, spec } of readAgentTools(tools)) defineOwn(catalog, name, spec);
  return catalog;
}

/**
 * A step's result from what a tool's `invoke` gave: a string holding a JSON object or array is that
 * value (Agents SDK tools often answer JSON text), anything else as it is.
 */
function stepValue(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * A function tool named `run_plan` (strict) that runs a whole plan over the agent's function tools.
 * Its `parameters` are `planSchema(catalog, { dialect: "openai-strict" })` over the tools' JSON
 * schemas; each step runs through its tool's own `invoke` with the run's context and the step's
 * signal (the tool parses its arguments, strips strict nulls and turns its errors into text as the SDK
 * does). A plan with lint errors is not run and the answer lists them; otherwise the answer is the
 * run's status, results (each cut at `maxResultChars`), errors and skipped steps, as the JSON string
 * the SDK hands the model.
 *
 * No step starts while the model is still writing the plan (no `startEarly`, as the AI SDK's plan tool
 * has): the Agents SDK calls a function tool only once the model's whole response is in, and its
 * public API gives a tool no piece of its arguments before then (the streamed argument deltas reach
 * only the application, as the provider's raw events).
 *
 * @example
 * const tools = [geocode, weather, airQuality];
 * const agent = new Agent({ name: "planner", tools: [...tools, planTool(tools)] });
 * const result = await run(agent, "Weather and air in Lisbon?");
 */
export function planTool(tools: readonly AgentTool[], options: AgentsPlanToolOptions = {}): PlanFunctionTool {
  const { description, name, ...callOptions } = readPlanCallOptions(options) as AgentsPlanToolOptions & { maxResultChars: number };
  if (description !== undefined && typeof description !== "string")
    throw new RefError("invalid-options", "planTool: option description must be a string");
  if (name !== undefined && (typeof name !== "string" || name === ""))
    throw new RefError("invalid-options", "planTool: option name must be a non-empty string");
  if (ownData(callOptions, "startEarly") !== undefined)
    throw new RefError(
      "invalid-options",
      "planTool: option startEarly is not available with the Agents SDK (it gives a tool its arguments only once the model's response is whole)",
    );
  const read = readAgentTools(tools);
  const catalog = catalogFromAgentTools(tools);
  const language = Object.fromEntries(
    (["syntax", "templates", "deep"] as const).flatMap((key) =>
      ownData(callOptions, key) === undefined ? [] : [[key, ownData(callOptions, key)]],
    ),
  );
  const parameters = planSchema(catalog, { ...language, dialect: "openai-strict" });
  const suspended = new SuspendedCalls();
  const invoke = async (runContext: unknown, input: string, details?: { readonly signal?: AbortSignal | undefined }): Promise<string> => {
    let plan: unknown;
    try {
      plan = JSON.parse(input) as unknown;
    } catch (error) {
      return JSON.stringify({
        status: "invalid",
        diagnostics: [{ code: "invalid-plan", message: `the plan is not JSON: ${safeText(describeThrown(error), 120)}`, pointer: "" }],
      } satisfies PlanCallResult);
    }
    const functions = Object.create(null) as Record<string, ToolFunction>;
    for (const { name: toolName, tool, needsApproval } of read) {
      const fn = (async (args, context) =>
        stepValue(await tool.invoke(runContext, JSON.stringify(args), { signal: context.signal }))) satisfies ToolFunction;
      // The tool's own approval policy, asked with the step's resolved arguments as the SDK asks it with a direct call's.
      defineOwn(
        functions,
        toolName,
        needsApproval === undefined ? fn : requireApproval(fn, (args) => needsApproval.call(tool, runContext, args)),
      );
    }
    const answer = await runPlanCall(
      plan,
      { tools: functions, catalog, signal: details?.signal, suspended },
      { ...callOptions, dialect: "openai-strict" },
    );
    return JSON.stringify(answer);
  };
  return {
    type: "function",
    name: name ?? PLAN_TOOL_NAME,
    description:
      description ??
      planCallDescription(catalog, {
        ...language,
        ...(ownData(callOptions, "session") === undefined
          ? {}
          : { session: ownData(callOptions, "session") as PlanCallOptions["session"] }),
      }),
    parameters: parameters as unknown as PlanToolParameters,
    strict: true,
    invoke,
    needsApproval: async () => false,
    isEnabled: async () => true,
    resume: (runId, decision, resumeOptions) =>
      resumePlanCall(suspended, runId, decision, ownData(resumeOptions, "signal") as AbortSignal | undefined),
  };
}
