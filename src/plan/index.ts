/**
 * `plan-refs/plan`: the plan format and its dependency graph.
 */
export {
  readPlan,
  readTools,
  type JsonSchema,
  type LocatedStep,
  type Plan,
  type PlanOptions,
  type PlanProblem,
  type PlanStep,
  type ReadPlanResult,
  type ToolCatalog,
  type ToolSpec,
} from "./plan.js";
export { planGraph, type PlanGraph, type StepEdges } from "./graph.js";
export { scanArgs, type ArgReference, type ArgScan, type MalformedArg } from "./references.js";
export { parseJsonText, type JsonDocument, type JsonSyntaxError } from "./json-text.js";
export {
  MAX_STREAMED_PLAN_LENGTH,
  PlanTextReader,
  type PlanSettingsPlace,
  type PlanTextReaderOptions,
  type StreamedPlanStep,
} from "./incremental-reader.js";
