/**
 * The plan format: `{ "steps": [ { "id": 1, "tool": "geocode", "args": { … } } ], "output"?, "tools"?, "options"? }`,
 * or a bare array of steps. `readPlan` checks the shape of any value and reports every problem with a
 * JSON Pointer, so the linter can go on after a mistake.
 */
import { isPlainObject, ownData as ownValue, ownDataEntries, ownElements } from "../shared/own-data.js";
import { pointerToken } from "../shared/pointer.js";
import { isValidOption, OPTION_REQUIREMENTS, PLAN_OPTION_NAMES, type Syntax } from "../shared/options.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { quoted, safeText } from "../shared/text.js";
import { isStandardJsonSchema, standardJsonSchema, type StandardJsonSchema } from "../shared/standard-schema.js";

/** A JSON Schema, as the tool catalog carries it (only what plan-refs reads is typed). */
export type JsonSchema = boolean | Readonly<Record<string, unknown>>;

/**
 * One tool of a catalog. In a catalog given by the caller, `input` and `output` may also be schemas
 * of a schema library implementing Standard JSON Schema (Zod, ArkType, Valibot's converter):
 * `readTools` converts each once (`input` from the schema's input side, `output` from its output side).
 */
export interface ToolSpec {
  readonly description?: string;
  /** JSON Schema of the tool's arguments object. */
  readonly input?: JsonSchema | StandardJsonSchema;
  /** JSON Schema of the tool's result. */
  readonly output?: JsonSchema | StandardJsonSchema;
  /**
   * The tool only reads (calling it for a plan that turns out invalid does no harm), as the developer
   * who knows the tool says: a plan tool may start its steps while the model is still writing the plan.
   */
  readonly readOnly?: boolean;
}

/** A tool of a catalog that `readTools` read: its schemas are JSON Schemas. */
export interface ReadToolSpec extends ToolSpec {
  readonly input?: JsonSchema;
  readonly output?: JsonSchema;
}

/** A catalog that `readTools` read. */
export type ReadToolCatalog = Readonly<Record<string, ReadToolSpec>>;

/** Tools by name. */
export type ToolCatalog = Readonly<Record<string, ToolSpec>>;

/** The language options a plan may set for itself (the caller's options fill in the rest). */
export interface PlanOptions {
  readonly syntax?: Syntax;
  readonly templates?: boolean;
  readonly deep?: boolean;
}

