/**
 * plan-refs: step references (`$1.city`) in AI-agent tool plans — one formal grammar, an evaluator
 * that reads own data only, and the tools built on them.
 *
 * The root holds what a first program imports: parse and resolve references, read, lint and run a
 * plan, and their errors (with their main types). Everything else lives on its role's
 * subpath: `plan-refs/grammar`, `/resolve`, `/plan`, `/lint`, `/run`, `/agents`, `/editor`, `/draw`,
 * `/formats`, `/mcp`, `/postgres`, `/ai-sdk`, `/openai-agents`. CHANGELOG.md says where each name that
 * left the root went.
 *
 * @example
 * ```ts
 * resolveRefs({ q: "$1.city" }, { 1: { city: "Paris" } }); // { q: "Paris" }
 * ```
 */
export type {
  AstNode,
  DefaultNode,
  Expression,
  IndexSegment,
  InterpolationPart,
  KeySegment,
  LiteralNode,
  QuotedKeySegment,
  RefAst,
  ReferenceNode,
  Result,
  Segment,
  StepNode,
  TemplateNode,
  TextPart,
} from "./grammar/index.js";
export type { CompiledArgs, EvaluateOptions, RefErrorCode, ResolveOptions, Results, Syntax, SyntaxOptions } from "./resolve/index.js";
export type {
  JsonSchema,
  LocatedStep,
  Plan,
  PlanOptions,
  PlanProblem,
  PlanSettingsPlace,
  PlanStep,
  PlanTextReaderOptions,
  ReadPlanResult,
  StreamedPlanStep,
  ToolCatalog,
  ToolSpec,
} from "./plan/index.js";
export type { Diagnostic, DiagnosticCode, LintOptions, Position, Range, Severity, Span } from "./lint/index.js";
export type {
  ApprovalRequest,
  CatalogTools,
  DefinedTools,
  PendingStep,
  PlanSessionJSON,
  PlanSessionOptions,
  ResolvedRetryPolicy,
  ResumeOptions,
  RetryPolicy,
  RetryableCode,
  RunEvent,
  RunOptions,
  RunReport,
  RunReportJSON,
  SchemaValue,
  StepErrorCode,
  StepErrorJSON,
  StepTiming,
  ToolApproval,
  ToolArgs,
  ToolContext,
  ToolFunction,
  ToolFunctions,
  Tracer,
  TypedTool,
} from "./run/index.js";
export { formatRef, isPlaceholder, parseRef, parseTemplate, referencesIn, tryParseRef, walkAst } from "./grammar/index.js";
export { CodedError, KeyError, RefError, RefSyntaxError, compileArgs, evaluate, resolveRefs } from "./resolve/index.js";
export { PlanTextReader, readPlan, readTools } from "./plan/index.js";
export { lintPlan, lintPlanText } from "./lint/index.js";
export {
  NonRetryableError,
  STEP_ERROR_CODES,
  StepError,
  createPlanSession,
  defineTools,
  reportFromJSON,
  reportToJSON,
  requireApproval,
  resumePlan,
  runPlan,
} from "./run/index.js";
