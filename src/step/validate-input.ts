/**
 * `validateInputs`: a step's resolved arguments checked against its tool's input schema just before
 * the call, with the linter's compiled schemas (`compileInputSchema`: Ajv, bounded, once per schema),
 * so the run refuses what the linter would have refused had the values been known.
 */
import { argumentsCopy, compileInputSchema, inputIssues, type InputIssue } from "../lint/input-schema.js";
import { DEFAULT_LIMITS } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";
import { quoted } from "../shared/text.js";
import { STEP_FAILURES, type InputMismatch, type StepFailure } from "./attempt.js";

export type { InputMismatch } from "./attempt.js";

/**
 * Whether a step's resolved arguments are checked before its call: the run asked (`validateInputs`,
 * stored with a submitted run), or the executor did (a worker's own `validateInputs`; `runPlan` has
 * only the run's). Both executors decide with this.
 *
 * @example
 * checksInputs(undefined, true) // true: the worker asks, whatever the run said
 */
export function checksInputs(run: unknown, executor: boolean): boolean {
  return run === true || executor;
}

/**
 * The `invalid-input` failure of a step whose arguments do not fit its tool's input schema, or
 * `undefined` (they fit, or `on` is false: nothing is checked). Never throws.
 *
 * @example
 * inputFailure(true, catalog, "add", { a: 1 })?.code // "invalid-input"
 */
export function inputFailure(on: boolean, catalog: unknown, tool: string, args: unknown): StepFailure | undefined {
  if (!on) return undefined;
  const mismatch = inputMismatch(catalog, tool, args);
  return mismatch === undefined ? undefined : STEP_FAILURES.invalidInput(mismatch);
}

/**
 * `undefined` when `args` fit the input schema of `tool` in `catalog` (or there is none, or it cannot
 * be compiled: the linter said so), else the detail of a step error: the first mistakes, each with
 * its JSON Pointer in the arguments, in two forms (quoting the values, and with their shapes only).
 * Never throws.
 *
 * @example
 * inputMismatch({ add: { input: { type: "object", required: ["b"] } } }, "add", { a: 1 })?.detail
 * // 'its arguments do not match the input schema: / needs "b"'
 */
export function inputMismatch(catalog: unknown, tool: string, args: unknown): InputMismatch | undefined {
  let issues: InputIssue[];
  try {
    const schema = ownData(ownData(catalog, tool), "input");
    if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null)) return undefined;
    const compiled = compileInputSchema(schema);
    if (!compiled.ok) return undefined;
    issues = inputIssues(compiled, argumentsCopy(args, DEFAULT_LIMITS.maxDepth));
  } catch (error) {
    const detail = `its arguments could not be read: ${error instanceof Error ? error.message : "unknown error"}`;
    return { detail, detailWithoutValues: detail };
  }
  if (issues.length === 0) return undefined;
  const text = (values: boolean): string => {
    const shown = issues.slice(0, 3).map((issue) => issueText(issue, values));
    return `its arguments do not match the input schema: ${shown.join("; ")}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""}`;
  };
  return { detail: text(true), detailWithoutValues: text(false) };
}

function issueText(issue: InputIssue, values: boolean): string {
  switch (issue.kind) {
    case "missing":
      return `${issue.path || "/"} needs ${issue.names.map(({ name }) => quoted(name, 40)).join(", ")}`;
    case "unknown":
      return `${quoted(issue.path, 60)} is not an argument the schema allows`;
    case "invalid":
      return `${issue.path || "/"} ${values ? issue.message : issue.shapeMessage}`;
  }
}