/** One tool call of a plan. */
export interface PlanStep {
  /** A non-negative integer, unique in the plan. */
  readonly id: number;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A plan: steps, and optionally its tool catalog, options and output. */
export interface Plan {
  readonly steps: readonly PlanStep[];
  readonly tools?: ToolCatalog;
  readonly options?: PlanOptions;
  /**
   * What the run gives back as a whole (LLMCompiler's "join"): an object shaped like a step's `args`
   * (references, templates, literals), resolved against every result when the run ends.
   */
  readonly output?: Readonly<Record<string, unknown>>;
}

/** A problem with a plan's shape, before any reference is looked at. */
export interface PlanProblem {
  readonly code: "invalid-plan" | "duplicate-step-id";
  readonly message: string;
  /** JSON Pointer into the plan document. */
  readonly pointer: string;
  /** The step's id, when the problem is inside a step that has one. */
  readonly step?: number;
  /** `"key"` when the problem is the property's name itself (an unknown property), so positions point at the key. */
  readonly at?: "key";
}

/** A step that passed the shape check, with where it stands in the document. */
export interface LocatedStep extends PlanStep {
  /** The step's index in the document's step array. */
  readonly index: number;
  /** JSON Pointer of the step (`/steps/0`, or `/0` for a bare array). */
  readonly pointer: string;
}

/** What `readPlan` found: the usable steps, and every problem. */
export interface ReadPlanResult {
  /** The plan with only well-formed steps (a step with a duplicate id is kept once, the first time). */
  readonly plan: Plan;
  readonly steps: readonly LocatedStep[];
  /** Pointer of the step array (`/steps`, or `` for a bare array). */
  readonly stepsPointer: string;
  readonly problems: readonly PlanProblem[];
}

const STEP_KEYS = new Set(["id", "tool", "args", "description", "name"]);
const PLAN_KEYS = new Set(["steps", "output", "tools", "options", "$schema", "description", "name"]);

/** JSON Pointer of a plan's `output`. */
export const OUTPUT_POINTER = "/output";
/** The properties a message about an unknown one lists: all of them, from the sets themselves. */
const STEP_KEY_LIST = [...STEP_KEYS].join(", ");
const PLAN_KEY_LIST = [...PLAN_KEYS].join(", ");
/** Plan properties that, when present, must be strings. */
const TEXT_KEYS = ["$schema", "description", "name"];

/**
 * Check the shape of a plan value (as `JSON.parse` gives it) and report every problem. Never throws.
 *
 * @example
 * readPlan({ steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }] }).problems // []
 */
export function readPlan(value: unknown): ReadPlanResult {
  try {
    return readPlanValue(value);
  } catch (error) {
    // A value JSON cannot give (a throwing Proxy or getter, a revoked Proxy): one problem, no steps.
    const problem: PlanProblem = {
      code: "invalid-plan",
      message: `the plan could not be read: ${safeText(describeThrown(error), 120)}`,
      pointer: "",
    };
    return { plan: { steps: [] }, steps: [], stepsPointer: "/steps", problems: [problem] };
  }
}

function readPlanValue(value: unknown): ReadPlanResult {
  const problems: PlanProblem[] = [];
  const problem = (pointer: string, message: string, step?: number, at?: "key"): void => {
    problems.push({ code: "invalid-plan", message, pointer, ...(step === undefined ? {} : { step }), ...(at === undefined ? {} : { at }) });
  };
  let stepsValue: unknown;
  let stepsPointer = "/steps";
  let tools: ToolCatalog | undefined;
  let options: PlanOptions | undefined;
  let output: Readonly<Record<string, unknown>> | undefined;

  if (Array.isArray(value)) {
    stepsValue = value;
    stepsPointer = "";
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (!PLAN_KEYS.has(key))
        problem(`/${pointerToken(key)}`, `unknown plan property ${quoted(key, 40)} (expected ${PLAN_KEY_LIST})`, undefined, "key");
    }
    if (!Object.hasOwn(value, "steps")) problem("", `a plan needs a "steps" array`);
    for (const key of TEXT_KEYS) {
      const text = ownValue(value, key);
      if (Object.hasOwn(value, key) && typeof text !== "string") problem(`/${pointerToken(key)}`, `"${key}" must be a string`);
    }
    stepsValue = ownValue(value, "steps");
    // A plan is data: its inline catalog holds JSON Schemas only (no schema object is called).
    tools = readTools(ownValue(value, "tools"), problem, "/tools", false);
    options = readOptions(ownValue(value, "options"), problem);
    if (Object.hasOwn(value, "output")) {
      const raw = ownValue(value, "output");
      if (isPlainObject(raw)) output = raw;
      else
        problem(
          OUTPUT_POINTER,
          `"output" must be an object shaped like a step's "args" (its values may be references, such as { "answer": "$2" })`,
        );
    }
  } else {
    problem("", `a plan must be an object with a "steps" array, or an array of steps`);
    return { plan: { steps: [] }, steps: [], stepsPointer, problems };
  }

  const steps: LocatedStep[] = [];
  if (stepsValue !== undefined && !Array.isArray(stepsValue)) problem(stepsPointer, `"steps" must be an array`);
  const seen = new Map<number, number>();
  ownElements(stepsValue).forEach(([raw, index]) => {
    const pointer = `${stepsPointer}/${index}`;
    if (!isPlainObject(raw)) return problem(pointer, "a step must be an object with id, tool and args");
    const id = ownValue(raw, "id");
    const validId = typeof id === "number" && Number.isSafeInteger(id) && id >= 0;
    if (!Object.hasOwn(raw, "id")) problem(pointer, `step ${index} has no "id"`);
    else if (!validId) problem(`${pointer}/id`, `a step id must be a non-negative integer, not ${describeId(id)}`);
    const stepId = validId ? id : undefined;
    for (const key of Object.keys(raw)) {
      if (!STEP_KEYS.has(key))
        problem(`${pointer}/${pointerToken(key)}`, `unknown step property ${quoted(key, 40)} (expected ${STEP_KEY_LIST})`, stepId, "key");
    }
    if (Object.hasOwn(raw, "name") && typeof ownValue(raw, "name") !== "string")
      problem(`${pointer}/name`, `"name" must be a string`, stepId);
    if (Object.hasOwn(raw, "description") && typeof ownValue(raw, "description") !== "string")
      problem(`${pointer}/description`, `"description" must be a string`, stepId);
    const tool = ownValue(raw, "tool");
    if (typeof tool !== "string" || tool === "")
      problem(
        Object.hasOwn(raw, "tool") ? `${pointer}/tool` : pointer,
        `step ${stepId ?? index} needs a "tool" name (a non-empty string)`,
        stepId,
      );
    const args = Object.hasOwn(raw, "args") ? ownValue(raw, "args") : noArgs();
    if (!isPlainObject(args)) problem(`${pointer}/args`, `"args" must be an object`, stepId);
    if (stepId === undefined || typeof tool !== "string" || tool === "" || !isPlainObject(args)) return;
    const first = seen.get(stepId);
    if (first !== undefined) {
      problems.push({
        code: "duplicate-step-id",
        message: `step id ${stepId} is used twice (first at ${stepsPointer}/${first})`,
        pointer: `${pointer}/id`,
        step: stepId,
      });
      return;
    }
    seen.set(stepId, index);
    steps.push({ id: stepId, tool, args, index, pointer });
  });

