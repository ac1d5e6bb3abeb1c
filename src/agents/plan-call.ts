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
import { runPlan, type RunOptions, type ToolFunctions } from "../run/run-plan.js";
import { RefError } from "../shared/errors.js";
import { isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
import { layeredOptions, type Syntax } from "../shared/options.js";
import { fromStrictOutput } from "../formats/strict-output.js";
import type { SchemaDialect } from "../formats/plan-schema.js";

/** The longest result, in characters of its JSON text, that a plan call's answer holds by default. */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;

/** Options of a plan tool: `runPlan`'s (but the catalog, which is the tools', and the signal, which is the request's), and the answer's. */
export interface PlanCallOptions extends Omit<RunOptions, "catalog" | "signal" | "onEvent"> {
  /**
   * A result whose JSON text is longer is cut to this many characters and ends with a marker saying
   * so, so that one huge result cannot flood the model's context (default 20,000).
   */
  readonly maxResultChars?: number;
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

/** The answer of a plan tool: JSON data. */
export type PlanCallResult =
  | { readonly status: "invalid"; readonly diagnostics: readonly PlanCallDiagnostic[] }
  | {
      readonly status: "ok" | "failed" | "aborted";
      /** Each result by step id, as JSON; a result longer than `maxResultChars` is a string that ends with the cut marker. */
      readonly results: Readonly<Record<string, unknown>>;
      readonly errors: Readonly<Record<string, { readonly code: string; readonly message: string }>>;
      readonly skipped: readonly number[];
      /** The plan's resolved `output`, when it has one (cut like a result). */
      readonly output?: unknown;
      /** Why the plan's `output` could not be resolved. */
      readonly outputError?: { readonly code: string; readonly message: string };
    };

/** What a plan call needs besides the plan: the tools, their catalog, the request's signal, and problems found before linting. */
export interface PlanCall {
  readonly tools: ToolFunctions;
  readonly catalog: ToolCatalog;
  readonly signal?: AbortSignal | undefined;
  /** Steps the integration cannot run although the catalog names their tool (an AI SDK tool without `execute`). */
  readonly check?: ((plan: unknown) => readonly PlanCallDiagnostic[]) | undefined;
}

/**
 * The options of a plan tool, checked when the tool is made (a mistake is a `RefError` then, never a
 * failed tool call later): `maxResultChars` a positive integer, `dialect` one of the two.
 *
 * @example
 * readPlanCallOptions({ maxResultChars: 5_000 }).maxResultChars // 5000
 */
export function readPlanCallOptions(options: PlanCallOptions): PlanCallOptions & { readonly maxResultChars: number } {
  if (!isPlainObject(options)) throw new RefError("invalid-options", "the plan tool's options must be a plain object");
  const max = ownData(options, "maxResultChars") ?? DEFAULT_MAX_RESULT_CHARS;
  if (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1) throw new RefError("invalid-options", "option maxResultChars must be a positive integer (characters of a result's JSON text)");
  const dialect = ownData(options, "dialect");
  if (dialect !== undefined && dialect !== "json-schema" && dialect !== "openai-strict") throw new RefError("invalid-options", `option dialect must be "json-schema" or "openai-strict"`);
  return { ...Object.fromEntries(Object.keys(options).map((key) => [key, ownData(options, key)])), maxResultChars: max };
}

/**
 * Lint and run a plan a model sent, and answer as JSON. A plan with lint errors (or problems `check`
 * finds) is not run: `{ status: "invalid", diagnostics }`, each with its code, message and JSON
 * Pointer (did-you-mean included). Otherwise `runPlan` runs it with the options and the request's
 * signal (an aborted request aborts the run): `{ status, results, errors, skipped }`, each result's
 * JSON text at most `maxResultChars` long. Never throws for the plan's sake.
 *
 * @example
 * await runPlanCall({ steps: [{ id: 1, tool: "geocode", args: { city: "Oslo" } }] }, { tools, catalog }, {})
 * // { status: "ok", results: { "1": { lat: 59.9, lon: 10.7 } }, errors: {}, skipped: [] }
 */
export async function runPlanCall(input: unknown, call: PlanCall, options: PlanCallOptions): Promise<PlanCallResult> {
  const { maxResultChars, dialect, ...runOptions } = readPlanCallOptions(options);
  const plan = dialect === "openai-strict" ? fromStrictOutput(input, call.catalog) : input;
  const early = call.check?.(plan) ?? [];
  if (early.length > 0) {
    const lint = lintPlan(plan, { ...languageOf(runOptions), tools: call.catalog }).filter((diagnostic) => diagnostic.severity === "error");
    return { status: "invalid", diagnostics: [...early, ...lint.map(({ code, message, pointer }) => ({ code, message, pointer }))] };
  }
  const report = await runPlan(plan, call.tools, { ...runOptions, catalog: call.catalog, ...(call.signal === undefined ? {} : { signal: call.signal }) });
  if (report.status === "invalid") {
    return { status: "invalid", diagnostics: report.diagnostics.filter((diagnostic) => diagnostic.severity === "error").map(({ code, message, pointer }) => ({ code, message, pointer })) };
  }
  const json = reportToJSON(report);
  const results: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(json.results)) results[id] = cutResult(value, maxResultChars);
  const errors: Record<string, { code: string; message: string }> = {};
  for (const [id, error] of Object.entries(json.errors) as [string, StepErrorJSON][]) errors[id] = { code: error.code, message: error.message };
  // A plan call answers once: steps still waiting for approval have not run, as failed ones.
  const output = json.outputError !== undefined ? { outputError: { code: json.outputError.code, message: json.outputError.message } } : Object.hasOwn(json, "output") ? { output: cutResult(json.output, maxResultChars) } : {};
  return { status: json.status === "invalid" || json.status === "suspended" ? "failed" : json.status, results, errors, skipped: json.skipped, ...output };
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
  let end = max;
  // Never split a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [cut: ${max} of ${text.length} characters]`;
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
export function planCallDescription(catalog: ToolCatalog, options: Pick<PlanCallOptions, "syntax" | "templates" | "deep"> = {}): string {
  const problems: string[] = [];
  const tools = readTools(catalog, (pointer, message) => void problems.push(`${pointer || "/"}: ${message}`), "");
  if (tools === undefined || problems.length > 0) throw new RefError("invalid-options", `the plan tool's catalog cannot be used: ${problems[0] ?? "no tools"}`);
  const { syntax, templates, deep } = layeredOptions(undefined, options);
  const names = Object.keys(tools);
  const lines = [
    `Run several tool calls as one plan, in one call: {"steps":[{"id":1,"tool":"<name>","args":{…}}, …]}. Each step has a unique integer id.`,
    referenceLines(syntax, templates, deep),
    "A step runs as soon as the steps it references are done; steps that do not depend on each other run at the same time. Prefer one plan over several calls.",
    `Optionally add "output": {"answer":"$3.text", …} beside "steps": written like args, it is resolved when every step has run and is the answer's "output", so you need not read every result.`,
    `A plan with mistakes is not run: the answer is {"status":"invalid","diagnostics":[{code,message,pointer}]}; fix what they say and send the corrected plan. Otherwise the answer is {"status","results" (by step id),"errors","skipped"} and "output" when the plan has one.`,
    `Tools: ${names.slice(0, MAX_DESCRIBED_TOOLS).join(", ")}${names.length > MAX_DESCRIBED_TOOLS ? `, and ${names.length - MAX_DESCRIBED_TOOLS} more` : ""}.`,
  ];
  const example = examplePlan(tools, syntax);
  if (example !== undefined) lines.push(`Example: ${JSON.stringify(example)}`);
  return lines.join("\n");
}

function referenceLines(syntax: Syntax, templates: boolean, deep: boolean): string {
  const parts = [`An argument that is exactly "$2" is step 2's whole result; "$2.key" is one key of it.`];
  if (syntax === "path") parts.push(`"$2.a.b" walks keys, "$2.items[0]" indexes a list, "$2.city ?? \\"Paris\\"" gives a default when a key is missing.`);
  if (templates) parts.push(`"Weather in \${2.city}" puts a value into text.`);
  parts.push(deep ? "References work inside nested objects and lists too." : "Only a whole top-level argument is a reference (not one nested inside an object or a list).");
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
  const names = isPlainArray(required) ? required.filter((name): name is string => typeof name === "string" && Object.hasOwn(properties, name)) : [];
  return (names.length > 0 ? names : Object.keys(properties).slice(0, 1)).slice(0, 3);
}

/**
 * A two-step plan over the catalog's tools whose second step references the first: the first tool
 * with an output schema that has properties feeds a key of it to another tool. Kept only if it lints
 * clean, so the model is never shown a wrong plan.
 */
function examplePlan(tools: Readonly<Record<string, { readonly input?: JsonSchema; readonly output?: JsonSchema }>>, syntax: Syntax): unknown {
  const names = Object.keys(tools);
  if (names.length === 0) return undefined;
  const argsOf = (tool: string): Record<string, unknown> => {
    const input = tools[tool]!.input;
    const properties = ownData(input, "properties");
    return Object.fromEntries(argumentNames(input).map((name) => [name, exampleValue(ownData(properties, name), name)]));
  };
  const source = names.find((name) => isPlainObject(ownData(tools[name]!.output, "properties"))) ?? names[0]!;
  const target = names.find((name) => name !== source && argumentNames(tools[name]!.input).length > 0) ?? names.find((name) => name !== source) ?? source;
  const first = { id: 1, tool: source, args: argsOf(source) };
  const second = { id: 2, tool: target, args: argsOf(target) };
  const [argument] = argumentNames(tools[target]!.input);
  if (argument !== undefined) {
    const outputKeys = Object.keys((ownData(tools[source]!.output, "properties") as object | undefined) ?? {});
    const wanted = ownData(ownData(ownData(tools[target]!.input, "properties"), argument), "type");
    const key = outputKeys.find((name) => name === argument) ?? outputKeys.find((name) => ownData(ownData(ownData(tools[source]!.output, "properties"), name), "type") === wanted) ?? outputKeys[0];
    second.args[argument] = key === undefined ? "$1" : `$1.${key}`;
  }
  for (const plan of [{ steps: [first, second] }, { steps: [first] }]) {
    if (!lintPlan(plan, { tools, syntax }).some((diagnostic) => diagnostic.severity === "error")) return plan;
  }
  return undefined;
}
