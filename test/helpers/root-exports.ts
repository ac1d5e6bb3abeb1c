/**
 * The root's runtime exports, pinned: what a first program imports from `plan-refs`. A name added to
 * or removed from src/index.ts fails test/project/root-exports.test.ts (the source) and
 * test/package/consumer.test.ts (the packed package) until it is added here and to CHANGELOG.md.
 * At most 40 (types aside): everything else lives on its subpath.
 */
export const ROOT_EXPORTS = [
  "CodedError",
  "KeyError",
  "NonRetryableError",
  "PlanTextReader",
  "RefError",
  "RefSyntaxError",
  "STEP_ERROR_CODES",
  "StepError",
  "compileArgs",
  "createPlanSession",
  "defineTools",
  "evaluate",
  "formatRef",
  "isPlaceholder",
  "lintPlan",
  "lintPlanText",
  "parseRef",
  "parseTemplate",
  "readPlan",
  "readTools",
  "referencesIn",
  "reportFromJSON",
  "reportToJSON",
  "requireApproval",
  "resolveRefs",
  "resumePlan",
  "runPlan",
  "tryParseRef",
  "walkAst",
] as const;

/** The most runtime values the root may export. */
export const MAX_ROOT_EXPORTS = 40;
