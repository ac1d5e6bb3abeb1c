/**
 * The plan format: `{ "steps": [ { "id": 1, "tool": "geocode", "args": { … } } ], "tools"?, "options"? }`,
 * or a bare array of steps. `readPlan` checks the shape of any value and reports every problem with a
 * JSON Pointer, so the linter can go on after a mistake.
 */
import { isPlainObject, ownData as ownValue, ownElements } from "../shared/own-data.js";
import { pointerToken } from "../shared/pointer.js";
import { isValidOption, OPTION_REQUIREMENTS, PLAN_OPTION_NAMES, type Syntax } from "../shared/options.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { quoted, safeText } from "../shared/text.js";

/** A JSON Schema, as the tool catalog carries it (only what plan-refs reads is typed). */
export type JsonSchema = boolean | Readonly<Record<string, unknown>>;

/** One tool of a catalog. */
export interface ToolSpec {
  readonly description?: string;
  /** JSON Schema of the tool's arguments object. */
  readonly input?: JsonSchema;
  /** JSON Schema of the tool's result. */
  readonly output?: JsonSchema;
}

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

/** A plan: steps, and optionally its tool catalog and options. */
export interface Plan {
  readonly steps: readonly PlanStep[];
  readonly tools?: ToolCatalog;
  readonly options?: PlanOptions;
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
const PLAN_KEYS = new Set(["steps", "tools", "options", "$schema", "description", "name"]);
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
    const problem: PlanProblem = { code: "invalid-plan", message: `the plan could not be read: ${safeText(describeThrown(error), 120)}`, pointer: "" };
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

  if (Array.isArray(value)) {
    stepsValue = value;
    stepsPointer = "";
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (!PLAN_KEYS.has(key)) problem(`/${pointerToken(key)}`, `unknown plan property ${quoted(key, 40)} (expected ${PLAN_KEY_LIST})`, undefined, "key");
    }
    if (!Object.hasOwn(value, "steps")) problem("", `a plan needs a "steps" array`);
    for (const key of TEXT_KEYS) {
      const text = ownValue(value, key);
      if (Object.hasOwn(value, key) && typeof text !== "string") problem(`/${pointerToken(key)}`, `"${key}" must be a string`);
    }
    stepsValue = ownValue(value, "steps");
    tools = readTools(ownValue(value, "tools"), problem);
    options = readOptions(ownValue(value, "options"), problem);
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
      if (!STEP_KEYS.has(key)) problem(`${pointer}/${pointerToken(key)}`, `unknown step property ${quoted(key, 40)} (expected ${STEP_KEY_LIST})`, stepId, "key");
    }
    if (Object.hasOwn(raw, "name") && typeof ownValue(raw, "name") !== "string") problem(`${pointer}/name`, `"name" must be a string`, stepId);
    if (Object.hasOwn(raw, "description") && typeof ownValue(raw, "description") !== "string") problem(`${pointer}/description`, `"description" must be a string`, stepId);
    const tool = ownValue(raw, "tool");
    if (typeof tool !== "string" || tool === "") problem(Object.hasOwn(raw, "tool") ? `${pointer}/tool` : pointer, `step ${stepId ?? index} needs a "tool" name (a non-empty string)`, stepId);
    const args = Object.hasOwn(raw, "args") ? ownValue(raw, "args") : {};
    if (!isPlainObject(args)) problem(`${pointer}/args`, `"args" must be an object`, stepId);
    if (stepId === undefined || typeof tool !== "string" || tool === "" || !isPlainObject(args)) return;
    const first = seen.get(stepId);
    if (first !== undefined) {
      problems.push({ code: "duplicate-step-id", message: `step id ${stepId} is used twice (first at ${stepsPointer}/${first})`, pointer: `${pointer}/id`, step: stepId });
      return;
    }
    seen.set(stepId, index);
    steps.push({ id: stepId, tool, args, index, pointer });
  });

  const plan: Plan = {
    steps: steps.map(({ id, tool, args }) => ({ id, tool, args })),
    ...(tools === undefined ? {} : { tools }),
    ...(options === undefined ? {} : { options }),
  };
  return { plan, steps, stepsPointer, problems };
}

/** A short, safe description of a bad id (`JSON.stringify` throws on BigInts and cycles). */
function describeId(id: unknown): string {
  if (typeof id === "number") return String(id);
  if (typeof id === "string") return quoted(id, 40);
  if (id === null || typeof id === "boolean") return String(id);
  return Array.isArray(id) ? "an array" : `a value of type ${typeof id}`;
}

/**
 * Check a tool catalog (inline `tools` or a separate file); returns the usable part. Every problem goes
 * to `problem`; without a callback it throws `RefError` code `invalid-options`.
 *
 * @example
 * readTools({ geocode: { input: 3 } }, (pointer, message) => console.log(pointer, message), "")
 * // logs: /geocode/input "input" must be a JSON Schema (an object or a boolean)
 */
export function readTools(value: unknown, problem: (pointer: string, message: string) => void, base = "/tools"): ToolCatalog | undefined {
  if (typeof problem !== "function") {
    throw new RefError("invalid-options", `readTools needs a callback for the problems it finds, (pointer, message) => void, not ${problem === null ? "null" : typeof problem}`);
  }
  // Problems are collected and reported after reading, so the callback's own errors pass through unchanged.
  const found: [string, string][] = [];
  let tools: ToolCatalog | undefined;
  try {
    tools = readToolsValue(value, (pointer, message) => void found.push([pointer, message]), base);
  } catch (error) {
    found.push([base, `the tool catalog could not be read: ${safeText(describeThrown(error), 120)}`]);
    tools = undefined;
  }
  for (const [pointer, message] of found) problem(pointer, message);
  return tools;
}

function readToolsValue(value: unknown, problem: (pointer: string, message: string) => void, base: string): ToolCatalog | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    problem(base, `"tools" must be an object mapping tool names to { description, input, output }`);
    return undefined;
  }
  const tools: Record<string, ToolSpec> = Object.create(null) as Record<string, ToolSpec>;
  for (const name of Object.keys(value)) {
    const spec = ownValue(value, name);
    const pointer = `${base}/${pointerToken(name)}`;
    if (!isPlainObject(spec)) {
      problem(pointer, `tool ${quoted(name, 40)} must be an object with description, input and output`);
      continue;
    }
    for (const key of ["input", "output"] as const) {
      const schema = ownValue(spec, key);
      if (schema !== undefined && typeof schema !== "boolean" && !isPlainObject(schema)) problem(`${pointer}/${key}`, `"${key}" must be a JSON Schema (an object or a boolean)`);
    }
    const description = ownValue(spec, "description");
    if (description !== undefined && typeof description !== "string") problem(`${pointer}/description`, `"description" must be a string`);
    Object.defineProperty(tools, name, { value: spec as ToolSpec, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}

function readOptions(value: unknown, problem: (pointer: string, message: string, step?: number, at?: "key") => void): PlanOptions | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    problem("/options", `"options" must be an object`);
    return undefined;
  }
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = ownValue(value, key);
    const name = PLAN_OPTION_NAMES.find((known) => known === key);
    if (name === undefined) problem(`/options/${pointerToken(key)}`, `unknown plan option ${quoted(key, 40)} (expected ${PLAN_OPTION_NAMES.join(", ")})`, undefined, "key");
    // A plan is data: null and undefined are not values of its options.
    else if (item !== undefined && item !== null && isValidOption(name, item)) options[name] = item;
    else problem(`/options/${name}`, `"${name}" must be ${OPTION_REQUIREMENTS[name]}`);
  }
  return options as PlanOptions;
}
