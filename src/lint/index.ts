/**
 * `plan-refs/lint`: the plan linter. Diagnostics as data, with JSON Pointers, spans inside string
 * values and, for text, exact lines and columns.
 */
export { lintPlan, lintPlanText } from "./lint-plan.js";
export type { LintOptions } from "./lint-options.js";
export { didYouMean } from "./did-you-mean.js";
export { walkSchema, type JsonType, type PathStep, type TypeSet, type WalkOutcome } from "./schema-walk.js";
export type { Diagnostic, DiagnosticCode, Severity } from "../shared/diagnostic.js";
export type { Position, Range, Span } from "../shared/span.js";
export type { ToolCatalog, ToolSpec, JsonSchema } from "../plan/plan.js";