  const plan: Plan = {
    steps: steps.map(({ id, tool, args }) => ({ id, tool, args })),
    ...(tools === undefined ? {} : { tools }),
    ...(options === undefined ? {} : { options }),
    ...(output === undefined ? {} : { output }),
  };
  return { plan, steps, stepsPointer, problems };
}

/** The empty `args` given to steps that have none, so that a diagnostic about them can point at the step instead. */
const absentArgs = new WeakSet<object>();

function noArgs(): Record<string, unknown> {
  const args = {};
  absentArgs.add(args);
  return args;
}

/**
 * Whether a step read by `readPlan` has no `args` in the document (its `args` is an empty object then).
 *
 * @example
 * argsAbsent(readPlan([{ id: 1, tool: "now" }]).steps[0]) // true
 */
export function argsAbsent(step: PlanStep): boolean {
  return absentArgs.has(step.args);
}

/** A short, safe description of a bad id (`JSON.stringify` throws on BigInts and cycles). */
function describeId(id: unknown): string {
  if (typeof id === "number") return String(id);
  if (typeof id === "string") return quoted(id, 40);
  if (id === null || typeof id === "boolean") return String(id);
  return Array.isArray(id) ? "an array" : `a value of type ${typeof id}`;
}

/**
 * Check a tool catalog (inline `tools` or a separate file); returns the usable part. A catalog is a
 * map of tool names to `{ description, input, output }`, or MCP's `tools/list` result
 * (`{ "tools": [ { name, description, inputSchema, outputSchema } ] }`). Every problem goes to
 * `problem`; without a callback it throws `RefError` code `invalid-options`.
 *
 * @example
 * readTools({ geocode: { input: 3 } }, (pointer, message) => console.log(pointer, message), "")
 * // logs: /geocode/input "input" must be a JSON Schema (an object or a boolean)
 * readTools({ tools: [{ name: "geocode", inputSchema: { type: "object" } }] }, () => {}, "") // { geocode: { input: { type: "object" } } }
 */
export function readTools(
  value: unknown,
  problem: (pointer: string, message: string) => void,
  base = "/tools",
  standardSchemas = true,
): ReadToolCatalog | undefined {
  if (typeof problem !== "function") {
    throw new RefError(
      "invalid-options",
      `readTools needs a callback for the problems it finds, (pointer, message) => void, not ${problem === null ? "null" : typeof problem}`,
    );
  }
  // Problems are collected and reported after reading, so the callback's own errors pass through unchanged.
  const found: [string, string][] = [];
  let tools: ReadToolCatalog | undefined;
  try {
    tools = readToolsValue(value, (pointer, message) => void found.push([pointer, message]), base, standardSchemas);
  } catch (error) {
    found.push([base, `the tool catalog could not be read: ${safeText(describeThrown(error), 120)}`]);
    tools = undefined;
  }
  for (const [pointer, message] of found) problem(pointer, message);
  return tools;
}

