/**
 * `plan-refs/formats`: plans from models and from other planners. `planSchema` gives a model the JSON
 * Schema of a plan over a catalog (for structured output); `fromLLMCompiler`, `fromLLMCompilerStream`
 * and `fromReWOO` turn other planners' text into plans, with a diagnostic for every line they cannot use.
 */
export {
  planSchema,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_TOOLS,
  STRICT_FORMATS,
  STRICT_KEYWORDS,
  STRICT_REWRITES,
  type PlanSchema,
  type PlanSchemaOptions,
  type SchemaDialect,
  type StepBranch,
} from "./plan-schema.js";
export { referencePattern, type ReferencePatternOptions } from "./reference-pattern.js";
export { fromStrictOutput } from "./strict-output.js";
export { END_OF_PLAN, fromLLMCompiler, fromLLMCompilerStream } from "./llmcompiler.js";
export type { StepStream } from "./convert-text.js";
export { fromReWOO } from "./rewoo.js";
export {
  MAX_ARGUMENT_DEPTH,
  MAX_CONVERSION_DIAGNOSTICS,
  MAX_PLAN_LINE_LENGTH,
  MAX_PLAN_STEPS,
  MAX_PLAN_TEXT_LENGTH,
  type ConvertedPlan,
  type ConvertedStep,
  type ConvertOptions,
  type ConvertResult,
} from "./convert.js";
export type { Diagnostic, DiagnosticCode, Severity } from "../shared/diagnostic.js";
