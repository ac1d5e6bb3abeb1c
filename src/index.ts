/**
 * plan-refs: step references (`$1.city`) in AI-agent tool plans — one formal grammar, an evaluator
 * that reads own data only, and the tools built on them. Everything public is exported here and from
 * its role's subpath (`plan-refs/grammar`, `plan-refs/resolve`, `plan-refs/plan`, `plan-refs/lint`,
 * `plan-refs/run`, …).
 */
export * from "./grammar/index.js";
export * from "./resolve/index.js";
export * from "./plan/index.js";
export * from "./lint/index.js";
export * from "./run/index.js";
export * from "./editor/index.js";
export * from "./formats/index.js";
export { cutResult, DEFAULT_MAX_RESULT_CHARS, planCallDescription, readPlanCallOptions, runPlanCall, type PlanCall, type PlanCallDiagnostic, type PlanCallOptions, type PlanCallResult } from "./agents/plan-call.js";
export * from "./draw/index.js";
