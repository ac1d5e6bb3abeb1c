/**
 * Schemas of a schema library (Zod ≥ 4.2, ArkType ≥ 2.1.28, Valibot through its converter) in a tool
 * catalog: an object implementing Standard JSON Schema (`schema["~standard"].jsonSchema`) is turned
 * into a plain JSON Schema once, here, and every layer above reads only that JSON Schema. plan-refs
 * imports no schema library; `@standard-schema/spec` gives the types only.
 *
 * A schema object is code the caller handed over (a catalog given to `lintPlan`, `runPlan`,
 * `planSchema` or `defineTools`), not data a model wrote: its `~standard` member is read as the
 * library defines it (Zod's is a getter), and its converter is called. A plan's own inline `tools`
 * are data and never reach this reader.
 */
import type { StandardJSONSchemaV1 } from "@standard-schema/spec";
import { describeThrown } from "./errors.js";
import { isPlainObject } from "./own-data.js";
import { safeText } from "./text.js";

/** A schema of a schema library that converts itself to JSON Schema (the Standard JSON Schema interface). */
export type StandardJsonSchema<Input = unknown, Output = Input> = StandardJSONSchemaV1<Input, Output>;

/** Which side of a schema to convert: the value it accepts (a tool's arguments) or the value it gives (a tool's result). */
export type SchemaSide = "input" | "output";

/** The JSON Schema version asked of a converter: the one plan-refs reads. */
const TARGET = "draft-2020-12";

/** The converted schemas, per schema object and side: each schema is converted once. */
const converted = new WeakMap<object, Partial<Record<SchemaSide, Readonly<Record<string, unknown>>>>>();

/**
 * Whether a value is a schema object with a Standard JSON Schema converter. A plain object or a boolean
 * is a JSON Schema already (a converted schema may carry a `~standard` of its own: it stays JSON).
 *
 * @example
 * isStandardJsonSchema(z.object({ city: z.string() })) // true
 * isStandardJsonSchema({ type: "object" })              // false
 */
export function isStandardJsonSchema(value: unknown): value is StandardJsonSchema {
  if ((typeof value !== "object" && typeof value !== "function") || value === null || isPlainObject(value) || Array.isArray(value))
    return false;
  try {
    const standard = (value as { readonly "~standard"?: unknown })["~standard"];
    if (typeof standard !== "object" || standard === null) return false;
    const jsonSchema = (standard as { readonly jsonSchema?: unknown }).jsonSchema;
    return (
      typeof jsonSchema === "object" && jsonSchema !== null && typeof (jsonSchema as { readonly input?: unknown }).input === "function"
    );
  } catch {
    return false;
  }
}

/**
 * The JSON Schema (2020-12) of one side of a Standard JSON Schema, as plain JSON data (no member of
 * the library's objects survives), converted on the first call and remembered. Throws an `Error`
 * whose message says why when the library cannot convert it (Zod: a `Date` has no JSON Schema).
 *
 * @example
 * standardJsonSchema(z.object({ city: z.string() }), "input")
 * // { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { city: { type: "string" } }, required: ["city"] }
 */
export function standardJsonSchema(schema: StandardJsonSchema, side: SchemaSide): Readonly<Record<string, unknown>> {
  const known = converted.get(schema)?.[side];
  if (known !== undefined) return known;
  let json: unknown;
  try {
    const convert = schema["~standard"].jsonSchema[side];
    // A JSON round trip keeps data only: no getter, prototype or function of the library's result.
    json = JSON.parse(JSON.stringify(convert({ target: TARGET }))) as unknown;
  } catch (error) {
    throw new Error(`its ${side} JSON Schema could not be made: ${safeText(describeThrown(error), 160)}`, { cause: error });
  }
  if (!isPlainObject(json)) throw new Error(`its ${side} JSON Schema is not an object`);
  converted.set(schema, { ...converted.get(schema), [side]: json });
  return json;
}