function readToolsValue(
  value: unknown,
  problem: (pointer: string, message: string) => void,
  base: string,
  standardSchemas: boolean,
): ReadToolCatalog | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    problem(base, `"tools" must be an object mapping tool names to { description, input, output }`);
    return undefined;
  }
  const listed = ownValue(value, "tools");
  const keys = Object.keys(value);
  if (Array.isArray(listed) && keys.every((key) => LIST_KEYS.has(key))) return readToolList(listed, problem, `${base}/tools`);
  const tools: Record<string, ReadToolSpec> = Object.create(null) as Record<string, ReadToolSpec>;
  if (keys.length === 1 && isPlainObject(listed) && SPEC_KEYS.every((key) => !Object.hasOwn(listed, key))) {
    problem(
      `${base}/tools`,
      `the catalog's only tool is named "tools" and has no description, input or output: write the map of tools itself ({ "geocode": { "input": … } }), or MCP's tools/list result ({ "tools": [ { "name", "inputSchema", … } ] })`,
    );
  }
  for (const name of keys) {
    const given = ownValue(value, name);
    const pointer = `${base}/${pointerToken(name)}`;
    if (!isPlainObject(given)) {
      problem(pointer, `tool ${quoted(name, 40)} must be an object with description, input and output`);
      continue;
    }
    let spec: Record<string, unknown> = given;
    for (const key of ["input", "output"] as const) {
      const schema = ownValue(spec, key);
      if (schema === undefined || typeof schema === "boolean" || isPlainObject(schema)) continue;
      if (standardSchemas && isStandardJsonSchema(schema)) {
        try {
          // The spec is the caller's: a copy carries the converted schema.
          spec = { ...Object.fromEntries(ownDataEntries(spec)), [key]: standardJsonSchema(schema, key) };
        } catch (error) {
          problem(
            `${pointer}/${key}`,
            `"${key}" is a schema object, but ${error instanceof Error ? error.message : "it could not be converted"}`,
          );
        }
        continue;
      }
      // A class instance may be a schema of a library that has no JSON Schema converter.
      const objectLike = standardSchemas && (typeof schema === "object" || typeof schema === "function");
      problem(
        `${pointer}/${key}`,
        `"${key}" must be a JSON Schema (an object or a boolean)${objectLike ? " or a schema implementing Standard JSON Schema" : ""}`,
      );
    }
    const description = ownValue(spec, "description");
    if (description !== undefined && typeof description !== "string") problem(`${pointer}/description`, `"description" must be a string`);
    const readOnly = ownValue(spec, "readOnly");
    if (readOnly !== undefined && typeof readOnly !== "boolean") problem(`${pointer}/readOnly`, `"readOnly" must be true or false`);
    Object.defineProperty(tools, name, { value: spec, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}

const SPEC_KEYS = ["description", "input", "output"];
/** The members of a tools/list result besides its tools. */
const LIST_KEYS = new Set(["tools", "nextCursor", "_meta"]);

/**
 * A catalog in the shape of MCP's `tools/list` result, `{ "tools": [ { name, description, inputSchema,
 * outputSchema } ] }` (what people copy from a server): the tools it lists, by name.
 */
function readToolList(list: readonly unknown[], problem: (pointer: string, message: string) => void, base: string): ReadToolCatalog {
  const tools: Record<string, ReadToolSpec> = Object.create(null) as Record<string, ReadToolSpec>;
  for (const [entry, index] of ownElements(list)) {
    const pointer = `${base}/${index}`;
    const name = ownValue(entry, "name");
    if (!isPlainObject(entry) || typeof name !== "string" || name === "") {
      problem(pointer, `each tool of a tools/list result must be an object with a "name" (a non-empty string)`);
      continue;
    }
    if (Object.hasOwn(tools, name)) {
      problem(`${pointer}/name`, `tool ${quoted(name, 40)} is listed twice`);
      continue;
    }
    const spec: Record<string, unknown> = {};
    for (const [from, to] of [
      ["inputSchema", "input"],
      ["outputSchema", "output"],
    ] as const) {
      const schema = ownValue(entry, from);
      if (schema === undefined) continue;
      if (typeof schema !== "boolean" && !isPlainObject(schema))
        problem(`${pointer}/${from}`, `"${from}" must be a JSON Schema (an object or a boolean)`);
      spec[to] = schema;
    }
    const description = ownValue(entry, "description");
    if (description !== undefined && typeof description !== "string") problem(`${pointer}/description`, `"description" must be a string`);
    else if (description !== undefined) spec["description"] = description;
    Object.defineProperty(tools, name, { value: spec, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}

function readOptions(
  value: unknown,
  problem: (pointer: string, message: string, step?: number, at?: "key") => void,
): PlanOptions | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    problem("/options", `"options" must be an object`);
    return undefined;
  }
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = ownValue(value, key);
    const name = PLAN_OPTION_NAMES.find((known) => known === key);
    if (name === undefined)
      problem(
        `/options/${pointerToken(key)}`,
        `unknown plan option ${quoted(key, 40)} (expected ${PLAN_OPTION_NAMES.join(", ")})`,
        undefined,
        "key",
      );
    // A plan is data: null and undefined are not values of its options.
    else if (item !== undefined && item !== null && isValidOption(name, item)) options[name] = item;
    else problem(`/options/${name}`, `"${name}" must be ${OPTION_REQUIREMENTS[name]}`);
  }
  return options;
}
