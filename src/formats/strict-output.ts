/**
 * The way back from `planSchema(catalog, { dialect: "openai-strict" })`: strict structured output must
 * write every property, so a model writes `null` for an argument it leaves out. `fromStrictOutput`
 * drops those nulls where the catalog's schema says the property is optional, so the plan means what
 * the model meant. The plan's `output`, written in strict mode as a list of `{ name, value }` pairs
 * (or null), becomes the object again.
 */
import type { JsonSchema, Plan, ToolCatalog } from "../plan/plan.js";
import { resolveLocalRef } from "../shared/pointer.js";
import { defineOwn as define, isPlainObject, ownData as own } from "../shared/own-data.js";
import { MAX_SCHEMA_DEPTH } from "./plan-schema.js";

/**
 * A plan from a model's strict structured output: every `null` written for an optional property (one
 * not in its schema's `required`) is left out, in `args` and in the objects inside them that the
 * input schema describes. Everything else is kept as it is (own data only; a value of the wrong shape
 * is returned unchanged, for `lintPlan` to report). Never throws.
 *
 * @example
 * fromStrictOutput({ steps: [{ id: 1, tool: "weather", args: { city: "Oslo", days: null } }] }, catalog)
 * // → { steps: [{ id: 1, tool: "weather", args: { city: "Oslo" } }] }
 */
export function fromStrictOutput(output: unknown, catalog: ToolCatalog): Plan {
  try {
    if (!isPlainObject(output)) return output as Plan;
    const steps = own(output, "steps");
    if (!Array.isArray(steps)) return output as unknown as Plan;
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(output)) define(copy, key, own(output, key));
    copy["steps"] = Array.from({ length: steps.length }, (_, index) => {
      const step = own(steps, String(index));
      if (!isPlainObject(step)) return step;
      const tool = own(step, "tool");
      const spec = typeof tool === "string" && isPlainObject(catalog) && Object.hasOwn(catalog, tool) ? own(catalog, tool) : undefined;
      const input = isPlainObject(spec) ? (own(spec, "input") as JsonSchema | undefined) : undefined;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(step)) define(out, key, own(step, key));
      if (input !== undefined) out["args"] = withoutNulls(own(step, "args"), input, input, 0);
      return out;
    });
    if (Object.hasOwn(output, "output")) {
      const written = outputFromPairs(own(output, "output"));
      if (written === undefined) delete copy["output"];
      else copy["output"] = written;
    }
    return copy as unknown as Plan;
  } catch {
    return output as Plan; // a Proxy trap that throws: the output as it is, for readPlan to report
  }
}

/**
 * The plan's output from strict mode's list of `{ name, value }` pairs: `null` is no output, a list
 * becomes the object; anything else is kept as it is, for `readPlan` to report.
 */
function outputFromPairs(pairs: unknown): unknown {
  if (pairs === null) return undefined;
  if (!Array.isArray(pairs)) return pairs;
  const out: Record<string, unknown> = {};
  for (let index = 0; index < pairs.length; index++) {
    const pair = own(pairs, String(index));
    const name = isPlainObject(pair) ? own(pair, "name") : undefined;
    if (typeof name !== "string") return pairs;
    define(out, name, own(pair, "value"));
  }
  return out;
}

/** `value` without the nulls of optional properties, following `properties`, `items` and local `$ref`s. */
function withoutNulls(value: unknown, schema: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > MAX_SCHEMA_DEPTH || !isPlainObject(schema)) return value;
  const ref = own(schema, "$ref");
  if (typeof ref === "string") return withoutNulls(value, resolveLocalRef(root, ref), root, depth + 1);
  if (Array.isArray(value)) {
    const items = own(schema, "items");
    return isPlainObject(items) ? value.map((item) => withoutNulls(item, items, root, depth + 1)) : value;
  }
  if (!isPlainObject(value)) return value;
  const properties = own(schema, "properties");
  if (!isPlainObject(properties)) return value;
  const required = own(schema, "required");
  const requiredSet = new Set(Array.isArray(required) ? required : []);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = own(value, key);
    const declared = Object.hasOwn(properties, key);
    if (item === null && declared && !requiredSet.has(key)) continue;
    define(out, key, declared ? withoutNulls(item, own(properties, key), root, depth + 1) : item);
  }
  return out;
}
