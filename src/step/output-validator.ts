/**
 * Checking a tool's result against the output schema of its catalog entry, with Ajv (a maintained
 * JSON Schema validator). Compiled validators are cached per schema object.
 */
import AjvModule, { type ValidateFunction } from "ajv";
import type { JsonSchema } from "../plan/plan.js";

const Ajv = AjvModule.default;
let ajv: InstanceType<typeof Ajv> | undefined;
const compiled = new WeakMap<object, ValidateFunction | Error>();

/** Compile a schema ahead of time, so the first result checked does not pay for it mid-run. */
export function prepareOutputSchema(schema: JsonSchema): void {
  if (typeof schema === "object") validatorOf(schema);
}

/** `undefined` when `value` matches `schema`, else a one-line description of the first mismatches. */
export function outputMismatch(schema: JsonSchema, value: unknown): string | undefined {
  if (schema === true) return undefined;
  if (schema === false) return "the catalog's output schema is false (no result is valid)";
  const validate = validatorOf(schema);
  if (validate instanceof Error) return `the catalog's output schema is invalid: ${validate.message}`;
  if (validate(value)) return undefined;
  const problems = (validate.errors ?? [])
    .slice(0, 3)
    .map((error) => `${error.instancePath || "(result)"} ${error.message ?? "is invalid"}`);
  return `result does not match the output schema: ${problems.join("; ")}`;
}

function validatorOf(schema: object): ValidateFunction | Error {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    ajv ??= new Ajv({ strict: false, allErrors: true, validateFormats: false });
    try {
      validate = ajv.compile(schema as Record<string, unknown>);
    } catch (error) {
      validate = error instanceof Error ? error : new Error(String(error));
    } finally {
      // Ajv keeps every schema it compiled and refuses a second one with the same `$id` (a catalog
      // parsed again for each request): forget it, as the input schemas' compile does; the validator
      // keeps what it needs.
      try {
        ajv.removeSchema(schema);
      } catch {
        // Nothing was added.
      }
    }
    compiled.set(schema, validate);
  }
  return validate;
}
