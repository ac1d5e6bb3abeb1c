/**
 * `plan-refs/run`: the executor — `runPlan` runs a plan's tool calls in dependency order.
 */
export {
  MAX_CONTENT_LENGTH,
  MAX_TIMEOUT_MS,
  runPlan,
  type ApprovalRequest,
  type PendingStep,
  type Tracer,
  type RunEvent,
  type RunOptions,
  type RunReport,
  type StepTiming,
  type ToolContext,
  type ToolFunction,
  type ToolFunctions,
} from "./run-plan.js";
export { reportFromJSON, reportToJSON, type RunReportJSON, type StepErrorJSON } from "./report-json.js";
export { reportField } from "./run-report.js";
export { resumePlan, type ResumeOptions } from "./resume.js";
export { approvalRuleOf, denyCall, requireApproval, type CallDenial, type ToolApproval } from "../step/gated.js";
export {
  createPlanSession,
  DEFAULT_SESSION_MAX_BYTES,
  DEFAULT_SESSION_MAX_RESULTS,
  PlanSession,
  type PlanSessionJSON,
  type PlanSessionOptions,
} from "./session.js";
export { STEP_ERROR_CODES, StepError, type StepErrorCode } from "../step/step-error.js";
export { defineTools, type CatalogTools, type DefinedTools, type SchemaValue, type ToolArgs, type TypedTool } from "./define-tools.js";
export {
  NonRetryableError,
  RETRY_DEFAULTS,
  backoffMs,
  retryDelayMs,
  type RetryPolicy,
  type RetryableCode,
  type ResolvedRetryPolicy,
} from "../step/retry.js";
