/**
 * `validateInputs`: a step's resolved arguments checked against its tool's input schema just before
 * the call, with the linter's compiled schemas (`compileInputSchema`: Ajv, bounded, once per schema),
 * so the run refuses what the linter would have refused had the values been known.
 */
import { argumentsCopy, compileInputSchema, inputIssues, type InputIssue } from "../lint/input-schema.js";
import { DEFAULT_LIMITS } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";
import { quoted } from "../shared/text.js";

/** Why resolved arguments do not fit: the step error's detail, and the same with every argument value reduced to its shape. */
export interface InputMismatch {
  /** What the report and the model see: the values found quoted (`/a must be a number (got "three")`). */
  readonly detail: string;
  /** What a span may carry while content is not recorded (`/a must be a number (got a string of 5 characters)`). */
  readonly detailWithoutValues: string;
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
