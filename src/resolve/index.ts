/**
 * `plan-refs/resolve`: evaluation — `resolveRefs` for tool-call arguments, `compileArgs` for arguments
 * resolved against many results, `evaluate` for a parsed AST, and the error classes they throw.
 */
export { evaluate, type EvaluateOptions } from "./evaluate.js";
export { resolveRefs } from "./resolve-refs.js";
export { compileArgs, type CompiledArgs } from "./compile-args.js";
export type { Results } from "./access.js";
export { CodedError, KeyError, RefError, RefSyntaxError, type RefErrorCode } from "../shared/errors.js";
export { DEFAULT_LIMITS, type ResolveOptions, type SyntaxOptions, type Syntax } from "../shared/options.js";
