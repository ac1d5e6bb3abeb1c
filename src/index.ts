/**
 * plan-refs: step references (`$1.city`) in AI-agent tool plans — one formal grammar, an evaluator
 * that reads own data only, and the tools built on them. Everything public is exported here and from
 * its role's subpath (`plan-refs/grammar`, `plan-refs/resolve`, …).
 */
export * from "./grammar/index.js";
export * from "./resolve/index.js";
